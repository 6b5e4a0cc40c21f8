// Private to kernels/cpu: what the dispatcher (striped.cpp) hands to a striped pair kernel, and the
// per-instruction-set tables of kernels. Each table lives in a source file of its own, compiled with
// that instruction set's flags; nothing else in those files may be called before dispatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/alignment_mode.hpp"
#include "kernels/cpu/column_range.hpp"

namespace warpsearch::cpu::detail {

struct StripedPass {
  // A StripedProfile<std::int16_t> (profile/query_profile.hpp) of the query with the kernel's lane count:
  // the 16-bit kernels load its vectors as they are, the 32-bit kernels widen them.
  const std::int16_t* profile = nullptr;
  std::size_t segments = 0;               // the profile's segment_length()
  std::size_t query_length = 0;           // >= 1
  const std::uint8_t* subject = nullptr;  // residue codes; only the low 5 bits are read
  std::size_t subject_length = 0;         // >= 1
  int gap_open = 0;
  int gap_extend = 0;
  // Local mode only. Subject positions before first_column are context: their cells are computed, but
  // the best cell is sought among the later columns only. With hot_columns set, every position p >=
  // first_column whose column holds a cell of at least hot_threshold is appended to it, consecutive
  // positions as one range (positions relative to `subject`).
  std::size_t first_column = 0;
  std::int64_t hot_threshold = 0;
  std::vector<ColumnRange>* hot_columns = nullptr;
  // Local mode only: the pass ends after the first column whose best cell reaches stop_score, which is
  // then the outcome (the reverse pass of an alignment scoring it, where no cell scores more: a later
  // column could only tie, and a tie keeps the smaller subject position).
  std::int64_t stop_score = std::numeric_limits<std::int64_t>::max();
};

struct StripedOutcome {
  std::int64_t score = 0;
  std::uint32_t query_end = 0, subject_end = 0;  // exclusive ends; local score 0: both 0
  // The 16-bit kernels only: some value may have left the element's range, so the outcome may be
  // wrong and must be recomputed wider. Never set by the 32-bit and 64-bit kernels (their callers bound
  // the values instead).
  bool saturated = false;
};

using StripedFunction = StripedOutcome (*)(const StripedPass&);

// kernel[width][mode]: width 0 = 16-bit, 1 = 32-bit; mode = AlignmentMode's value (local, global,
// semiglobal; StripedScorer rejects xdrop before it indexes them).
struct StripedTable {
  int lanes[2];  // lanes per vector of each width (the profile's lane count)
  StripedFunction kernel[2][3];
};

// The 64-bit kernels (scalar, one lane; a 1-lane profile), by mode.
struct StripedFunction64 {
  StripedFunction kernel[3];
};

extern const StripedTable kStripedScalar;
extern const StripedFunction64 kStriped64;
#if defined(WARPSEARCH_CPU_X86)
extern const StripedTable kStripedSse41;
extern const StripedTable kStripedAvx2;
extern const StripedTable kStripedAvx512bw;
#endif

}  // namespace warpsearch::cpu::detail
