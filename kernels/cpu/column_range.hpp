// A run of subject positions, 0-based and end-exclusive: the unit in which the long-subject scan
// (kernels/cpu/long_subject.hpp) reports the columns where a local alignment may end with a high score.
#pragma once

#include <cstdint>
#include <vector>

namespace warpsearch::cpu {

struct ColumnRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;

  friend bool operator==(const ColumnRange& a, const ColumnRange& b) { return a.begin == b.begin && a.end == b.end; }
};

// The runs of set flags, flags[c] standing for position first + c, in order.
inline std::vector<ColumnRange> flagged_ranges(const std::vector<std::uint8_t>& flags, std::uint64_t first) {
  std::vector<ColumnRange> ranges;
  for (std::size_t c = 0; c < flags.size(); ++c) {
    if (!flags[c]) continue;
    if (!ranges.empty() && ranges.back().end == first + c)
      ++ranges.back().end;
    else
      ranges.push_back({first + c, first + c + 1});
  }
  return ranges;
}

}  // namespace warpsearch::cpu
