// PairAlignment: a span and the operations that align its rectangle, the one pair result of the engine
// (the CPU traceback, the align engine, the search's hits before they become Hits).
#pragma once

#include <cstdint>
#include <string>

#include "core/span.hpp"

namespace warpsearch {

// A Span (it is one, so that it converts to the span it aligns) with the alignment's columns.
struct PairAlignment : Span {
  // One char per alignment column: 'M' aligned pair, 'I' query residue against a gap, 'D' subject
  // residue against a gap; they replay to exactly `score` over the span. Empty when the rectangle is
  // empty (local: score 0) or when only the span was asked for.
  std::string operations;
  // Filled with the operations: 'M' columns of equal residue codes (identities) and of unequal ones
  // (mismatches), runs of 'I' or 'D' (gap_opens), 'I' and 'D' columns (gaps).
  std::uint32_t identities = 0, mismatches = 0, gap_opens = 0, gaps = 0;
};

}  // namespace warpsearch
