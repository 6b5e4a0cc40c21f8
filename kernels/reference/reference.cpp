#include "kernels/reference/reference.hpp"

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

Span local_end(std::string_view query, std::string_view subject, const ScoringScheme& scoring) {
  const std::int64_t open_extend = scoring.gap_open() + scoring.gap_extend();
  const std::int64_t extend = scoring.gap_extend();
  const std::size_t m = query.size();

  // Column j - 1 and column j of the Gotoh matrices, indexed by query position 0..m (row 0 is the
  // empty query prefix). H = best local score of an alignment ending at the cell; E = ... ending with
  // a subject residue against a gap (a horizontal gap); F = ... ending with a query residue against a
  // gap (a vertical gap).
  std::vector<std::int64_t> h_left(m + 1, 0), e_left(m + 1, kMinusInfinity);
  std::vector<std::int64_t> h(m + 1, 0), e(m + 1, kMinusInfinity);

  Span best;
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

std::vector<std::int64_t> column_maxima(std::string_view query, std::string_view subject,
                                        const ScoringScheme& scoring) {
  const std::int64_t first = scoring.gap_open() + scoring.gap_extend(), extend = scoring.gap_extend();
  std::vector<std::int64_t> h(query.size() + 1, 0), e(query.size() + 1, kMinusInfinity), maxima(subject.size(), 0);
  for (std::size_t j = 0; j < subject.size(); ++j) {
    std::int64_t diagonal = 0, f = kMinusInfinity;
    for (std::size_t i = 1; i <= query.size(); ++i) {
      e[i] = std::max(e[i] - extend, h[i] - first);
      f = std::max(f - extend, h[i - 1] - first);
      const std::int64_t value = std::max(
          {std::int64_t{0},
           diagonal + scoring.score(static_cast<std::uint8_t>(query[i - 1]), static_cast<std::uint8_t>(subject[j])),
           e[i], f});
      diagonal = h[i];
      h[i] = value;
      maxima[j] = std::max(maxima[j], value);
    }
  }
  return maxima;
}

Span local_span(std::string_view query, std::string_view subject, const ScoringScheme& scoring) {
  Span span = local_end(query, subject, scoring);
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
      const std::int64_t next_diagonal = anchor ? 0 : std::max({m_below[j + 1], i_below[j + 1], d_below[j + 1]});
      m_row[j] = substitution(scoring, query[i], subject[j]) + next_diagonal;
      if (next_diagonal <= kMinusInfinity / 2) m_row[j] = kMinusInfinity;
      i_row[j] = -extend + std::max({i_below[j], m_below[j] - open, d_below[j] - open});
      d_row[j] = -extend + std::max({d_row[j + 1], m_row[j + 1] - open, i_row[j + 1] - open});
      if (m_row[j] > span.score) throw std::logic_error("reference::local_span: an alignment beats the local optimum");
      // Largest subject start, then largest query start.
      if (m_row[j] == span.score && (!found || j > start_subject || (j == start_subject && i > start_query))) {
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

namespace {

// H(m, j) for j = 0..n: the best score of an alignment of the whole query with subject[0, j) (global),
// or with any subject substring ending at j (semiglobal: row 0 is free instead of one gap).
std::vector<std::int64_t> last_row(std::string_view query, std::string_view subject, const ScoringScheme& scoring,
                                   bool free_subject_ends) {
  const std::int64_t open = scoring.gap_open();
  const std::int64_t extend = scoring.gap_extend();
  const std::size_t m = query.size();
  // Columns j - 1 and j, as in local_end; column 0 is the query against nothing: one vertical gap.
  std::vector<std::int64_t> h_left(m + 1), e_left(m + 1, kMinusInfinity);
  std::vector<std::int64_t> h(m + 1), e(m + 1, kMinusInfinity);
  h_left[0] = 0;
  for (std::size_t i = 1; i <= m; ++i) h_left[i] = -(open + static_cast<std::int64_t>(i) * extend);

  std::vector<std::int64_t> last(subject.size() + 1);
  last[0] = h_left[m];
  for (std::size_t j = 1; j <= subject.size(); ++j) {
    h[0] = free_subject_ends ? 0 : -(open + static_cast<std::int64_t>(j) * extend);
    e[0] = kMinusInfinity;
    std::int64_t f = kMinusInfinity;
    for (std::size_t i = 1; i <= m; ++i) {
      e[i] = std::max(e_left[i] - extend, h_left[i] - open - extend);
      f = std::max(f - extend, h[i - 1] - open - extend);
      h[i] = std::max({h_left[i - 1] + substitution(scoring, query[i - 1], subject[j - 1]), e[i], f});
    }
    last[j] = h[m];
    std::swap(h, h_left);
    std::swap(e, e_left);
  }
  return last;
}

// The largest subject start b such that a global alignment of the whole query with subject[b, end)
// scores `score`, found backward from the grid point (m, end):
//   H(i, j) = the best score of a path from grid point (i, j) to (m, end), the column before (i, j)
//             not being a gap (so a gap first column pays open);
//   I(i, j) = the same, the column before being a query residue against a gap (extending it is free
//             of open), D(i, j) = the same for a subject residue against a gap.
std::uint32_t semiglobal_start(std::string_view query, std::string_view subject, std::size_t end, std::int64_t score,
                               const ScoringScheme& scoring) {
  const std::int64_t open = scoring.gap_open();
  const std::int64_t extend = scoring.gap_extend();
  const std::size_t m = query.size();
  std::vector<std::int64_t> h_below(end + 1), i_below(end + 1), d_below(end + 1);
  std::vector<std::int64_t> h(end + 1), ins(end + 1), del(end + 1);
  for (std::size_t i = m + 1; i-- > 0;) {
    for (std::size_t j = end + 1; j-- > 0;) {
      if (i == m && j == end) {
        h[j] = ins[j] = del[j] = 0;
        continue;
      }
      const std::int64_t diagonal =
          i < m && j < end ? substitution(scoring, query[i], subject[j]) + h_below[j + 1] : kMinusInfinity;
      const std::int64_t down = i < m ? i_below[j] : kMinusInfinity;     // next column: query residue i vs gap
      const std::int64_t right = j < end ? del[j + 1] : kMinusInfinity;  // next column: subject residue j vs gap
      h[j] = std::max({diagonal, down - open - extend, right - open - extend});
      ins[j] = std::max({diagonal, down - extend, right - open - extend});
      del[j] = std::max({diagonal, down - open - extend, right - extend});
    }
    std::swap(h, h_below);
    std::swap(ins, i_below);
    std::swap(del, d_below);
  }
  // h_below is now row 0.
  for (std::size_t j = end + 1; j-- > 0;) {
    if (h_below[j] > score)
      throw std::logic_error("reference::span: a semi-global alignment beats the forward optimum");
    if (h_below[j] == score) return static_cast<std::uint32_t>(j);
  }
  throw std::logic_error("reference::span: no semi-global alignment reaches the end's score");
}

}  // namespace

Span span(std::string_view query, std::string_view subject, const ScoringScheme& scoring, AlignmentMode mode) {
  require_table_mode(mode, "reference::span");
  if (mode == AlignmentMode::local) return local_span(query, subject, scoring);
  const bool semiglobal = mode == AlignmentMode::semiglobal;
  Span result;
  if (semiglobal && query.empty()) return result;
  const std::vector<std::int64_t> last = last_row(query, subject, scoring, semiglobal);
  std::size_t end = subject.size();
  if (semiglobal) {
    // The smallest subject end among the maximal ones.
    end = 0;
    for (std::size_t j = 1; j < last.size(); ++j)
      if (last[j] > last[end]) end = j;
  }
  result.score = last[end];
  result.query_end = static_cast<std::uint32_t>(query.size());
  result.subject_end = static_cast<std::uint32_t>(end);
  if (semiglobal) result.subject_begin = semiglobal_start(query, subject, end, result.score, scoring);
  return result;
}

std::vector<Span> local_hsps(std::string_view query, std::string_view subject, const ScoringScheme& scoring,
                             std::int64_t cutoff) {
  std::vector<Span> hsps;
  std::vector<std::pair<std::size_t, std::size_t>> regions{{0, subject.size()}};
  while (!regions.empty()) {
    const auto [begin, end] = regions.back();
    regions.pop_back();
    if (begin >= end) continue;
    Span best = local_span(query, subject.substr(begin, end - begin), scoring);
    if (best.score < std::max<std::int64_t>(cutoff, 1)) continue;
    best.subject_begin += static_cast<std::uint32_t>(begin);
    best.subject_end += static_cast<std::uint32_t>(begin);
    hsps.push_back(best);
    regions.emplace_back(begin, best.subject_begin);
    regions.emplace_back(best.subject_end, end);
  }
  std::sort(hsps.begin(), hsps.end(), [](const Span& a, const Span& b) {
    return a.score != b.score ? a.score > b.score : a.subject_begin < b.subject_begin;
  });
  return hsps;
}

}  // namespace warpsearch::reference
