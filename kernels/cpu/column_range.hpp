// A run of subject positions, 0-based and end-exclusive: the unit in which the long-subject scan
// (kernels/cpu/long_subject.hpp) reports the columns where a local alignment may end with a high score.
#pragma once

#include <cstdint>

namespace warpsearch::cpu {

struct ColumnRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;

  friend bool operator==(const ColumnRange& a, const ColumnRange& b) { return a.begin == b.begin && a.end == b.end; }
};

}  // namespace warpsearch::cpu
