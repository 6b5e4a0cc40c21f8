// The CPU scan: every (query, block of subjects) pair is a task for the thread pool. Blocks hold
// neighbouring subjects of the length-sorted chunk, so the SIMD lanes of the kernel stay busy together.
// Long subjects (kLongSubjectLength residues and more) would leave all lanes but one idle: they are cut
// into overlapping segments (search/subject_segments.hpp) that the same kernel scores as ordinary
// subjects; a subject's score is the best of its segments', and the segments that reach the threshold
// bound where the HSP search looks (hit_regions()). Where a query's reach leaves only a few segments,
// the striped kernel scores each (query, segment) on a thread of its own (kMinLaneSegments), with the
// segment's hot columns, which the HSP search then takes as they are.
// Hits are located by the striped pair kernels (cpu::pair_span: forward pass for the end, reversed
// prefixes for the start), one pair per task, largest first.
#include <algorithm>
#include <numeric>
#include <optional>

#include "base/interrupt.hpp"
#include "base/parallel.hpp"
#include "base/usable_cpus.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/long_subject.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "kernels/cpu/striped.hpp"
#include "search/scan_backend.hpp"
#include "search/subject_segments.hpp"

namespace warpsearch {
namespace {

// Enough residues per block to amortise a task, few enough to balance the threads.
constexpr std::uint64_t kBlockResidues = 1u << 18;
constexpr std::size_t kBlockMinSubjects = 256;
// Segments of long subjects wanted at least, so that the kernel's lanes (up to 64) have work.
constexpr std::uint64_t kMinSegments = 128;
// Where a reach as long as the subjects leaves fewer segments than this (a query of tens of kilobases
// or more: a segment owns at least two reaches), most of the kernel's lanes would idle and a chunk's
// segments would be one task a query: each (query, segment) is then a task of its own for the striped
// kernel (cpu::StripedScorer), which spreads one query's rows across the vector. The scores are the
// same (both exact).
constexpr std::uint64_t kMinLaneSegments = 32;

// [first, last) subjects of `all` in blocks of about kBlockResidues.
std::vector<std::pair<std::size_t, std::size_t>> blocks_of(const SubjectBatch& all, std::size_t first,
                                                           std::size_t last) {
  std::vector<std::pair<std::size_t, std::size_t>> blocks;
  while (first < last) {
    std::size_t end = first;
    std::uint64_t residues = 0;
    while (end < last && (residues < kBlockResidues || end - first < kBlockMinSubjects)) residues += all.lengths[end++];
    blocks.emplace_back(first, end);
    first = end;
  }
  return blocks;
}

class CpuBackend final : public ScanBackend {
 public:
  CpuBackend(const ScoringScheme& scoring, unsigned threads, std::uint64_t long_subject_length)
      : scoring_(scoring),
        threads_(threads_or_usable_cpus(threads)),
        long_subject_length_(std::max<std::uint64_t>(long_subject_length, 1)) {}

  void set_queries(const std::vector<PreparedQuery>& queries) override {
    queries_ = &queries;
    striped_.clear();
    scorers_.clear();
    scorers_.reserve(queries.size());
    for (const auto& query : queries) scorers_.emplace_back(query.codes, scoring_);
    thresholds_.clear();
    query_lengths_.clear();
    reach_ = 0;
    for (const auto& query : queries) {
      thresholds_.push_back(query.threshold);
      query_lengths_.push_back(query.codes.size());
      reach_ = std::max(reach_, cpu::alignment_reach(query.codes, scoring_, query.threshold));
    }
    regions_.clear();
  }

  void scan(const Chunk& chunk, const std::int8_t* subject_frames, const ScoreSink& sink,
            const QueryDone& done) override {
    const SubjectBatch all = chunk.batch();
    // Length-sorted: the long subjects are the tail.
    std::size_t short_count = 0;
    while (short_count < all.count && all.lengths[short_count] < long_subject_length_) ++short_count;
    score_blocks(all, blocks_of(all, 0, short_count), sink);
    if (short_count < all.count && reach_ > 0) {
      const SubjectSegments segments(all, short_count, reach_, scoring_.matrix().alphabet().pad_code(),
                                     {kMinSegments, 0, threads_});
      const SubjectBatch pieces = segments.batch();
      SegmentHits hits;
      if (pieces.count < kMinLaneSegments)
        scan_striped(segments, hits);
      else
        score_blocks(
            pieces, blocks_of(pieces, 0, pieces.count),
            [&](std::size_t query, std::uint64_t segment, int score) { hits.add(segments, query, segment, score); });
      regions_.keep_all(hits, chunk.original_indices(), subject_frames, sink);
    }
    for (std::size_t query = 0; query < scorers_.size(); ++query) done(query);
  }

  void locate(const std::vector<HitPair>& pairs, std::vector<Span>& spans) override {
    spans.assign(pairs.size(), Span{});
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

  bool count_cells(std::atomic<std::uint64_t>* cells) override {
    cells_ = cells;
    return true;
  }

  const SubjectRegions* hit_regions(std::size_t prepared, std::uint64_t subject,
                                    std::int8_t subject_frame) const override {
    return regions_.find(prepared, subject, subject_frame);
  }

  std::string description() const override {
    return std::string("cpu (") + cpu::isa_name(cpu::best_isa()) + ", " + std::to_string(threads_) +
           (threads_ == 1 ? " thread)" : " threads)");
  }

 private:
  // Every query against every block of `subjects`, each (query, block) a task; scores at or above the
  // query's threshold go to the sink.
  void score_blocks(const SubjectBatch& subjects, const std::vector<std::pair<std::size_t, std::size_t>>& blocks,
                    const ScoreSink& sink) {
    const std::size_t tasks = blocks.size() * scorers_.size();
    std::vector<std::uint64_t> block_residues(cells_ != nullptr ? blocks.size() : 0);
    for (std::size_t b = 0; b < block_residues.size(); ++b)
      for (std::size_t s = blocks[b].first; s < blocks[b].second; ++s) block_residues[b] += subjects.lengths[s];
    std::vector<std::vector<std::int32_t>> scratch(threads_);
    parallel_for(tasks, threads_, [&](std::size_t task, unsigned worker) {
      throw_if_interrupted();
      const std::size_t query = task / blocks.size();
      const auto [first, last] = blocks[task % blocks.size()];
      SubjectBatch block = subjects;
      block.word_offsets += first;
      block.lengths += first;
      block.count = last - first;
      auto& scores = scratch[worker];
      scores.resize(block.count);
      scorers_[query].score(block, scores.data());
      for (std::size_t s = 0; s < block.count; ++s)
        if (scores[s] >= thresholds_[query]) sink(query, first + s, scores[s]);
      if (cells_ != nullptr)
        cells_->fetch_add(query_lengths_[query] * block_residues[task % blocks.size()], std::memory_order_relaxed);
    });
  }

  // Every query against every segment with the striped kernel, each (query, segment) a task: the best
  // cell of the segment's owned part and its hot columns (cpu::scan_segment) go to `hits`, so that the
  // HSP search looks for hot columns in those alone, not in the whole owned ranges.
  void scan_striped(const SubjectSegments& segments, SegmentHits& hits) {
    if (striped_.empty())
      for (const PreparedQuery& query : *queries_) striped_.emplace_back(query.codes, scoring_);
    const SubjectBatch pieces = segments.batch();
    for (std::size_t query = 0; query < striped_.size(); ++query) hits.hot_found(query, true);
    parallel_for(striped_.size() * pieces.count, threads_, [&](std::size_t task, unsigned) {
      throw_if_interrupted();
      const std::size_t query = task / pieces.count, segment = task % pieces.count;
      std::string codes(pieces.lengths[segment], '\0');
      for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<char>(pieces.residue(segment, i));
      const SubjectSegments::Origin& origin = segments.origin(segment);
      const cpu::ColumnScan scan = striped_[query].scan_columns(codes, origin.first - origin.begin, thresholds_[query]);
      if (scan.best.score >= thresholds_[query]) hits.add(segments, query, segment, static_cast<int>(scan.best.score));
      for (const cpu::ColumnRange& range : scan.hot) hits.add_hot(segments, query, segment, range.begin, range.end);
      if (cells_ != nullptr) cells_->fetch_add(query_lengths_[query] * codes.size(), std::memory_order_relaxed);
    });
  }

  ScoringScheme scoring_;
  unsigned threads_;
  std::uint64_t long_subject_length_;
  const std::vector<PreparedQuery>* queries_ = nullptr;
  std::vector<cpu::QueryScorer> scorers_;
  std::vector<cpu::StripedScorer> striped_;  // made when scan_striped() first needs them
  std::vector<int> thresholds_;
  std::vector<std::uint64_t> query_lengths_;
  std::atomic<std::uint64_t>* cells_ = nullptr;  // count_cells()
  std::uint64_t reach_ = 0;                      // the longest reach among the queries (kernels/cpu/long_subject.hpp)
  HitRegions regions_;
};

}  // namespace

std::unique_ptr<ScanBackend> make_cpu_backend(const ScoringScheme& scoring, unsigned threads,
                                              std::uint64_t long_subject_length) {
  return std::make_unique<CpuBackend>(scoring, threads, long_subject_length);
}

}  // namespace warpsearch
