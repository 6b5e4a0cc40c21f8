// The CPU scan: every (query, block of subjects) pair is a task for the thread pool. Blocks hold
// neighbouring subjects of the length-sorted chunk, so the SIMD lanes of the kernel stay busy together.
// Hits are located by the striped pair kernels (cpu::pair_span: forward pass for the end, reversed
// prefixes for the start), one pair per task, largest first.
#include <algorithm>
#include <numeric>
#include <thread>

#include "db/interrupt.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "search/parallel.hpp"
#include "search/scan_backend.hpp"

namespace warpsearch {
namespace {

// Enough residues per block to amortise a task, few enough to balance the threads.
constexpr std::uint64_t kBlockResidues = 1u << 18;
constexpr std::size_t kBlockMinSubjects = 256;

class CpuBackend final : public ScanBackend {
 public:
  CpuBackend(const ScoringScheme& scoring, unsigned threads)
      : scoring_(scoring),
        threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

  void set_queries(const std::vector<PreparedQuery>& queries) override {
    scorers_.clear();
    scorers_.reserve(queries.size());
    for (const auto& query : queries) scorers_.emplace_back(query.codes, scoring_);
    thresholds_.clear();
    for (const auto& query : queries) thresholds_.push_back(query.threshold);
  }

  void scan(const Chunk& chunk, const ScoreSink& sink, const QueryDone& done) override {
    const SubjectBatch all = chunk.batch();
    std::vector<std::pair<std::size_t, std::size_t>> blocks;  // [first, last) subjects
    for (std::size_t first = 0; first < all.count;) {
      std::size_t last = first;
      std::uint64_t residues = 0;
      while (last < all.count && (residues < kBlockResidues || last - first < kBlockMinSubjects))
        residues += all.lengths[last++];
      blocks.emplace_back(first, last);
      first = last;
    }
    const std::size_t tasks = blocks.size() * scorers_.size();
    std::vector<std::vector<std::int32_t>> scratch(threads_);
    parallel_for(tasks, threads_, [&](std::size_t task, unsigned worker) {
      throw_if_interrupted();
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

  std::string description() const override {
    return std::string("cpu (") + cpu::isa_name(cpu::best_isa()) + ", " + std::to_string(threads_) +
           (threads_ == 1 ? " thread)" : " threads)");
  }

 private:
  ScoringScheme scoring_;
  unsigned threads_;
  std::vector<cpu::QueryScorer> scorers_;
  std::vector<int> thresholds_;
};

}  // namespace

std::unique_ptr<ScanBackend> make_cpu_backend(const ScoringScheme& scoring, unsigned threads) {
  return std::make_unique<CpuBackend>(scoring, threads);
}

}  // namespace warpsearch
