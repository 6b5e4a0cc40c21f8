// The CPU scan: every (query, block of subjects) pair is a task for the thread pool. Blocks hold
// neighbouring subjects of the length-sorted chunk, so the SIMD lanes of the kernel stay busy together.
// Long subjects (kLongSubjectLength residues and more) would leave all lanes but one idle: each is
// scanned by the striped kernel column by column, in segments that are tasks of their own
// (kernels/cpu/long_subject.hpp), which also gives the hot columns the HSP search needs.
// Hits are located by the striped pair kernels (cpu::pair_span: forward pass for the end, reversed
// prefixes for the start), one pair per task, largest first.
#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <numeric>
#include <thread>

#include "db/interrupt.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/long_subject.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "kernels/cpu/striped.hpp"
#include "search/parallel.hpp"
#include "search/scan_backend.hpp"

namespace warpsearch {
namespace {

// Enough residues per block to amortise a task, few enough to balance the threads.
constexpr std::uint64_t kBlockResidues = 1u << 18;
constexpr std::size_t kBlockMinSubjects = 256;

class CpuBackend final : public ScanBackend {
 public:
  CpuBackend(const ScoringScheme& scoring, unsigned threads, std::uint64_t long_subject_length)
      : scoring_(scoring),
        threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())),
        long_subject_length_(std::max<std::uint64_t>(long_subject_length, 1)) {}

  void set_queries(const std::vector<PreparedQuery>& queries) override {
    scorers_.clear();
    scorers_.reserve(queries.size());
    for (const auto& query : queries) scorers_.emplace_back(query.codes, scoring_);
    thresholds_.clear();
    for (const auto& query : queries) thresholds_.push_back(query.threshold);
    codes_.clear();
    for (const auto& query : queries) codes_.push_back(query.codes);
    striped_.clear();
    for (std::size_t q = 0; q < queries.size(); ++q) striped_.emplace_back();
    hot_.clear();
  }

  void scan(const Chunk& chunk, const ScoreSink& sink, const QueryDone& done) override {
    const SubjectBatch all = chunk.batch();
    // Length-sorted: the long subjects are the tail (any subject from the first long one on goes the
    // long way, which is exact for every length).
    std::size_t short_count = 0;
    while (short_count < all.count && all.lengths[short_count] < long_subject_length_) ++short_count;
    std::vector<std::pair<std::size_t, std::size_t>> blocks;  // [first, last) subjects
    for (std::size_t first = 0; first < short_count;) {
      std::size_t last = first;
      std::uint64_t residues = 0;
      while (last < short_count && (residues < kBlockResidues || last - first < kBlockMinSubjects))
        residues += all.lengths[last++];
      blocks.emplace_back(first, last);
      first = last;
    }
    const std::vector<LongTask> long_tasks = plan_long_tasks(chunk, short_count);
    const std::size_t block_tasks = blocks.size() * scorers_.size();
    std::vector<std::vector<std::int32_t>> scratch(threads_);
    std::vector<cpu::ColumnScan> long_scans(long_tasks.size());
    // Long segments first: they are the largest tasks.
    parallel_for(long_tasks.size() + block_tasks, threads_, [&](std::size_t task, unsigned worker) {
      throw_if_interrupted();
      if (task < long_tasks.size()) {
        const LongTask& t = long_tasks[task];
        long_scans[task] = cpu::scan_segment(striped_scorer(t.query), *t.subject, t.segment, thresholds_[t.query]);
        return;
      }
      task -= long_tasks.size();
      const std::size_t query = task / blocks.size();
      const auto [first, last] = blocks[task % blocks.size()];
      SubjectBatch block = all;
      block.word_offsets += first;
      block.lengths += first;
      block.count = last - first;
      auto& scores = scratch[worker];
      scores.resize(block.count);
      scorers_[query].score(block, scores.data());
      for (std::size_t s = 0; s < block.count; ++s)
        if (scores[s] >= thresholds_[query]) sink(query, first + s, scores[s]);
    });
    // Each (query, long subject)'s segments are consecutive tasks.
    for (std::size_t t = 0; t < long_tasks.size();) {
      std::size_t end = t;
      while (end < long_tasks.size() && long_tasks[end].query == long_tasks[t].query &&
             long_tasks[end].index == long_tasks[t].index)
        ++end;
      const cpu::ColumnScan joined =
          cpu::join_segments(std::vector<cpu::ColumnScan>(long_scans.begin() + static_cast<std::ptrdiff_t>(t),
                                                          long_scans.begin() + static_cast<std::ptrdiff_t>(end)));
      const std::size_t query = long_tasks[t].query;
      if (joined.best.score >= thresholds_[query]) {
        {
          std::lock_guard<std::mutex> lock(hot_mutex_);
          hot_[{query, chunk.original_indices()[long_tasks[t].index]}] = joined.hot;
        }
        sink(query, long_tasks[t].index, static_cast<int>(joined.best.score));
      }
      t = end;
    }
    long_subjects_.clear();
    for (std::size_t query = 0; query < scorers_.size(); ++query) done(query);
  }

  void locate(const std::vector<HitPair>& pairs, std::vector<HitSpan>& spans) override {
    spans.assign(pairs.size(), HitSpan{});
    // Largest pairs first: a long pair claimed last would leave the other threads idle.
    const auto area = [&](std::size_t k) {
      return static_cast<double>(pairs[k].query.size()) * static_cast<double>(pairs[k].subject.size());
    };
    std::vector<std::size_t> order(pairs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return area(a) > area(b); });
    parallel_for(pairs.size(), threads_, [&](std::size_t n, unsigned) {
      if ((n & 63) == 0) throw_if_interrupted();
      const std::size_t k = order[n];
      spans[k] = cpu::pair_span(pairs[k].query, pairs[k].subject, scoring_, AlignmentMode::local);
    });
  }

  const std::vector<cpu::ColumnRange>* hot_columns(std::size_t prepared, std::uint64_t subject) const override {
    std::lock_guard<std::mutex> lock(hot_mutex_);
    const auto found = hot_.find({prepared, subject});
    return found == hot_.end() ? nullptr : &found->second;
  }

  std::string description() const override {
    return std::string("cpu (") + cpu::isa_name(cpu::best_isa()) + ", " + std::to_string(threads_) +
           (threads_ == 1 ? " thread)" : " threads)");
  }

 private:
  // One segment of one long subject for one query.
  struct LongTask {
    std::size_t query;
    std::size_t index;  // the subject within the chunk
    const std::string* subject;
    cpu::SubjectSegment segment;
  };

  std::vector<LongTask> plan_long_tasks(const Chunk& chunk, std::size_t first_long) {
    std::vector<LongTask> tasks;
    if (first_long >= chunk.size() || scorers_.empty()) return tasks;
    long_subjects_.clear();
    long_subjects_.reserve(chunk.size() - first_long);
    for (std::size_t s = first_long; s < chunk.size(); ++s) long_subjects_.push_back(chunk.subject_codes(s));
    for (std::size_t query = 0; query < scorers_.size(); ++query) {
      const std::uint64_t reach = cpu::alignment_reach(codes_[query].size(), scoring_, thresholds_[query]);
      if (reach == 0) continue;  // no alignment can reach the threshold
      for (std::size_t s = first_long; s < chunk.size(); ++s) {
        const std::string& subject = long_subjects_[s - first_long];
        for (const cpu::SubjectSegment& segment :
             cpu::plan_segments(subject.size(), reach, cpu::segment_length_for(reach)))
          tasks.push_back({query, s, &subject, segment});
      }
    }
    return tasks;
  }

  // The query's striped scorer, built on first use (only queries that meet a long subject need one).
  const cpu::StripedScorer& striped_scorer(std::size_t query) {
    std::call_once(striped_[query].once, [&] { striped_[query].scorer.emplace(codes_[query], scoring_); });
    return *striped_[query].scorer;
  }

  struct LazyScorer {
    std::once_flag once;
    std::optional<cpu::StripedScorer> scorer;
  };

  ScoringScheme scoring_;
  unsigned threads_;
  std::uint64_t long_subject_length_;
  std::vector<cpu::QueryScorer> scorers_;
  std::vector<int> thresholds_;
  std::vector<std::string> codes_;
  std::deque<LazyScorer> striped_;  // deque: once_flag never moves
  std::vector<std::string> long_subjects_;
  std::map<std::pair<std::size_t, std::uint64_t>, std::vector<cpu::ColumnRange>> hot_;
  mutable std::mutex hot_mutex_;
};

}  // namespace

std::unique_ptr<ScanBackend> make_cpu_backend(const ScoringScheme& scoring, unsigned threads,
                                              std::uint64_t long_subject_length) {
  return std::make_unique<CpuBackend>(scoring, threads, long_subject_length);
}

}  // namespace warpsearch
