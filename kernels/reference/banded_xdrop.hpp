// X-drop seed extension on the CPU: the definition of kernels/reference/reference_xdrop.hpp computed over a band.
//
// Each extension walks the anti-diagonals d = 0, 1, ... keeping three of them (H for d-2, d-1, d; E and F
// for d-1, d) indexed by the query position, and computes only the band of cells that have a live
// neighbour on the two anti-diagonals before (from the first live row of d-1, or one past the first live
// row of d-2, to one past the last live row of either), clipped to the matrix. Cells outside that band
// have no live neighbour, so they are dead in the reference too: the results are identical, cell for
// cell, at a cost proportional to the band (X and the divergence decide its width), not to m * n.
// Scores are 32-bit when the sequence lengths bound every reachable score well inside int32, else 64-bit.
//
// With operations asked for, each computed cell of the band also records one traceback byte (where H came
// from, and whether E and F extend a gap), so memory grows with the band's area: about 1 byte per computed
// cell. The traceback follows only live cells, so the operations replay to exactly the reported score.
// Ties in the traceback prefer an aligned pair, then a query residue against a gap, then a target residue
// against a gap, and a gap opened here over one extended (the rule of kernels/cpu/alignment.hpp).
//
// Thread safety: an XdropAligner holds scratch buffers: one per thread. The functions are otherwise pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/reference/reference_xdrop.hpp"
#include "profile/scoring.hpp"

namespace warpsearch {

struct XdropAlignment {
  XdropSpan span;
  // With operations asked for: one char per column from span.query_begin/subject_begin to the ends,
  // 'M' aligned pair, 'I' query residue against a gap, 'D' target residue against a gap.
  std::string operations;
};

// Whether an m x n extension runs with 32-bit scores (see above): every reachable score, (m + n + 2) times
// the largest substitution or gap step, stays below 2^27. The GPU engine takes the same rule.
bool xdrop_fits_int32(std::size_t m, std::size_t n, const ScoringScheme& scoring);

class XdropAligner {
 public:
  // Score width: automatic picks 32 bits when the lengths allow it (see above); bits64 forces 64 bits
  // (so that tests cover both).
  enum class ScoreWidth { automatic, bits64 };

  // Throws std::invalid_argument when X < 0. The scoring must outlive the aligner.
  XdropAligner(const ScoringScheme& scoring, XDrop x, ScoreWidth width = ScoreWidth::automatic);

  // One extension anchored at the start of both sequences (as reference::extend_reference). With
  // operations non-null, it receives the operations from the origin to the best cell.
  Extension extend(std::string_view query, std::string_view target, std::string* operations = nullptr);

  // A seeded alignment (as reference::xdrop_reference); throws std::out_of_range when the seed does not fit.
  XdropAlignment align(std::string_view query, std::string_view target, const Seed& seed, bool with_operations);

  // Cells computed since construction (the GCUPS of a benchmark count these).
  std::uint64_t cells() const { return cells_; }

 private:
  template <typename Score>
  Extension extend_with(std::string_view query, std::string_view target, std::string* operations);

  const ScoringScheme& scoring_;
  XDrop x_;
  ScoreWidth width_;
  std::uint64_t cells_ = 0;
  std::string query_padded_, target_padded_;
  std::vector<std::int32_t> buffer32_;
  std::vector<std::int64_t> buffer64_;
  std::vector<std::uint8_t> traceback_;
  std::vector<std::uint64_t> traceback_offsets_;
  std::vector<std::uint32_t> traceback_low_;
  std::vector<std::int32_t> substitution_scores_;
  std::string prefix_query_, prefix_target_;
};

}  // namespace warpsearch
