#include "kernels/reference.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsearch::reference {
namespace {

// "Minus infinity": far below any reachable score, and safe to subtract gap costs from.
constexpr std::int64_t kMinusInfinity = std::numeric_limits<std::int64_t>::min() / 4;

std::int64_t substitution(const ScoringScheme& scoring, char query_code, char subject_code) {
  return scoring.score(static_cast<std::uint8_t>(query_code), static_cast<std::uint8_t>(subject_code));
}

}  // namespace

LocalSpan local_end(std::string_view query, std::string_view subject, const ScoringScheme& scoring) {
  const std::int64_t open_extend = scoring.gap_open() + scoring.gap_extend();
  const std::int64_t extend = scoring.gap_extend();
  const std::size_t m = query.size();

  // Column j - 1 and column j of the Gotoh matrices, indexed by query position 0..m (row 0 is the
  // empty query prefix). H = best local score of an alignment ending at the cell; E = ... ending with
  // a subject residue against a gap (a horizontal gap); F = ... ending with a query residue against a
  // gap (a vertical gap).
  std::vector<std::int64_t> h_left(m + 1, 0), e_left(m + 1, kMinusInfinity);
  std::vector<std::int64_t> h(m + 1, 0), e(m + 1, kMinusInfinity);

  LocalSpan best;
  for (std::size_t j = 1; j <= subject.size(); ++j) {
    h[0] = 0;
    e[0] = kMinusInfinity;
    std::int64_t f = kMinusInfinity;
    for (std::size_t i = 1; i <= m; ++i) {
      e[i] = std::max(e_left[i] - extend, h_left[i] - open_extend);
      f = std::max(f - extend, h[i - 1] - open_extend);
      const std::int64_t diagonal = h_left[i - 1] + substitution(scoring, query[i - 1], subject[j - 1]);
      h[i] = std::max({std::int64_t{0}, diagonal, e[i], f});
      // Visiting j in increasing order, i in increasing order, and replacing only on a strictly
      // larger score keeps the smallest subject position, then the smallest query position.
      if (h[i] > best.score) {
        best.score = h[i];
        best.query_end = static_cast<std::uint32_t>(i);
        best.subject_end = static_cast<std::uint32_t>(j);
      }
    }
    std::swap(h, h_left);
    std::swap(e, e_left);
  }
  return best;
}

std::int64_t local_score(std::string_view query, std::string_view subject, const ScoringScheme& scoring) {
  return local_end(query, subject, scoring).score;
}

LocalSpan local_span(std::string_view query, std::string_view subject, const ScoringScheme& scoring) {
  LocalSpan span = local_end(query, subject, scoring);
  if (span.score == 0) return span;
  const std::int64_t open = scoring.gap_open();
  const std::int64_t extend = scoring.gap_extend();
  // 0-based end pair, inclusive.
  const std::size_t query_last = span.query_end - 1;
  const std::size_t subject_last = span.subject_end - 1;

  // Backward over the rectangle [0, query_last] x [0, subject_last], anchored at the end pair:
  //   M(i, j) = best score of an alignment of query[i..query_last], subject[j..subject_last] that
  //             begins with the pair (i, j) and ends with the pair (query_last, subject_last);
  //   I(i, j) = the same, beginning with query residue i against a gap;
  //   D(i, j) = the same, beginning with subject residue j against a gap.
  // A gap run pays extend per column and open once (charged where the run gives way to another column).
  const std::size_t width = subject_last + 2;  // columns 0..subject_last, plus a minus-infinity border
  std::vector<std::int64_t> m_below(width, kMinusInfinity), i_below(width, kMinusInfinity),
      d_below(width, kMinusInfinity);
  std::vector<std::int64_t> m_row(width), i_row(width), d_row(width);

  bool found = false;
  std::size_t start_query = 0, start_subject = 0;
  for (std::size_t i = query_last + 1; i-- > 0;) {
    m_row[subject_last + 1] = i_row[subject_last + 1] = d_row[subject_last + 1] = kMinusInfinity;
    for (std::size_t j = subject_last + 1; j-- > 0;) {
      const bool anchor = i == query_last && j == subject_last;
      const std::int64_t next_diagonal =
          anchor ? 0 : std::max({m_below[j + 1], i_below[j + 1], d_below[j + 1]});
      m_row[j] = substitution(scoring, query[i], subject[j]) + next_diagonal;
      if (next_diagonal <= kMinusInfinity / 2) m_row[j] = kMinusInfinity;
      i_row[j] = -extend + std::max({i_below[j], m_below[j] - open, d_below[j] - open});
      d_row[j] = -extend + std::max({d_row[j + 1], m_row[j + 1] - open, i_row[j + 1] - open});
      if (m_row[j] > span.score)
        throw std::logic_error("reference::local_span: an alignment beats the local optimum");
      // Largest subject start, then largest query start.
      if (m_row[j] == span.score &&
          (!found || j > start_subject || (j == start_subject && i > start_query))) {
        found = true;
        start_query = i;
        start_subject = j;
      }
    }
    std::swap(m_row, m_below);
    std::swap(i_row, i_below);
    std::swap(d_row, d_below);
  }
  if (!found) throw std::logic_error("reference::local_span: no alignment reaches the end cell's score");
  span.query_begin = static_cast<std::uint32_t>(start_query);
  span.subject_begin = static_cast<std::uint32_t>(start_subject);
  return span;
}

}  // namespace warpsearch::reference
