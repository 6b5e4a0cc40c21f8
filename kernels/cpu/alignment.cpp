#include "kernels/cpu/alignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace warpsearch::cpu {
namespace {

constexpr std::int32_t kMinusInfinity = std::numeric_limits<std::int32_t>::min() / 4;

struct EndCell {
  std::int32_t score = 0;
  std::size_t query_last = 0, subject_last = 0;  // inclusive; meaningless when score is 0
};

// Smith-Waterman score and end cell: among the maximal cells, the smallest subject position, then
// the smallest query position (subject positions outer, query positions inner, strict improvement).
// Scores fit 32 bits: a local score is at most 127 * min(m, n).
EndCell local_end(std::string_view query, std::string_view subject, const ScoringScheme& scoring) {
  const std::size_t m = query.size();
  const std::int32_t open_extend = scoring.gap_open() + scoring.gap_extend();
  const std::int32_t extend = scoring.gap_extend();
  // profile[m * c + i] = score(query[i], c): one contiguous row per subject code.
  std::vector<std::int32_t> profile(32 * m);
  for (std::size_t c = 0; c < 32; ++c)
    for (std::size_t i = 0; i < m; ++i)
      profile[m * c + i] = scoring.score(static_cast<std::uint8_t>(query[i]), static_cast<std::uint8_t>(c));
  std::vector<std::int32_t> h(m + 1, 0), e(m + 1, kMinusInfinity);  // column j - 1, then column j
  EndCell best;
  for (std::size_t j = 0; j < subject.size(); ++j) {
    const std::int32_t* scores = profile.data() + m * (static_cast<std::uint8_t>(subject[j]) & 31u);
    std::int32_t diagonal = 0;  // H(i - 1, j - 1)
    std::int32_t h_up = 0;      // H(i - 1, j)
    std::int32_t f = kMinusInfinity;
    for (std::size_t i = 1; i <= m; ++i) {
      const std::int32_t e_here = std::max(e[i] - extend, h[i] - open_extend);
      f = std::max(f - extend, h_up - open_extend);
      const std::int32_t h_here =
          std::max(std::max(diagonal + scores[i - 1], 0), std::max(e_here, f));
      diagonal = h[i];
      h[i] = h_here;
      e[i] = e_here;
      h_up = h_here;
      if (h_here > best.score) {
        best.score = h_here;
        best.query_last = i - 1;
        best.subject_last = j;
      }
    }
  }
  return best;
}

// Global alignment of a (rows, the query substring) against b (columns, the subject substring), with
// the local recurrence's gap rules: I = query residue against a gap (vertical), D = subject residue
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
    const std::int32_t open_extend = open_ + extend_;
    h[0] = ins[0] = -(open_ + static_cast<std::int32_t>(i) * extend_);
    if (tb) tb[0] = static_cast<std::uint8_t>(kFromI | (i > 1 ? kIExtends : 0));
    std::int32_t del = kMinusInfinity;
    const auto& scores = scoring_.matrix().row(static_cast<std::uint8_t>(a_[i - 1]));
    for (std::size_t j = 1; j < columns(); ++j) {
      const std::int32_t ins_extend = ins_above[j] - extend_;
      const std::int32_t ins_open = h_above[j] - open_extend;
      ins[j] = std::max(ins_extend, ins_open);
      const std::int32_t del_extend = del - extend_;
      const std::int32_t del_open = h[j - 1] - open_extend;
      del = std::max(del_extend, del_open);
      std::int32_t best = h_above[j - 1] + scores[static_cast<std::uint8_t>(b_[j - 1]) & 31u];
      std::uint8_t source = kFromM;
      if (ins[j] > best) {
        best = ins[j];
        source = kFromI;
      }
      if (del > best) {
        best = del;
        source = kFromD;
      }
      h[j] = best;
      if (tb)
        tb[j] = static_cast<std::uint8_t>(source | (ins_extend > ins_open ? kIExtends : 0) |
                                          (del_extend > del_open ? kDExtends : 0));
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
      if (i >= a.size() || j >= b.size()) throw std::logic_error("align_local: the operations overrun the sequences");
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
  if (i != a.size() || j != b.size()) throw std::logic_error("align_local: the operations do not span the alignment");
  return score;
}

}  // namespace

LocalAlignment align_local(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                           const AlignmentLimits& limits) {
  LocalAlignment alignment;
  const EndCell end = local_end(query_codes, subject_codes, scoring);
  if (end.score == 0) return alignment;

  // The start: the same pass over the reversed prefixes that end at the end cell.
  const std::string query_reversed(query_codes.rend() - static_cast<std::ptrdiff_t>(end.query_last + 1),
                                   query_codes.rend());
  const std::string subject_reversed(subject_codes.rend() - static_cast<std::ptrdiff_t>(end.subject_last + 1),
                                     subject_codes.rend());
  const EndCell start = local_end(query_reversed, subject_reversed, scoring);
  if (start.score != end.score)
    throw std::logic_error("align_local: the reverse pass scores " + std::to_string(start.score) +
                           ", the forward pass " + std::to_string(end.score));

  alignment.score = end.score;
  alignment.query_begin = static_cast<std::uint32_t>(end.query_last - start.query_last);
  alignment.subject_begin = static_cast<std::uint32_t>(end.subject_last - start.subject_last);
  alignment.query_end = static_cast<std::uint32_t>(end.query_last + 1);
  alignment.subject_end = static_cast<std::uint32_t>(end.subject_last + 1);

  const std::string_view a = query_codes.substr(alignment.query_begin, alignment.query_end - alignment.query_begin);
  const std::string_view b =
      subject_codes.substr(alignment.subject_begin, alignment.subject_end - alignment.subject_begin);
  std::int32_t global_score = 0;
  alignment.operations = GlobalAligner(a, b, scoring).align(limits, &global_score);
  const std::int64_t replayed = replay(a, b, scoring, alignment);
  if (global_score != end.score || replayed != end.score)
    throw std::logic_error("align_local: the traceback scores " + std::to_string(global_score) + " (replayed " +
                           std::to_string(replayed) + "), the forward pass " + std::to_string(end.score) +
                           " (query " + std::to_string(alignment.query_begin) + ".." +
                           std::to_string(alignment.query_end) + ", subject " +
                           std::to_string(alignment.subject_begin) + ".." + std::to_string(alignment.subject_end) +
                           ")");
  return alignment;
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
