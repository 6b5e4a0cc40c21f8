// The GPU backend of the align engine: scores and spans on the GPUs (kernels/gpu/pair_aligner.hpp), the
// pairs split across the GPUs in contiguous shares of about equal cells, one host thread per GPU; then,
// only when operations are asked for, the traceback inside each span on the CPU threads
// (cpu::align_in_rectangle), so that the output is byte-identical to the CPU backend's.
#include <algorithm>
#include <stdexcept>

#include "db/interrupt.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/pair_aligner.hpp"
#include "search/align_backend.hpp"
#include "search/parallel.hpp"

namespace warpsearch {
namespace {

class GpuPairBackend final : public PairBackend {
 public:
  GpuPairBackend(const ScoringScheme& scoring, const AlignOptions& options, unsigned threads)
      : scoring_(scoring), options_(options), threads_(threads) {
    if (options.mode == PairMode::xdrop)
      throw std::invalid_argument("--device gpu: X-drop runs on the CPU only (there is no GPU X-drop kernel); use --device cpu");
    const int available = gpu::usable_device_count();
    if (available == 0) throw std::runtime_error("--device gpu: no usable GPU (no CUDA device or driver found)");
    std::vector<int> devices = options.gpus;
    if (devices.empty())
      for (int d = 0; d < available; ++d) devices.push_back(d);
    for (const int device : devices) {
      if (device < 0 || device >= available)
        throw std::invalid_argument("GPU " + std::to_string(device) + " does not exist (" + std::to_string(available) +
                                    " usable)");
      aligners_.emplace_back(device, scoring);
    }
  }

  std::string description() const override {
    return "gpu (" + std::to_string(aligners_.size()) + " x " + aligners_.front().device_name() + ", traceback on " +
           std::to_string(threads_) + " CPU threads)";
  }

  double align(const std::vector<SequencePair>& pairs, std::vector<PairAlignment>& results) override {
    const AlignmentMode mode = options_.mode == PairMode::global       ? AlignmentMode::global
                               : options_.mode == PairMode::semiglobal ? AlignmentMode::semiglobal
                                                                       : AlignmentMode::local;
    // Contiguous shares of about equal cells, one per GPU.
    const auto area = [&](std::size_t p) {
      return static_cast<double>(pairs[p].query.size()) * static_cast<double>(pairs[p].target.size());
    };
    double total = 0;
    for (std::size_t p = 0; p < pairs.size(); ++p) total += area(p);
    std::vector<std::size_t> bounds{0};
    double running = 0;
    for (std::size_t p = 0; p < pairs.size() && bounds.size() < aligners_.size(); ++p) {
      running += area(p);
      if (running >= total / static_cast<double>(aligners_.size()) * static_cast<double>(bounds.size()))
        bounds.push_back(p + 1);
    }
    while (bounds.size() <= aligners_.size()) bounds.push_back(pairs.size());

    throw_if_interrupted();
    parallel_for(aligners_.size(), static_cast<unsigned>(aligners_.size()), [&](std::size_t g, unsigned) {
      std::vector<gpu::PairTask> tasks;
      tasks.reserve(bounds[g + 1] - bounds[g]);
      for (std::size_t p = bounds[g]; p < bounds[g + 1]; ++p) tasks.push_back({pairs[p].query, pairs[p].target});
      if (tasks.empty()) return;
      std::vector<gpu::PairSpan> spans;
      aligners_[g].align(tasks, mode, spans);
      for (std::size_t k = 0; k < spans.size(); ++k) {
        PairAlignment& result = results[bounds[g] + k];
        result.score = spans[k].score;
        result.query_begin = spans[k].query_begin;
        result.query_end = spans[k].query_end;
        result.target_begin = spans[k].target_begin;
        result.target_end = spans[k].target_end;
      }
    });

    if (options_.operations) {
      throw_if_interrupted();
      parallel_for(pairs.size(), threads_, [&](std::size_t p, unsigned) {
        PairAlignment& result = results[p];
        cpu::AlignmentSpan span;
        span.score = result.score;
        span.query_begin = result.query_begin;
        span.query_end = result.query_end;
        span.subject_begin = result.target_begin;
        span.subject_end = result.target_end;
        result.operations = cpu::align_in_rectangle(pairs[p].query, pairs[p].target, scoring_, span).operations;
        const std::int64_t replayed = replay_operations(pairs[p].query, pairs[p].target, scoring_, result);
        if (replayed != result.score)
          throw std::logic_error("internal error: the operations of pair " + std::to_string(p + 1) + " replay to " +
                                 std::to_string(replayed) + ", not to its GPU score " + std::to_string(result.score));
      });
    }
    return total;
  }

 private:
  const ScoringScheme& scoring_;
  AlignOptions options_;
  unsigned threads_;
  std::vector<gpu::GpuPairAligner> aligners_;
};

}  // namespace

std::unique_ptr<PairBackend> make_gpu_pair_backend(const ScoringScheme& scoring, const AlignOptions& options,
                                                   unsigned threads) {
  return std::make_unique<GpuPairBackend>(scoring, options, threads);
}

bool gpu_pair_backend_usable() { return gpu::usable_device_count() > 0; }

}  // namespace warpsearch
