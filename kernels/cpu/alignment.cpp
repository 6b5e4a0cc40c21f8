#include "kernels/cpu/alignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/striped.hpp"

namespace warpsearch::cpu {
namespace {

constexpr std::int32_t kMinusInfinity = std::numeric_limits<std::int32_t>::min() / 4;

// Global alignment of a (rows, the query substring) against b (columns, the subject substring), with
// the references' gap rules: I = query residue against a gap (vertical), D = subject residue
// against a gap (horizontal); a gap of length k costs open + k * extend.
class GlobalAligner {
 public:
  GlobalAligner(std::string_view a, std::string_view b, const ScoringScheme& scoring)
      : a_(a), b_(b), scoring_(scoring), open_(scoring.gap_open()), extend_(scoring.gap_extend()) {}

  // Traceback byte of a cell: bits 0-1 where H came from (kFromM, kFromI, kFromD); kIExtends: I here
  // extends I of the cell above; kDExtends: D here extends D of the cell to the left.
  static constexpr std::uint8_t kFromM = 0, kFromI = 1, kFromD = 2, kSourceMask = 3;
  static constexpr std::uint8_t kIExtends = 4, kDExtends = 8;

  std::size_t columns() const { return b_.size() + 1; }

  void first_row(std::int32_t* h, std::int32_t* ins) const {
    h[0] = 0;
    ins[0] = kMinusInfinity;
    for (std::size_t j = 1; j < columns(); ++j) {
      h[j] = -(open_ + static_cast<std::int32_t>(j) * extend_);
      ins[j] = kMinusInfinity;
    }
  }

  // Row i >= 1 from row i - 1. tb: the row's traceback bytes, or nullptr.
  void next_row(std::size_t i, const std::int32_t* h_above, const std::int32_t* ins_above, std::int32_t* h,
                std::int32_t* ins, std::uint8_t* tb) const {
    if (tb)
      next_row_of<true>(i, h_above, ins_above, h, ins, tb);
    else
      next_row_of<false>(i, h_above, ins_above, h, ins, tb);
  }

  // The row's recurrence, without branches on the scores (selects, not jumps: on random residues the
  // winner of each cell is unpredictable, and mispredicted jumps cost more than the arithmetic).
  template <bool kTraceback>
  void next_row_of(std::size_t i, const std::int32_t* h_above, const std::int32_t* ins_above, std::int32_t* h,
                   std::int32_t* ins, std::uint8_t* tb) const {
    const std::int32_t open_extend = open_ + extend_;
    const std::int32_t extend = extend_;
    h[0] = ins[0] = -(open_ + static_cast<std::int32_t>(i) * extend_);
    if constexpr (kTraceback) tb[0] = static_cast<std::uint8_t>(kFromI | (i > 1 ? kIExtends : 0));
    std::int32_t del = kMinusInfinity;
    const auto& scores = scoring_.matrix().row(static_cast<std::uint8_t>(a_[i - 1]));
    const char* const b = b_.data();
    const std::size_t cols = columns();
    std::int32_t h_left = h[0];
    for (std::size_t j = 1; j < cols; ++j) {
      const std::int32_t ins_extend = ins_above[j] - extend;
      const std::int32_t ins_open = h_above[j] - open_extend;
      const std::int32_t ins_here = std::max(ins_extend, ins_open);
      const std::int32_t del_extend = del - extend;
      const std::int32_t del_open = h_left - open_extend;
      del = std::max(del_extend, del_open);
      const std::int32_t diagonal = h_above[j - 1] + scores[static_cast<std::uint8_t>(b[j - 1]) & 31u];
      // Ties go to M, then I: the traceback's order of preference.
      const bool i_wins = ins_here > diagonal;
      const std::int32_t m_or_i = i_wins ? ins_here : diagonal;
      const bool d_wins = del > m_or_i;
      h_left = d_wins ? del : m_or_i;
      h[j] = h_left;
      ins[j] = ins_here;
      if constexpr (kTraceback) {
        const unsigned source = d_wins ? kFromD : static_cast<unsigned>(i_wins);  // kFromM = 0, kFromI = 1
        tb[j] = static_cast<std::uint8_t>(source | (ins_extend > ins_open ? kIExtends : 0u) |
                                          (del_extend > del_open ? kDExtends : 0u));
      }
    }
  }

  // The operations of an optimal global alignment, and its score.
  std::string align(const AlignmentLimits& limits, std::int32_t* score) const {
    const std::size_t rows = a_.size();
    const std::size_t cols = columns();
    // Band height: every row when the whole table fits the limit, else about sqrt(8 * rows), which
    // balances the checkpoint rows (8 bytes per cell) against one band of traceback bytes.
    std::size_t band = rows;
    if (static_cast<std::uint64_t>(rows) * cols > limits.full_traceback_cells)
      band = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(std::sqrt(8.0 * static_cast<double>(rows)))));
    band = std::min(band, std::max<std::size_t>(rows, 1));
    const std::size_t bands = rows == 0 ? 0 : (rows + band - 1) / band;

    // Forward: checkpoint rows 0, band, 2 * band, ... (the row before each band).
    std::vector<std::int32_t> checkpoint_h(bands * cols), checkpoint_ins(bands * cols);
    std::vector<std::uint8_t> tb(band * cols);
    std::vector<std::int32_t> h_above(cols), ins_above(cols), h(cols), ins(cols);
    first_row(h_above.data(), ins_above.data());
    for (std::size_t i = 1; i <= rows; ++i) {
      const std::size_t t = (i - 1) / band;
      if ((i - 1) % band == 0) {
        std::copy(h_above.begin(), h_above.end(), checkpoint_h.begin() + static_cast<std::ptrdiff_t>(t * cols));
        std::copy(ins_above.begin(), ins_above.end(), checkpoint_ins.begin() + static_cast<std::ptrdiff_t>(t * cols));
      }
      std::uint8_t* tb_row = bands == 1 ? tb.data() + (i - 1) * cols : nullptr;
      next_row(i, h_above.data(), ins_above.data(), h.data(), ins.data(), tb_row);
      std::swap(h, h_above);
      std::swap(ins, ins_above);
    }
    *score = h_above[cols - 1];

    // Traceback from (rows, cols - 1), one band at a time, last band first.
    std::string reversed_operations;
    std::size_t i = rows, j = cols - 1;
    std::uint8_t state = kSourceMask;  // kSourceMask stands for "in H"
    std::size_t band_in_tb = bands == 1 ? 0 : bands;  // which band tb holds (bands: none)
    while (i > 0 && j > 0) {
      const std::size_t t = (i - 1) / band;
      if (band_in_tb != t) {
        std::copy_n(checkpoint_h.begin() + static_cast<std::ptrdiff_t>(t * cols), cols, h_above.begin());
        std::copy_n(checkpoint_ins.begin() + static_cast<std::ptrdiff_t>(t * cols), cols, ins_above.begin());
        const std::size_t last = std::min(rows, (t + 1) * band);
        for (std::size_t r = t * band + 1; r <= last; ++r) {
          next_row(r, h_above.data(), ins_above.data(), h.data(), ins.data(), tb.data() + (r - t * band - 1) * cols);
          std::swap(h, h_above);
          std::swap(ins, ins_above);
        }
        band_in_tb = t;
      }
      const std::uint8_t cell = tb[(i - 1 - t * band) * cols + j];
      if (state == kSourceMask) state = cell & kSourceMask;
      if (state == kFromM) {
        reversed_operations += 'M';
        --i;
        --j;
        state = kSourceMask;
      } else if (state == kFromI) {
        reversed_operations += 'I';
        --i;
        if (!(cell & kIExtends)) state = kSourceMask;
      } else {
        reversed_operations += 'D';
        --j;
        if (!(cell & kDExtends)) state = kSourceMask;
      }
    }
    reversed_operations.append(i, 'I');  // column 0: one gap down to the origin
    reversed_operations.append(j, 'D');  // row 0: one gap left to the origin
    return std::string(reversed_operations.rbegin(), reversed_operations.rend());
  }

 private:
  std::string_view a_, b_;
  const ScoringScheme& scoring_;
  std::int32_t open_, extend_;
};

// The score of the operations replayed over the two substrings; fills the counts of the alignment.
std::int64_t replay(std::string_view a, std::string_view b, const ScoringScheme& scoring, LocalAlignment& alignment) {
  std::int64_t score = 0;
  std::size_t i = 0, j = 0;
  char previous = 'M';
  for (char op : alignment.operations) {
    if (op == 'M') {
      if (i >= a.size() || j >= b.size())
        throw std::logic_error("align_in_rectangle: the operations overrun the sequences");
      score += scoring.score(static_cast<std::uint8_t>(a[i]), static_cast<std::uint8_t>(b[j]));
      (a[i] == b[j] ? alignment.identities : alignment.mismatches) += 1;
      ++i;
      ++j;
    } else {
      if (op != previous) {
        score -= scoring.gap_open();
        ++alignment.gap_opens;
      }
      score -= scoring.gap_extend();
      ++alignment.gaps;
      (op == 'I' ? i : j) += 1;
    }
    previous = op;
  }
  if (i != a.size() || j != b.size())
    throw std::logic_error("align_in_rectangle: the operations do not span the rectangle");
  return score;
}

std::string reversed_prefix(std::string_view codes, std::size_t length) {
  return std::string(codes.rend() - static_cast<std::ptrdiff_t>(length), codes.rend());
}

std::string rectangle_text(const AlignmentSpan& span) {
  return "query " + std::to_string(span.query_begin) + ".." + std::to_string(span.query_end) + ", subject " +
         std::to_string(span.subject_begin) + ".." + std::to_string(span.subject_end);
}

}  // namespace

AlignmentSpan pair_span(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                        AlignmentMode mode, Isa isa) {
  AlignmentSpan span;
  const PairEnd end = StripedScorer(query_codes, scoring, isa).end(subject_codes, mode);
  span.score = end.score;
  span.query_end = end.query_end;
  span.subject_end = end.subject_end;
  if (mode == AlignmentMode::global || (mode == AlignmentMode::local && end.score == 0) ||
      (mode == AlignmentMode::semiglobal && query_codes.empty()))
    return span;

  // The start: the same pass over the reversed prefixes that end at the end. Semi-global: every optimal
  // alignment within subject [0, end) ends at end (end is the smallest optimal end), so the reversed
  // pass's smallest optimal end is the largest optimal start.
  const PairEnd start = StripedScorer(reversed_prefix(query_codes, end.query_end), scoring, isa)
                            .end(reversed_prefix(subject_codes, end.subject_end), mode);
  if (start.score != end.score)
    throw std::logic_error("pair_span: the reverse pass scores " + std::to_string(start.score) +
                           ", the forward pass " + std::to_string(end.score));
  span.query_begin = end.query_end - start.query_end;
  span.subject_begin = end.subject_end - start.subject_end;
  return span;
}

PairAlignment align_in_rectangle(std::string_view query_codes, std::string_view subject_codes,
                                 const ScoringScheme& scoring, const AlignmentSpan& span,
                                 const AlignmentLimits& limits) {
  if (span.query_begin > span.query_end || span.query_end > query_codes.size() ||
      span.subject_begin > span.subject_end || span.subject_end > subject_codes.size())
    throw std::invalid_argument("align_in_rectangle: the rectangle (" + rectangle_text(span) +
                                ") is not within a query of " + std::to_string(query_codes.size()) +
                                " and a subject of " + std::to_string(subject_codes.size()) + " residues");
  PairAlignment alignment;
  alignment.score = static_cast<int>(span.score);
  alignment.query_begin = span.query_begin;
  alignment.query_end = span.query_end;
  alignment.subject_begin = span.subject_begin;
  alignment.subject_end = span.subject_end;

  const std::string_view a = query_codes.substr(span.query_begin, span.query_end - span.query_begin);
  const std::string_view b = subject_codes.substr(span.subject_begin, span.subject_end - span.subject_begin);
  std::int32_t global_score = 0;
  alignment.operations = GlobalAligner(a, b, scoring).align(limits, &global_score);
  const std::int64_t replayed = replay(a, b, scoring, alignment);
  if (global_score != span.score || replayed != span.score)
    throw std::logic_error("align_in_rectangle: the traceback scores " + std::to_string(global_score) +
                           " (replayed " + std::to_string(replayed) + "), the span " + std::to_string(span.score) +
                           " (" + rectangle_text(span) + ")");
  return alignment;
}

PairAlignment align_pair(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                         AlignmentMode mode, const AlignmentLimits& limits, Isa isa) {
  return align_in_rectangle(query_codes, subject_codes, scoring,
                            pair_span(query_codes, subject_codes, scoring, mode, isa), limits);
}

LocalAlignment align_local(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                           const AlignmentLimits& limits) {
  return align_pair(query_codes, subject_codes, scoring, AlignmentMode::local, limits);
}

std::string cigar(const std::string& operations) {
  std::string result;
  for (std::size_t i = 0; i < operations.size();) {
    const char op = operations[i];
    if (op != 'M' && op != 'I' && op != 'D')
      throw std::invalid_argument(std::string("cigar: operation '") + op + "' at column " + std::to_string(i) +
                                  " is not M, I or D");
    std::size_t run = 1;
    while (i + run < operations.size() && operations[i + run] == op) ++run;
    result += std::to_string(run);
    result += op;
    i += run;
  }
  return result;
}

}  // namespace warpsearch::cpu
