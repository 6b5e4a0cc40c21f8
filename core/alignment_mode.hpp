// The alignment modes: which ends are free (local, global, semi-global), or an X-drop extension from a
// seed. The one mode enum of the engine: the references (kernels/reference/), the CPU and GPU kernels, the
// align engine and the command line. The public API has its own (include/warpsearch/align.hpp's AlignMode),
// mapped to this one in api/, so that the public headers need no internal one.
#pragma once

#include <cstdint>
#include <string_view>

namespace warpsearch {

enum class AlignmentMode : std::uint8_t {
  local,       // Smith-Waterman: the alignment may start and end anywhere in both sequences
  global,      // Needleman-Wunsch: both sequences end to end
  semiglobal,  // the query end to end; the subject's leading and trailing residues are free
  xdrop,       // extension left and right from a seed, stopping where the score falls more than X below
               // the best (kernels/reference/reference_xdrop.hpp)
};

// "local", "global", "semiglobal", "xdrop". parse_alignment_mode throws std::invalid_argument on another
// name.
AlignmentMode parse_alignment_mode(std::string_view name);
const char* alignment_mode_name(AlignmentMode mode);

// The kernels and references that fill the whole dynamic-programming table (local, global, semi-global)
// call this first: std::invalid_argument naming `kernel` for xdrop, which extends from a seed and has
// engines of its own (kernels/reference/banded_xdrop.hpp, kernels/gpu/gpu_xdrop.hpp).
void require_table_mode(AlignmentMode mode, const char* kernel);

}  // namespace warpsearch
