// Long pairs on the GPU, for the search and align engines: the span of a pair too large for one warp
// of the pair aligner (kernels/gpu/pair_aligner.hpp) or one CPU core, computed across the whole GPU
// (kernels/gpu/long_pair.hpp), and the rows of global alignments that the CPU traceback takes as its
// checkpoints and middle rows (cpu::GlobalRowSource). The operations stay the CPU's: only where the rows
// are computed changes, so the output is the CPU backend's byte for byte.
//
// Which pairs: at least kMinCells cells and kMinRows rows (the kernel runs a pair on one warp per 256
// rows of its shorter sequence; the search's locate, which weighs the costs, from kMinLocateRows and
// kMinLocateCells). On one H100 the kernel computes a 31,921 x 31,921 pair's span (two passes) in
// 24 ms, where one CPU core takes about a second (bench/gpu_long_pair_bench). A pair with few rows
// leaves most of the GPU idle and runs no faster than on a warp of the pair aligner or a CPU core, so
// local spans of several pairs share the kernel's launches: 40 pairs of 10,000 x 37,000 take 21 ms in
// one launch (with a step loop 1.3 times slower: 28 ms, against 114 ms each on a stream of its own,
// the device's eight hardware queues running eight passes at a time, and 19 ms for one alone). Other
// modes run side by side, each pair on an aligner (a stream) of its own.
//
// Thread safety: calls from several threads run at once, each on an aligner (a stream) of its own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/interrupt.hpp"
#include "base/parallel.hpp"
#include "core/alignment_mode.hpp"
#include "core/span.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/column_range.hpp"
#include "kernels/gpu/long_pair.hpp"
#include "profile/scoring.hpp"
#include "search/scan_backend.hpp"

namespace warpsearch {

class GpuLongPairs final : public cpu::GlobalRowSource {
 public:
  static constexpr std::uint64_t kMinCells = std::uint64_t{1} << 26;
  // The traceback's rows come from the GPU for rectangles of this many cells and more (and kRowSourceMinRows
  // rows): a banded pass of 1,024 rows, a chain of as many steps, takes about 0.3 ms there, and 1 ms for
  // 2^21 cells on a CPU core. With Myers and Miller's leaves of 2^22 cells (cpu::AlignmentLimits::
  // linear_leaf_cells) every split of a 1 Mb global alignment but the last runs there: 1.00-1.03 s
  // against 1.19-1.22 s from 2^23 cells with leaves of 2^25 (one H100, 16 cores).
  static constexpr std::uint64_t kRowSourceMinCells = std::uint64_t{1} << 21;
  static constexpr std::size_t kMinRows = 8192;
  // The search's locate offers pairs from this many rows and cells: its split (search/locate_split.hpp)
  // weighs the kernel's time against the other paths', and its pairs share the kernel's launches. The
  // titin query's hits of 31,921 x 1,000-4,000 residues, one warp each on the pair aligner, take the
  // longest share of its locate: offered from 1,024 rows and 4 M cells, its first round fell from
  // 0.14 s to 0.09-0.10 s, but its hits after the scan stayed within the runs' spread (0.39-0.62 s
  // against 0.44-0.51 s over three calls); the batch of 500 queries (top 500) took 2.78-2.82 s against
  // 2.87 s and 3.00-3.04 s against 3.07-3.09 s in two calls, the genome benchmark the same
  // (bench/results/locate_candidates_h100.tsv).
  // From 256 rows the batch's candidates number thousands: the split's bisection keeps its search to
  // milliseconds, and the batch ran as from 4,096 rows.
  static constexpr std::size_t kMinLocateRows = 1024;
  static constexpr std::uint64_t kMinLocateCells = 4'000'000;
  // The traceback's rows: at least this many rows.
  static constexpr std::size_t kRowSourceMinRows = 1024;
  // The device memory the rows of one request may take; larger requests are declined (the CPU computes).
  static constexpr std::uint64_t kMaxRowBytes = std::uint64_t{2} << 30;

  GpuLongPairs(int device, const ScoringScheme& scoring) : device_(device), scoring_(scoring) {
    idle_.push_back(std::make_unique<gpu::LongPairAligner>(device, scoring));  // fails here if the GPU cannot
  }

  // Whether span() can take this pair with profit: at least min_cells cells, and at least min_rows rows
  // for stripes of warps (local passes: the shorter sequence's; global and semi-global: the query's).
  bool wants(std::size_t query_length, std::size_t subject_length, AlignmentMode mode, std::size_t min_rows = kMinRows,
             std::uint64_t min_cells = kMinCells) const {
    const std::size_t rows = mode == AlignmentMode::local ? std::min(query_length, subject_length) : query_length;
    return rows >= min_rows &&
           static_cast<double>(query_length) * static_cast<double>(subject_length) >= static_cast<double>(min_cells) &&
           gpu::LongPairAligner::accepts(scoring_, query_length, subject_length, mode);
  }

  Span span(std::string_view query, std::string_view subject, AlignmentMode mode) {
    return with_aligner([&](gpu::LongPairAligner& aligner) { return aligner.span(query, subject, mode); });
  }

  // done(k, span) for each k of `which`, the span of pair_of(k) (a (query, subject) pair of views).
  // Local spans run together, two launches for all of them (gpu::LongPairAligner::local_spans), in
  // batches of at most kBatchBytes of device memory (a pair larger than that alone): a search leaves
  // only a few hundred MB beside its resident database (search/gpu_backend.cpp, kReservedBytes), and 80
  // of the genome benchmark's largest windows take about 50 MB. Global and semi-global spans run side
  // by side, up to kSideBySide at a time, each on an aligner (a stream) of its own. min_score_of(k): a
  // local span scoring less needs only its score and end (ScanBackend::locate's HitPair::min_score).
  static constexpr unsigned kSideBySide = 8;
  static constexpr std::uint64_t kBatchBytes = std::uint64_t{64} << 20;
  template <class PairOf, class Done>
  void spans(const std::vector<std::size_t>& which, AlignmentMode mode, const PairOf& pair_of, const Done& done) {
    spans(
        which, mode, pair_of, [](std::size_t) { return std::int64_t{0}; }, done);
  }
  template <class PairOf, class MinScoreOf, class Done>
  void spans(const std::vector<std::size_t>& which, AlignmentMode mode, const PairOf& pair_of,
             const MinScoreOf& min_score_of, const Done& done) {
    if (mode == AlignmentMode::local) {
      in_batches(
          which, pair_of, span_bytes,
          [&](const std::vector<std::size_t>& members,
              const std::vector<std::pair<std::string_view, std::string_view>>& batch) {
            std::vector<std::int64_t> min_scores;
            for (const std::size_t k : members) min_scores.push_back(min_score_of(k));
            return with_aligner([&](gpu::LongPairAligner& aligner) { return aligner.local_spans(batch, min_scores); });
          },
          done);
      return;
    }
    side_by_side(which, [&](std::size_t k) {
      const auto [query, subject] = pair_of(k);
      done(k, span(query, subject, mode));
    });
  }

  // Whether local_scans() takes a query of this length against subjects of these lengths.
  bool accepts_local(std::size_t query_length, const std::vector<std::uint64_t>& subject_lengths) const {
    return std::all_of(subject_lengths.begin(), subject_lengths.end(), [&](std::uint64_t length) {
      return gpu::LongPairAligner::accepts(scoring_, query_length, length, AlignmentMode::local);
    });
  }

  // A search's scan of long subjects: done(q, s, score, regions) for each query q of `queries` and
  // subject s of `subjects` whose best local score reaches the query's threshold, with the subject's
  // stretches outside which no cell reaches it, stripes of at most 1,024 positions, as fine as hot
  // columns need (gpu::LongPairAligner::local_scans), batched as spans() batches local spans.
  template <class Done>
  void local_scans(const std::vector<const PreparedQuery*>& queries, const std::vector<std::string>& subjects,
                   const Done& done) {
    std::vector<std::size_t> pairs(queries.size() * subjects.size());
    for (std::size_t k = 0; k < pairs.size(); ++k) pairs[k] = k;
    const auto query_of = [&](std::size_t k) -> const PreparedQuery& { return *queries[k / subjects.size()]; };
    const auto pair_of = [&](std::size_t k) {
      return std::pair<std::string_view, std::string_view>(query_of(k).codes, subjects[k % subjects.size()]);
    };
    const auto run = [&](const std::vector<std::size_t>& members,
                         const std::vector<std::pair<std::string_view, std::string_view>>& batch) {
      std::vector<int> thresholds;
      for (const std::size_t k : members) thresholds.push_back(query_of(k).threshold);
      return with_aligner([&](gpu::LongPairAligner& aligner) { return aligner.local_scans(batch, thresholds); });
    };
    in_batches(pairs, pair_of, scan_bytes, run, [&](std::size_t k, const gpu::LongPairAligner::LocalScan& scan) {
      if (scan.score < query_of(k).threshold) return;
      std::vector<cpu::ColumnRange> regions;
      for (const auto& [begin, end] : scan.hot) regions.push_back({begin, end});
      done(k / subjects.size(), k % subjects.size(), scan.score, std::move(regions));
    });
  }

  // done(k, bound) for each k of `which`: a lower bound of the global score of pair_of(k), for a
  // traceback that finds the score (gpu::LongPairAligner::global_score_bound), side by side as spans().
  template <class PairOf, class Done>
  void global_score_bounds(const std::vector<std::size_t>& which, const PairOf& pair_of, const Done& done) {
    side_by_side(which, [&](std::size_t k) {
      const std::pair<std::string_view, std::string_view> pair = pair_of(k);
      done(k, with_aligner(
                  [&](gpu::LongPairAligner& aligner) { return aligner.global_score_bound(pair.first, pair.second); }));
    });
  }

  std::uint64_t min_cells() const override { return kRowSourceMinCells; }
  std::size_t spacing() const override { return gpu::LongPairAligner::kRowSpacing; }

  bool rows(std::string_view a, std::string_view b, std::int32_t top_open, std::size_t spacing,
            std::vector<std::int32_t>& h, std::vector<std::int32_t>& ins, const DiagonalBand* band) override {
    if (a.size() < kRowSourceMinRows ||
        !gpu::LongPairAligner::accepts(scoring_, a.size(), b.size(), AlignmentMode::global))
      return false;
    if (spacing < a.size() && spacing % gpu::LongPairAligner::kRowSpacing != 0) return false;
    const std::uint64_t count = spacing >= a.size() ? 1 : a.size() / spacing + 1;
    if (count * (b.size() + 1) * 8 > kMaxRowBytes) return false;
    return with_aligner([&](gpu::LongPairAligner& aligner) {
      aligner.global_rows(a, b, top_open, spacing, h, ins, band);
      return true;
    });
  }

 private:
  // The device memory of a pair's pass: its codes, and the ring of two rows of (H, I) along its columns,
  // the longer sequence in a local span (the shorter gives the rows), the query in a scan (the subject
  // gives the rows).
  static std::uint64_t span_bytes(std::string_view query, std::string_view subject) {
    return query.size() + subject.size() + 16 * (std::max(query.size(), subject.size()) + 1);
  }
  static std::uint64_t scan_bytes(std::string_view query, std::string_view subject) {
    return query.size() + subject.size() + 16 * (query.size() + 1);
  }

  // run(members, batch) for batches of the pairs pair_of(k), k of `which`, of at most kBatchBytes of
  // device memory each by bytes_of (a pair larger than that alone), and done(k, result) for each of
  // run's results.
  template <class PairOf, class BytesOf, class Run, class Done>
  void in_batches(const std::vector<std::size_t>& which, const PairOf& pair_of, const BytesOf& bytes_of, const Run& run,
                  const Done& done) {
    for (std::size_t begin = 0, end = 0; begin < which.size(); begin = end) {
      throw_if_interrupted();
      std::vector<std::pair<std::string_view, std::string_view>> batch;
      for (std::uint64_t bytes = 0; end < which.size(); ++end) {
        const auto [query, subject] = pair_of(which[end]);
        const std::uint64_t pair_bytes = bytes_of(query, subject);
        if (!batch.empty() && bytes + pair_bytes > kBatchBytes) break;
        bytes += pair_bytes;
        batch.emplace_back(query, subject);
      }
      const std::vector<std::size_t> members(which.begin() + static_cast<std::ptrdiff_t>(begin),
                                             which.begin() + static_cast<std::ptrdiff_t>(end));
      const auto found = run(members, batch);
      for (std::size_t n = 0; n < found.size(); ++n) done(members[n], found[n]);
    }
  }

  // f(k) for each k of `which`, up to kSideBySide at a time.
  template <class F>
  static void side_by_side(const std::vector<std::size_t>& which, const F& f) {
    parallel_for(which.size(), static_cast<unsigned>(std::min<std::size_t>(kSideBySide, which.size())),
                 [&](std::size_t n, unsigned) {
                   throw_if_interrupted();
                   f(which[n]);
                 });
  }

  // Runs f on an idle aligner (a new one when all are busy): requests from several threads run at once,
  // each on its own stream, as Myers and Miller's independent halves do.
  template <class F>
  auto with_aligner(F&& f) -> decltype(f(std::declval<gpu::LongPairAligner&>())) {
    std::unique_ptr<gpu::LongPairAligner> aligner;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        aligner = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!aligner) aligner = std::make_unique<gpu::LongPairAligner>(device_, scoring_);
    struct GiveBack {
      GpuLongPairs& owner;
      std::unique_ptr<gpu::LongPairAligner>& aligner;
      ~GiveBack() {
        const std::lock_guard<std::mutex> lock(owner.mutex_);
        owner.idle_.push_back(std::move(aligner));
      }
    } give_back{*this, aligner};
    return f(*aligner);
  }

  int device_;
  ScoringScheme scoring_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<gpu::LongPairAligner>> idle_;
};

}  // namespace warpsearch
