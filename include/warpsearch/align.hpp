// Batched pairwise alignment: query i against target i, each pair aligned in one mode.
//
// Modes: local (Smith-Waterman), global (Needleman-Wunsch), semiglobal (the query end to end, the
// target's ends free) and xdrop (extension left and right of a seed, stopping where the score falls more
// than X below the best). Scores are exact. Sequences may be empty here (a global alignment of an empty
// sequence is all gaps). A result depends only on its pair, the scoring and the
// options, not on the device, the number of threads or the batch.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "warpsearch/common.hpp"
#include "warpsearch/scoring.hpp"

namespace warpsearch {
inline namespace v0 {

enum class AlignMode : std::uint8_t { local, global, semiglobal, xdrop };

// "local", "global", "semiglobal", "xdrop"; parse_align_mode throws std::invalid_argument on another name.
const char* align_mode_name(AlignMode mode) noexcept;
AlignMode parse_align_mode(const std::string& name);

// The options of `warpsearch align`, with the same defaults.
struct AlignOptions {
  AlignMode mode = AlignMode::local;
  Scoring scoring;
  std::optional<SequenceType> type;  // std::nullopt: guessed from the queries' letters
  int xdrop = 50;                    // xdrop mode: the drop-off X (>= 0)
  bool cigar = false;                // fill Alignment::cigar and the identity counts
  bool aligned = false;              // fill Alignment::query_aligned and target_aligned
  unsigned threads = 0;              // CPU threads; 0 = every CPU this process may use (affinity, cgroup quota)
  Device device = Device::automatic;
  std::vector<int> gpus;  // GPU ordinals; empty = every usable GPU
};

// Where an xdrop extension starts: 1-based positions of the seed's first residue in the query and the
// target, and its length (0: the extensions start between two residues). The default, with length 0 at
// 1 and 1, extends from the start of both sequences.
struct Seed {
  std::uint32_t query_start = 1;
  std::uint32_t target_start = 1;
  std::uint32_t length = 0;
};

// One pair's alignment, as `warpsearch align` prints it. Coordinates are 1-based and inclusive; a
// sequence with no residue in the alignment (an empty local alignment) shows 0 and 0.
struct Alignment {
  std::int64_t score = 0;  // negative possible in global and semiglobal modes
  std::uint32_t query_start = 0, query_end = 0, target_start = 0, target_end = 0;
  // With cigar or aligned: the CIGAR (M aligned pair, I query residue against a gap, D target residue
  // against a gap; empty for an empty alignment) and the column counts.
  std::string cigar;
  std::uint32_t length = 0, nident = 0, mismatch = 0, gapopen = 0, gaps = 0;
  std::string query_aligned, target_aligned;  // with aligned: letters, '-' for gaps
};

// An alignment engine: its threads and GPU buffers live as long as it does. Move-only. Not
// thread-safe: one align() at a time per Aligner.
class Aligner {
 public:
  // Throws std::invalid_argument for bad options (X < 0, a scoring option of the other sequence type,
  // Device::gpu where no GPU is usable). With options.type unset the type is fixed by the first
  // align() call, from its queries.
  explicit Aligner(AlignOptions options);
  Aligner(Aligner&&) noexcept;
  Aligner& operator=(Aligner&&) noexcept;
  ~Aligner();

  // Aligns queries[i] with targets[i]; seeds[i] gives pair i's seed in xdrop mode (empty: the default
  // seed for every pair). Throws std::invalid_argument when the lists differ in length, for an invalid
  // letter (naming the sequence), seeds outside xdrop mode; std::out_of_range for a seed that does not
  // fit its pair, naming the pair.
  std::vector<Alignment> align(const std::vector<Sequence>& queries, const std::vector<Sequence>& targets,
                               const std::vector<Seed>& seeds = {});

  // Dynamic-programming cells computed so far (for GCUPS figures).
  double cells() const;
  // "cpu (8 threads)", "gpu (1 x NVIDIA H100)"; "" before the first align() when the type is guessed.
  std::string backend() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot form.
std::vector<Alignment> align(const std::vector<Sequence>& queries, const std::vector<Sequence>& targets,
                             const AlignOptions& options = {}, const std::vector<Seed>& seeds = {});

}  // namespace v0
}  // namespace warpsearch
