// The rows of the CPU hit alignment's global DP (kernels/cpu/alignment.cpp): the row recurrence, its
// vectorised loops per instruction set (chosen at run time) and the subject profile the rows read.
// Private to kernels/cpu.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/alphabet.hpp"
#include "core/diagonal_band.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "profile/exact_band.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::cpu::detail {

inline constexpr std::int32_t kMinusInfinity = std::numeric_limits<std::int32_t>::min() / 4;

// Entries to spare at the end of the rows' arrays, the subject profile and a table of traceback bytes
// (PassRowsOf: the 16-bit rows' whole vectors).
inline constexpr std::size_t kRowSlack = 32;

// Minus infinity of the rows' value type. The 16-bit rows serve rectangles whose values fit them with
// this one below (fits_narrow_rows, below): twice the columns per vector.
template <typename Value>
inline constexpr Value kMinusInfinityOf = static_cast<Value>(std::numeric_limits<Value>::min() / 4);
template <>
inline constexpr std::int16_t kMinusInfinityOf<std::int16_t> = std::numeric_limits<std::int16_t>::min() / 2;

// A residue code as a matrix index. Codes are below kMaxCodes (core/alphabet.hpp); the mask keeps a
// stray byte inside the matrix.
static_assert((kMaxCodes & (kMaxCodes - 1)) == 0, "kMaxCodes must be a power of two");
inline std::uint8_t matrix_code(char residue) { return static_cast<std::uint8_t>(residue) & (kMaxCodes - 1); }

// Traceback byte of a cell: bits 0-1 where H came from (kFromM, kFromI, kFromD); kIExtends: I here
// extends I of the cell above; kDExtends: D here extends D of the cell to the left.
inline constexpr std::uint8_t kFromM = 0, kFromI = 1, kFromD = 2, kSourceMask = 3;
inline constexpr std::uint8_t kIExtends = 4, kDExtends = 8;

// One row of the global DP (I vertical, D horizontal, a gap of length k costing open + k * extend):
//   I(j) = max(I_above(j) - e, H_above(j) - (o + e)),   M(j) = H_above(j - 1) + s(a_i, b_j),
//   D(j) = max(D(j - 1) - e, H(j - 1) - (o + e)), D(0) = minus infinity,   H(j) = max(M, I, D).
// D chains along the row, which kept the direct loop scalar. It is a prefix maximum instead, exactly:
// with MI(j) = max(I(j), M(j)) and MI(0) = H(0) (the column-0 gap), H(j - 1) = max(MI(j - 1), D(j - 1))
// and, since open >= 0, D(j - 1) - (o + e) <= D(j - 1) - e, so for j >= 1 (at j = 1, H(0) = MI(0)
// and D(0) is minus infinity)
//   D(j) = max(D(j - 1) - e, MI(j - 1) - (o + e)),
// which unrolls to
//   D(j) = [max over 0 <= k < j of (MI(k) + k * e)] - (o + e) - (j - 1) * e.
// Integers without rounding or overflow: the values are the direct recurrence's, bit for bit. So the
// row is three loops: I and MI (independent columns, vectorised), the running maximum of MI(k) + k * e
// (the one serial step: a max per cell, or a vector scan), then H and the traceback byte (independent
// columns again).
//
// The traceback byte keeps the direct recurrence's tie-breaks: H comes from D only if D > MI, else from
// I only if I > M, else from M; kIExtends if I_above(j) - e > H_above(j) - (o + e); kDExtends if
// D(j - 1) - e > H(j - 1) - (o + e). With H(j - 1) = max(MI(j - 1), D(j - 1)) the last holds iff o > 0
// and D(j - 1) - e > MI(j - 1) - (o + e), that is (D(j) being the max of those two) iff o > 0 and
// D(j) > MI(j - 1) - (o + e). At j = 1, D(1) = H(0) - (o + e) = MI(0) - (o + e): false, as
// D(0) = minus infinity made it.
//
// Ranges: H, I and D lie in striped_score_range's range for a global alignment (kernels/cpu/striped.hpp:
// down to the two boundary gaps, up to min(rows, columns) best substitutions), and the scan adds
// k * e <= columns * e; fits_traceback_rows keeps both inside int32 and above minus infinity, which
// only ever loses one e (row 0's I); D needs none (the scan starts at MI(0) = H(0)).
//
// The arrays, indexed by column (column j >= 1 pairs with subject residue j - 1). The pointers are
// __restrict and the job is passed by value so that the compiler knows the arrays apart and vectorises
// the column loops without run-time overlap checks (too many for it to version the loops).
// Value: std::int32_t, or std::int16_t where the rectangle's values fit (kMinusInfinityOf).
template <typename Value>
struct RowJobOf {
  std::size_t columns;
  Value open, extend;
  const std::int8_t* __restrict substitution;  // [j]: query residue i against subject residue j - 1
  const Value* __restrict h_above;             // row i - 1
  const Value* __restrict ins_above;
  Value* __restrict h;  // row i; h[0] (= I(i, 0), the column-0 gap) set by the caller
  Value* __restrict ins;
  Value* __restrict m_or_i;     // scratch: MI
  Value* __restrict del;        // scratch: D, columns 1..columns - 1
  std::uint8_t* __restrict tb;  // row i's traceback bytes (columns >= 1), or nullptr
};
using RowJob = RowJobOf<std::int32_t>;

template <typename Value>
using RowFunctionOf = void (*)(RowJobOf<Value>);

struct RowFunctions {
  RowFunctionOf<std::int32_t> score;      // h and ins only (the checkpointed traceback's forward pass)
  RowFunctionOf<std::int32_t> traceback;  // and the traceback bytes
  // The same in 16 bits, traceback bytes always: the 16-bit rows serve whole traceback tables only
  // (GlobalAligner), never a pass of scores alone.
  RowFunctionOf<std::int16_t> narrow_traceback;

  template <typename Value>
  RowFunctionOf<Value> pick(bool with_traceback) const {
    if constexpr (std::is_same_v<Value, std::int16_t>) {
      if (!with_traceback) throw std::logic_error("16-bit rows without traceback bytes");
      return narrow_traceback;
    } else {
      return with_traceback ? traceback : score;
    }
  }
};

// The row functions of an instruction set (one the CPU runs); below AVX2, the portable loops (SSE2 on
// x86-64, whatever the target's baseline vectorises elsewhere).
RowFunctions row_functions(Isa isa);

// Whether the 16-bit rows hold a global alignment of rows x cols residues (a vertical gap from the top
// costing top_open): every value of it (striped_score_range's range) lies above minus infinity
// (kMinusInfinityOf<std::int16_t>) by more than a substitution and an open + extend, so that nothing
// derived from minus infinity ever reaches a real value, and the horizontal gaps' scan, MI(k) + k * extend,
// stays below 2^15; minus infinity less an open + extend (the most any value derived from it loses, as in
// the 32-bit rows) stays above -2^15. The values are then the 32-bit rows', and so are the traceback bytes.
bool fits_narrow_rows(std::size_t rows, std::size_t cols, const ScoringScheme& scoring, std::int32_t top_open);

// The rows one pass of the global DP works in: the row above, the row being computed, and RowJob's
// scratch. Shared by the checkpointed and the linear-memory traceback (kernels/cpu/global_aligner.cpp,
// kernels/cpu/alignment.cpp).
//
// The 16-bit rows run their loops over whole vectors: a row's columns are rounded up to a multiple of
// kRowSlack past column 0, so that no scalar remainder loop runs (a band of about 90 columns would
// otherwise spend most of its time there with 32 columns to a vector). The columns beyond a row's end
// hold values of no cell: the arrays, the subject profile's rows and the traceback bytes have kRowSlack
// entries to spare for them, a row's band reads no column beyond its own end, and the columns a band
// gains are reset first. The traceback reads only cells of the band.
template <typename Value>
struct PassRowsOf {
  static constexpr Value kMinus = kMinusInfinityOf<Value>;
  static constexpr bool kWholeVectors = std::is_same_v<Value, std::int16_t>;

  explicit PassRowsOf(std::size_t columns)
      : h_above(columns + kRowSlack),
        ins_above(columns + kRowSlack),
        h(columns + kRowSlack),
        ins(columns + kRowSlack),
        m_or_i(columns + kRowSlack),
        del(columns + kRowSlack) {}

  // Room for rows of `columns` columns (a pass's rows may start empty: PassRowsOf(0)).
  void resize(std::size_t columns) {
    for (std::vector<Value>* row : {&h_above, &ins_above, &h, &ins, &m_or_i, &del}) row->resize(columns + kRowSlack);
  }

  // The columns a row's loops run over: `columns`, or for the 16-bit rows 1 + a multiple of kRowSlack.
  static std::size_t loop_columns(std::size_t columns) {
    if (!kWholeVectors || columns <= 1) return columns;
    return 1 + (columns - 1 + kRowSlack - 1) / kRowSlack * kRowSlack;
  }

  // Row 0 of a global alignment into the row above: H(0, j) = -(open + j * extend), I minus infinity.
  void start(std::size_t columns, std::int32_t open, std::int32_t extend) {
    h_above[0] = 0;
    ins_above[0] = kMinus;
    for (std::size_t j = 1; j < columns; ++j) {
      h_above[j] = static_cast<Value>(-(open + static_cast<std::int32_t>(j) * extend));
      ins_above[j] = kMinus;
    }
  }

  // Row i (>= 1) from the row above, which it then becomes: `columns` columns, column 0 a vertical gap
  // from (0, 0) that costs top_open instead of open; substitution: the row's scores against the columns
  // (SubjectProfile::row); tb: the row's traceback bytes (columns >= 1), or nullptr.
  void advance(const RowFunctions& functions, std::size_t columns, std::int32_t open, std::int32_t extend,
               std::int32_t top_open, std::size_t i, const std::int8_t* substitution, std::uint8_t* tb) {
    h[0] = ins[0] = static_cast<Value>(-(top_open + static_cast<std::int32_t>(i) * extend));
    const RowJobOf<Value> job{loop_columns(columns),
                              static_cast<Value>(open),
                              static_cast<Value>(extend),
                              substitution,
                              h_above.data(),
                              ins_above.data(),
                              h.data(),
                              ins.data(),
                              m_or_i.data(),
                              del.data(),
                              tb};
    functions.pick<Value>(tb != nullptr)(job);
    std::swap(h, h_above);
    std::swap(ins, ins_above);
  }

  // advance() restricted to the band's columns of row i (band.first_column(i) <= band.last_column(i,
  // columns)); tb: the row's traceback bytes in the band's layout (DiagonalBand::slot), or nullptr. The
  // columns the band gains on the right since the row above hold earlier rows' values there: they are
  // set to minus infinity first, and so is the column left of the band in this row.
  void advance_in_band(const RowFunctions& functions, const DiagonalBand& band, std::size_t columns, std::int32_t open,
                       std::int32_t extend, std::int32_t top_open, std::size_t i, const std::int8_t* substitution,
                       std::uint8_t* tb) {
    const std::int64_t first = band.first_column(i), last = band.last_column(i, columns);
    if (first > last) throw std::logic_error("advance_in_band: row " + std::to_string(i) + " leaves the band");
    for (std::int64_t j = std::max<std::int64_t>(band.last_column(i - 1, columns) + 1, 0); j <= last; ++j)
      h_above[static_cast<std::size_t>(j)] = ins_above[static_cast<std::size_t>(j)] = kMinus;
    const auto base = static_cast<std::size_t>(first == 0 ? 0 : first - 1);  // the job's column 0
    h[base] = ins[base] = first == 0 ? static_cast<Value>(-(top_open + static_cast<std::int32_t>(i) * extend)) : kMinus;
    const RowJobOf<Value> job{loop_columns(static_cast<std::size_t>(last) + 1 - base),
                              static_cast<Value>(open),
                              static_cast<Value>(extend),
                              substitution + base,
                              h_above.data() + base,
                              ins_above.data() + base,
                              h.data() + base,
                              ins.data() + base,
                              m_or_i.data() + base,
                              del.data() + base,
                              tb ? tb + band.slot(i, base) : nullptr};
    functions.pick<Value>(tb != nullptr)(job);
    std::swap(h, h_above);
    std::swap(ins, ins_above);
  }

  std::vector<Value> h_above, ins_above, h, ins, m_or_i, del;
};
using PassRows = PassRowsOf<std::int32_t>;

// The subject profile, so that a row reads its substitutions contiguously instead of gathering them from
// the matrix: one row of columns() scores for each code that occurs in a, starting at offset_[code];
// entry j >= 1 scores the code against b[j - 1], entry 0 is unused. Sub-rectangles starting at column
// c0 read row(code) + c0.
class SubjectProfile {
 public:
  SubjectProfile(std::string_view a, std::string_view b, const ScoringScheme& scoring) : columns_(b.size() + 1) {
    std::array<bool, kMaxCodes> in_a{};
    for (char residue : a) in_a[matrix_code(residue)] = true;
    scores_.resize(static_cast<std::size_t>(std::count(in_a.begin(), in_a.end(), true)) * columns_ + kRowSlack);
    std::size_t next = 0;
    for (int code = 0; code < kMaxCodes; ++code) {
      if (!in_a[code]) continue;
      offset_[code] = next;
      const auto& scores = scoring.matrix().row(static_cast<std::uint8_t>(code));
      for (std::size_t j = 1; j < columns_; ++j) scores_[next + j] = scores[matrix_code(b[j - 1])];
      next += columns_;
    }
  }

  std::size_t columns() const { return columns_; }
  const std::int8_t* row(char residue) const { return scores_.data() + offset_[matrix_code(residue)]; }

 private:
  std::size_t columns_;
  std::vector<std::int8_t> scores_;
  std::array<std::size_t, kMaxCodes> offset_{};
};

}  // namespace warpsearch::cpu::detail
