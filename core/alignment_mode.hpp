// The alignment modes of `warpsearch align` (and, for local, of every search): which ends are free.
// Shared by the references (kernels/reference/reference.hpp), the CPU and GPU kernels and the align engine.
#pragma once

#include <cstdint>

namespace warpsearch {

enum class AlignmentMode : std::uint8_t {
  local,       // Smith-Waterman: the alignment may start and end anywhere in both sequences
  global,      // Needleman-Wunsch: both sequences end to end
  semiglobal,  // the query end to end; the target's leading and trailing residues are free
};

}  // namespace warpsearch
