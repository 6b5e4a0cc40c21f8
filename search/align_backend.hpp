// The seam between the align engine (search/align_engine.hpp) and what computes the alignments.
//
// A backend aligns a batch of pairs in the engine's mode. The CPU backend aligns each pair whole on one
// core. A GPU backend computes each pair's score and span on the GPU and, only when operations are asked
// for, traces back inside the span on the CPU (cpu::align_in_rectangle; X-drop: the CPU engine), so that
// both give the same bytes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "search/align_engine.hpp"

namespace warpsearch {

class PairBackend {
 public:
  virtual ~PairBackend() = default;
  // "cpu (8 threads)", "gpu (1 x NVIDIA H100)".
  virtual std::string description() const = 0;
  // Fills results[i] (sized by the caller) for pairs[i]; returns the dynamic-programming cells computed.
  virtual double align(const std::vector<SequencePair>& pairs, std::vector<PairAlignment>& results) = 0;
};

// scoring must outlive the backend.
std::unique_ptr<PairBackend> make_cpu_pair_backend(const ScoringScheme& scoring, const AlignOptions& options,
                                                   unsigned threads);

#ifdef WARPSEARCH_HAVE_CUDA
// The GPUs of options.gpus (all usable ones when empty), every mode; CPU threads trace back. Throws
// std::invalid_argument for a GPU that does not exist, std::runtime_error when no GPU is usable.
std::unique_ptr<PairBackend> make_gpu_pair_backend(const ScoringScheme& scoring, const AlignOptions& options,
                                                   unsigned threads);
bool gpu_pair_backend_usable();
#endif

// A result's score and span (the rest of it unchanged).
inline void set_span(PairAlignment& result, const Span& span) { static_cast<Span&>(result) = span; }

}  // namespace warpsearch
