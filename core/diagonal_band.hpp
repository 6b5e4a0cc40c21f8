// DiagonalBand: the diagonals (column - row) of a global DP that every optimal alignment stays within,
// low <= j - i <= high (optimal_band, profile/exact_band.hpp; docs/long_alignment.md, "Exact band"). A pass restricted
// to it computes, in row i, only the columns first_column(i) .. last_column(i): the cells outside are
// minus infinity. A cell on an optimal alignment then keeps its exact value (its optimal prefix lies
// inside the band) and every other cell a value at most its exact one, so each choice the traceback and
// the linear path's crossing make (a maximum, first in a fixed order, among cells of optimal alignments)
// is the same as without the band: the operations do not change. The same holds for rows computed on
// more cells than the band (a GPU's, exact outside it, or banded more coarsely).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace warpsearch {

struct DiagonalBand {
  std::int64_t low = 0, high = 0;

  std::size_t width() const { return static_cast<std::size_t>(high - low + 1); }
  // Row i's first column (>= 0) and last column (< columns); first > last where the band leaves the
  // columns.
  std::int64_t first_column(std::size_t i) const {
    return std::max<std::int64_t>(0, static_cast<std::int64_t>(i) + low);
  }
  std::int64_t last_column(std::size_t i, std::size_t columns) const {
    return std::min<std::int64_t>(static_cast<std::int64_t>(columns) - 1, static_cast<std::int64_t>(i) + high);
  }
  // The band of a sub-rectangle whose rows start at row r0 and columns at column c0.
  DiagonalBand within(std::size_t r0, std::size_t c0) const {
    const std::int64_t by = static_cast<std::int64_t>(r0) - static_cast<std::int64_t>(c0);
    return {low + by, high + by};
  }
  // The band in the reversed rectangle (row rows - i, column columns - 1 - j, of a rows x columns DP).
  DiagonalBand reversed(std::size_t rows, std::size_t columns) const {
    const std::int64_t shift = static_cast<std::int64_t>(columns) - 1 - static_cast<std::int64_t>(rows);
    return {shift - high, shift - low};
  }
  // At most the cells a pass of rows x columns computes in it.
  std::uint64_t cells(std::size_t rows, std::size_t columns) const {
    return static_cast<std::uint64_t>(rows) * std::min<std::size_t>(columns, width() + 1);
  }
  // The traceback bytes of row i in the band's layout: column j at slot j - (i + low) + 1, width() + 1
  // slots a row.
  std::int64_t slot(std::size_t i, std::size_t j) const {
    return static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i) - low + 1;
  }
};

// The cells a pass of rows x columns computes: those of the band where there is one, else all.
inline std::uint64_t pass_cells(const std::optional<DiagonalBand>& band, std::size_t rows, std::size_t columns) {
  return band ? band->cells(rows, columns) : static_cast<std::uint64_t>(rows) * columns;
}

}  // namespace warpsearch
