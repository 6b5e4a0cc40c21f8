// The GPU backend of the align engine: scores and spans on the GPUs (kernels/gpu/pair_aligner.hpp;
// X-drop: kernels/gpu/gpu_xdrop.hpp), the pairs split across the GPUs in contiguous shares of about equal
// work, one host thread per GPU, the largest pairs across the whole first GPU (search/gpu_long_pairs.hpp);
// then, only when operations are asked for, the operations on the CPU threads, so that the output is
// byte-identical to the CPU backend's:
//   local, global, semiglobal: the traceback inside each span (cpu::align_in_rectangle), the rows of the
//   largest rectangles from the GPU;
//   xdrop: XdropAligner with operations, the whole seeded alignment again (its span must equal the
//   GPU's). A traceback confined to the rectangle from the seed to the GPU's best cell would not do: which
//   cells live depends on `best`, the best score of the anti-diagonals before, and that may come from cells
//   outside the rectangle; without them more cells would live, and a path through them could score more
//   or win a tie. So X-drop with operations costs the CPU engine's time; without them (spans, scores) the
//   GPU does all the work.
#include <algorithm>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>

#include "base/interrupt.hpp"
#include "base/parallel.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/gpu_xdrop.hpp"
#include "kernels/gpu/pair_aligner.hpp"
#include "kernels/reference/banded_xdrop.hpp"
#include "search/align_backend.hpp"
#include "search/gpu_long_pairs.hpp"
#include "search/shares.hpp"

namespace warpsearch {
namespace {

// The weights of items 0..count-1.
template <typename Weight>
std::vector<double> weights(std::size_t count, const Weight& weight) {
  std::vector<double> out(count);
  for (std::size_t k = 0; k < count; ++k) out[k] = weight(k);
  return out;
}

class GpuPairBackend final : public PairBackend {
 public:
  GpuPairBackend(const ScoringScheme& scoring, const AlignOptions& options, unsigned threads)
      : scoring_(scoring), options_(options), threads_(threads) {
    const int available = gpu::usable_device_count();
    if (available == 0) throw std::runtime_error("--device gpu: no usable GPU (no CUDA device or driver found)");
    std::vector<int> devices = options.gpus;
    if (devices.empty())
      for (int d = 0; d < available; ++d) devices.push_back(d);
    for (const int device : devices) {
      if (device < 0 || device >= available)
        throw std::invalid_argument("GPU " + std::to_string(device) + " does not exist (" + std::to_string(available) +
                                    " usable)");
      devices_.push_back(device);
      if (options.mode == AlignmentMode::xdrop)
        xdrop_aligners_.emplace_back(device, scoring, options.xdrop);
      else
        aligners_.emplace_back(device, scoring);
    }
  }

  std::string description() const override {
    const std::size_t gpus = options_.mode == AlignmentMode::xdrop ? xdrop_aligners_.size() : aligners_.size();
    const std::string name =
        options_.mode == AlignmentMode::xdrop ? xdrop_aligners_.front().device_name() : aligners_.front().device_name();
    return "gpu (" + std::to_string(gpus) + " x " + name + ", traceback on " + std::to_string(threads_) +
           " CPU threads)";
  }

  double align(const std::vector<SequencePair>& pairs, std::vector<PairAlignment>& results) override {
    if (options_.mode == AlignmentMode::xdrop) return align_xdrop(pairs, results);
    const AlignmentMode mode = options_.mode;
    const auto area = [&](std::size_t p) {
      return static_cast<double>(pairs[p].query.size()) * static_cast<double>(pairs[p].target.size());
    };
    double total = 0;
    for (std::size_t p = 0; p < pairs.size(); ++p) total += area(p);
    // The largest pairs across the whole first GPU, a few side by side; the others in contiguous shares
    // of about equal cells, one per GPU, a warp per pair.
    GpuLongPairs& long_pairs = this->long_pairs();
    std::vector<std::size_t> ordinary, long_ones;
    for (std::size_t p = 0; p < pairs.size(); ++p)
      (long_pairs.wants(pairs[p].query.size(), pairs[p].target.size(), mode) ? long_ones : ordinary).push_back(p);
    const std::vector<std::size_t> bounds =
        contiguous_shares(weights(ordinary.size(), [&](std::size_t k) { return area(ordinary[k]); }), aligners_.size());

    throw_if_interrupted();
    const auto pair_of = [&](std::size_t p) { return std::make_pair(pairs[p].query, pairs[p].target); };
    // A global traceback finds the score itself: a lower bound will do (one banded pass instead of two).
    std::vector<char> bound_only(pairs.size(), 0);
    if (mode == AlignmentMode::global && options_.operations)
      long_pairs.global_score_bounds(long_ones, pair_of, [&](std::size_t p, const gpu::LongPairAligner::ScoreBound& b) {
        Span span;
        span.score = b.score;
        span.query_end = static_cast<std::uint32_t>(pairs[p].query.size());
        span.subject_end = static_cast<std::uint32_t>(pairs[p].target.size());
        set_span(results[p], span);
        bound_only[p] = !b.exact;
      });
    else
      long_pairs.spans(long_ones, mode, pair_of, [&](std::size_t p, const Span& span) { set_span(results[p], span); });
    parallel_for(aligners_.size(), static_cast<unsigned>(aligners_.size()), [&](std::size_t g, unsigned) {
      std::vector<gpu::PairTask> tasks;
      tasks.reserve(bounds[g + 1] - bounds[g]);
      for (std::size_t k = bounds[g]; k < bounds[g + 1]; ++k)
        tasks.push_back({pairs[ordinary[k]].query, pairs[ordinary[k]].target});
      if (tasks.empty()) return;
      std::vector<Span> spans;
      aligners_[g].align(tasks, mode, spans);
      for (std::size_t k = 0; k < spans.size(); ++k) set_span(results[ordinary[bounds[g] + k]], spans[k]);
    });

    if (options_.operations) {
      throw_if_interrupted();
      parallel_for(pairs.size(), threads_, [&](std::size_t p, unsigned) {
        PairAlignment& result = results[p];
        // The largest rectangles take every thread and the GPU's rows; the operations stay the CPU's.
        cpu::AlignmentLimits limits;
        limits.row_source = &long_pairs;
        // Four threads per core: the linear path's halves each take a share of the threads, and a
        // share of one runs its two passes one after the other, which on the GPU would leave it idle.
        if (area(p) >= static_cast<double>(GpuLongPairs::kMinCells)) limits.threads = 4 * threads_;
        if (bound_only[p]) {
          PairAlignment alignment = cpu::align_global(pairs[p].query, pairs[p].target, scoring_, result.score, limits);
          result.score = alignment.score;
          result.operations = std::move(alignment.operations);
        } else {
          result.operations =
              cpu::align_in_rectangle(pairs[p].query, pairs[p].target, scoring_, result, limits).operations;
        }
        const std::int64_t replayed = replay_operations(pairs[p].query, pairs[p].target, scoring_, result);
        if (replayed != result.score)
          throw std::logic_error("internal error: the operations of pair " + std::to_string(p + 1) + " replay to " +
                                 std::to_string(replayed) + ", not to its GPU score " + std::to_string(result.score));
      });
    }
    return total;
  }

 private:
  // X-drop: the spans on the GPUs, shares weighted by residues (an extension's band, not m x n, is its
  // cost); the operations, when asked for, by the CPU engine (see the top of this file).
  double align_xdrop(const std::vector<SequencePair>& pairs, std::vector<PairAlignment>& results) {
    // The seeds first, in order, with the CPU backend's messages (the pair's 1-based index in the batch).
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      try {
        seed_score(pairs[p].query, pairs[p].target, pairs[p].seed, scoring_);
      } catch (const std::out_of_range& e) {
        throw std::out_of_range("pair " + std::to_string(p + 1) + " of the batch: " + e.what());
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("pair " + std::to_string(p + 1) + " of the batch: " + e.what());
      }
    }
    const auto residues = [&](std::size_t p) {
      return static_cast<double>(pairs[p].query.size()) + static_cast<double>(pairs[p].target.size());
    };
    const std::vector<std::size_t> bounds = contiguous_shares(weights(pairs.size(), residues), xdrop_aligners_.size());
    std::vector<double> cells(xdrop_aligners_.size(), 0.0);
    throw_if_interrupted();
    parallel_for(xdrop_aligners_.size(), static_cast<unsigned>(xdrop_aligners_.size()), [&](std::size_t g, unsigned) {
      std::vector<gpu::XdropTask> tasks;
      tasks.reserve(bounds[g + 1] - bounds[g]);
      for (std::size_t p = bounds[g]; p < bounds[g + 1]; ++p)
        tasks.push_back({pairs[p].query, pairs[p].target, pairs[p].seed});
      if (tasks.empty()) return;
      std::vector<XdropSpan> spans;
      const std::uint64_t before = xdrop_aligners_[g].cells();
      xdrop_aligners_[g].align(tasks, spans);
      cells[g] = static_cast<double>(xdrop_aligners_[g].cells() - before);
      for (std::size_t k = 0; k < spans.size(); ++k) set_span(results[bounds[g] + k], spans[k]);
    });

    if (options_.operations) {
      throw_if_interrupted();
      // Largest pairs first, one CPU aligner per thread, as the CPU backend.
      std::vector<std::size_t> order(pairs.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return residues(a) > residues(b); });
      const unsigned workers =
          static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads_, pairs.size())));
      std::vector<XdropAligner> aligners;
      for (unsigned w = 0; w < workers; ++w) aligners.emplace_back(scoring_, options_.xdrop);
      parallel_for(pairs.size(), workers, [&](std::size_t k, unsigned worker) {
        throw_if_interrupted();
        const std::size_t p = order[k];
        PairAlignment& result = results[p];
        XdropAlignment alignment = aligners[worker].align(pairs[p].query, pairs[p].target, pairs[p].seed, true);
        const XdropSpan& span = alignment.span;
        if (span.score != result.score || span.query_begin != result.query_begin ||
            span.query_end != result.query_end || span.subject_begin != result.subject_begin ||
            span.subject_end != result.subject_end)
          throw std::logic_error("internal error: pair " + std::to_string(p + 1) + ": the GPU's X-drop span (score " +
                                 std::to_string(result.score) + ") differs from the CPU engine's (score " +
                                 std::to_string(span.score) + ")");
        result.operations = std::move(alignment.operations);
        const std::int64_t replayed = replay_operations(pairs[p].query, pairs[p].target, scoring_, result);
        if (replayed != result.score)
          throw std::logic_error("internal error: the operations of pair " + std::to_string(p + 1) + " replay to " +
                                 std::to_string(replayed) + ", not to its score " + std::to_string(result.score));
      });
    }
    return std::accumulate(cells.begin(), cells.end(), 0.0);
  }

  GpuLongPairs& long_pairs() {
    std::call_once(long_pairs_made_, [&] { long_pairs_.emplace(devices_.front(), scoring_); });
    return *long_pairs_;
  }

  const ScoringScheme& scoring_;
  AlignOptions options_;
  unsigned threads_;
  std::vector<gpu::GpuPairAligner> aligners_;
  std::vector<gpu::GpuXdropAligner> xdrop_aligners_;
  std::vector<int> devices_;
  std::optional<GpuLongPairs> long_pairs_;  // on the first GPU, created when first needed
  std::once_flag long_pairs_made_;
};

}  // namespace

std::unique_ptr<PairBackend> make_gpu_pair_backend(const ScoringScheme& scoring, const AlignOptions& options,
                                                   unsigned threads) {
  return std::make_unique<GpuPairBackend>(scoring, options, threads);
}

bool gpu_pair_backend_usable() { return gpu::usable_device_count() > 0; }

}  // namespace warpsearch
