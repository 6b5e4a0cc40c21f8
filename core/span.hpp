// Span: a score and the rectangle of the alignment that reaches it, the one name for that idea in every
// engine layer (the references, the CPU and GPU kernels, the search's hits, the align engine's pairs).
#pragma once

#include <cstdint>

namespace warpsearch {

// The alignment covers query [query_begin, query_end) and subject [subject_begin, subject_end), 0-based,
// end exclusive. A local alignment of score 0 (no cell above zero) has every coordinate 0. Scores are
// 64-bit: the references compute in 64 bits, and global and semi-global scores may be negative.
struct Span {
  std::int64_t score = 0;
  std::uint32_t query_begin = 0;
  std::uint32_t query_end = 0;
  std::uint32_t subject_begin = 0;
  std::uint32_t subject_end = 0;
};

}  // namespace warpsearch
