// Batched pairwise alignment: many independent (query, target) pairs, each aligned in one mode.
//
//   warpsearch::AlignOptions options;
//   options.mode = warpsearch::AlignmentMode::global;
//   warpsearch::AlignEngine engine(scoring, options);
//   std::vector<warpsearch::PairAlignment> results = engine.align(pairs);   // one result per pair, in order
//
// Modes (core/alignment_mode.hpp, kernels/reference/reference_xdrop.hpp): local (Smith-Waterman), global
// (Needleman-Wunsch), semiglobal (the query end to end, the target's ends free), and xdrop (extension left
// and right from a seed given per pair, stopping when the score falls more than X below the best).
// Scores are exact and equal the 64-bit references of kernels/reference/reference.hpp and
// kernels/reference/reference_xdrop.hpp; spans and operations follow their tie-breaks. A result depends only on its
// pair, the scoring and the options: not on the backend, the number of threads or the batch.
//
// Backends: the CPU aligns each pair whole on one core, pairs spread over every core (largest first, so
// pairs of very different lengths balance). A GPU backend computes scores and spans on the GPU and leaves
// only the traceback inside the span to the CPU (X-drop with operations: the CPU engine again, see
// search/align_gpu_backend.cpp); search/align_backend.hpp is the seam.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/alignment_mode.hpp"
#include "core/pair_alignment.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "profile/scoring.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch {

// The default drop-off: 50, between BLAST's gapped X-drops for proteins (15 and 25 bits, 38 and 64 with
// BLOSUM62) and a generous one for reads (BLAST's blastn uses 30 and 100 bits; LOGAN's examples 21..100).
inline constexpr int kDefaultXdrop = 50;

struct AlignOptions {
  AlignmentMode mode = AlignmentMode::local;
  XDrop xdrop{kDefaultXdrop};         // xdrop mode only
  bool operations = false;            // compute the operations (CIGAR, aligned strings, SAM); else spans only
  unsigned threads = 0;               // CPU threads; 0 = every core
  Device device = Device::automatic;  // automatic: a GPU when a GPU backend is built in and usable, else the CPU
  std::vector<int> gpus;              // GPU ordinals; empty = every usable GPU
};

// One pair. The views must stay valid during align(); the engine copies nothing it does not need.
struct SequencePair {
  std::string_view query;  // residue codes (core/alphabet.hpp)
  std::string_view target;
  Seed seed;  // xdrop mode only: where the extensions start
};

class PairBackend;

// Owns its backend (threads, GPU buffers). Not thread-safe: one align() at a time per engine.
class AlignEngine {
 public:
  // Throws std::invalid_argument for X < 0, or Device::gpu when no GPU backend is usable.
  AlignEngine(ScoringScheme scoring, AlignOptions options);
  AlignEngine(AlignEngine&&) noexcept;
  AlignEngine& operator=(AlignEngine&&) noexcept;
  ~AlignEngine();

  // Aligns every pair; results[i] belongs to pairs[i] (core/pair_alignment.hpp: its subject is the pair's
  // target; operations and counts only with AlignOptions::operations). Throws std::out_of_range (xdrop) for a seed that
  // does not fit its pair, naming the pair's index in the batch; Interrupted on SIGINT/SIGTERM.
  std::vector<PairAlignment> align(const std::vector<SequencePair>& pairs);

  // Dynamic-programming cells computed so far: m * n per pair for local, global and semiglobal; the cells
  // of the band for xdrop. For GCUPS figures.
  double cells() const;

  // "cpu (8 threads)", "gpu (1 x NVIDIA H100)": where the pairs are aligned.
  std::string backend_description() const;

  const ScoringScheme& scoring() const;
  const AlignOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The counts of an alignment from its operations, and the score they replay to over the span. Throws
// std::logic_error when the operations do not consume exactly the span.
std::int64_t replay_operations(std::string_view query, std::string_view target, const ScoringScheme& scoring,
                               PairAlignment& alignment);

}  // namespace warpsearch
