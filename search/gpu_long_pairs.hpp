// Long pairs on the GPU, for the search and align engines: the span of a pair too large for one warp
// of the pair aligner (kernels/gpu/pair_aligner.hpp) or one CPU core, computed across the whole GPU
// (kernels/gpu/long_pair.hpp), and the rows of global alignments that the CPU traceback takes as its
// checkpoints and middle rows (cpu::GlobalRowSource). The operations stay the CPU's: only where the rows
// are computed changes, so the output is the CPU backend's byte for byte.
//
// Which pairs: at least kMinCells cells and kMinRows rows (the kernel runs a pair on one warp per 256
// rows of its shorter sequence). On one H100 the kernel computes a 31,921 x 31,921 pair's span (two
// passes) in 30 ms, where one CPU core takes about a second (bench/gpu_long_pair_bench). Pairs with
// fewer rows leave most of the GPU to the other pairs' kernels, but run no faster than on a warp of the
// pair aligner or a CPU core: the 31,921-residue query's 53 hits of 2,100-8,000 residues, side by side
// on the kernel, took 0.48 s where the pair aligner and the CPU together take about 0.15 s.
// Several pairs run side by side, each on an aligner (a stream) of its own.
//
// Thread safety: calls from several threads run at once, each on an aligner (a stream) of its own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "base/interrupt.hpp"
#include "base/parallel.hpp"
#include "core/alignment_mode.hpp"
#include "core/span.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/gpu/long_pair.hpp"
#include "profile/scoring.hpp"

namespace warpsearch {

class GpuLongPairs final : public cpu::GlobalRowSource {
 public:
  static constexpr std::uint64_t kMinCells = std::uint64_t{1} << 26;
  // The traceback's rows come from the GPU for rectangles of this many cells and more: a 2,048 x 4,096
  // pass takes about 2 ms there and about 5 ms on a CPU core.
  static constexpr std::uint64_t kRowSourceMinCells = std::uint64_t{1} << 23;
  static constexpr std::size_t kMinRows = 8192;
  // The traceback's rows: at least this many rows.
  static constexpr std::size_t kRowSourceMinRows = 1024;
  // The device memory the rows of one request may take; larger requests are declined (the CPU computes).
  static constexpr std::uint64_t kMaxRowBytes = std::uint64_t{2} << 30;

  GpuLongPairs(int device, const ScoringScheme& scoring) : device_(device), scoring_(scoring) {
    idle_.push_back(std::make_unique<gpu::LongPairAligner>(device, scoring));  // fails here if the GPU cannot
  }

  // Whether span() can take this pair with profit: large enough, and with enough rows for stripes of
  // warps (local passes: the shorter sequence's; global and semi-global: the query's).
  bool wants(std::size_t query_length, std::size_t subject_length, AlignmentMode mode) const {
    const std::size_t rows = mode == AlignmentMode::local ? std::min(query_length, subject_length) : query_length;
    return rows >= kMinRows &&
           static_cast<double>(query_length) * static_cast<double>(subject_length) >= static_cast<double>(kMinCells) &&
           gpu::LongPairAligner::accepts(scoring_, query_length, subject_length, mode);
  }

  Span span(std::string_view query, std::string_view subject, AlignmentMode mode) {
    return with_aligner([&](gpu::LongPairAligner& aligner) { return aligner.span(query, subject, mode); });
  }

  // done(k, span) for each k of `which`, the span of pair_of(k) (a (query, subject) pair of views),
  // up to kSideBySide pairs at a time on the device.
  static constexpr unsigned kSideBySide = 8;
  template <class PairOf, class Done>
  void spans(const std::vector<std::size_t>& which, AlignmentMode mode, const PairOf& pair_of, const Done& done) {
    // The aligners made and sized for the longest pairs first, one after the other: an allocation may wait
    // for the whole device, and while one waits, passes already running would be all that runs.
    const unsigned side = static_cast<unsigned>(std::min<std::size_t>(kSideBySide, which.size()));
    std::size_t longest_query = 0, longest_subject = 0;
    for (const std::size_t k : which) {
      const auto [query, subject] = pair_of(k);
      longest_query = std::max(longest_query, query.size());
      longest_subject = std::max(longest_subject, subject.size());
    }
    if (mode == AlignmentMode::local) prepare(side, longest_query, longest_subject);
    parallel_for(which.size(), side, [&](std::size_t n, unsigned) {
      throw_if_interrupted();
      const auto [query, subject] = pair_of(which[n]);
      done(which[n], span(query, subject, mode));
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
  // At least `count` idle aligners, the `count` that with_aligner takes first (the last ones) sized for
  // local spans of pairs up to these lengths.
  void prepare(unsigned count, std::size_t query_length, std::size_t subject_length) {
    const std::lock_guard<std::mutex> lock(mutex_);
    while (idle_.size() < count) idle_.push_back(std::make_unique<gpu::LongPairAligner>(device_, scoring_));
    for (std::size_t k = idle_.size() - count; k < idle_.size(); ++k)
      idle_[k]->reserve_local_spans(query_length, subject_length);
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
