// blastp's X-drop realignment after composition-based statistics (see composition_xdrop.hpp).
#include "search/composition_xdrop.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace warpsearch {
namespace {

// A dead cell's score: far below any live one, and safe to add a few substitution scores to.
constexpr std::int64_t kDead = std::numeric_limits<std::int64_t>::min() / 4;

// Traceback byte of a cell: bits 0-1 where its score came from, bit 2 the horizontal gap leaving it
// extends one from before it (else it opens here), bit 3 the same for the vertical gap.
enum : std::uint8_t {
  kFromPair = 0,
  kFromQueryGap = 1,
  kFromSubjectGap = 2,
  kExtendsSubjectGap = 4,
  kExtendsQueryGap = 8
};
// kFromQueryGap: a query residue against a gap ('I', a vertical step); kFromSubjectGap: a subject
// residue against a gap ('D', a horizontal step).

constexpr std::size_t kWindow = 11;  // BLAST's HSP_MAX_WINDOW

}  // namespace

GappedExtension extend_gapped(const ScaledMatrix& matrix, std::string_view query, std::size_t query_origin,
                              std::size_t query_length, std::string_view subject, std::size_t subject_origin,
                              std::size_t subject_length, int step, const XdropRealignParameters& parameters) {
  GappedExtension result;
  const std::size_t m = query_length, n = subject_length;
  if (m == 0 || n == 0) return result;
  // Residue k (1-based) of each sequence, in the extension's direction.
  const auto query_code = [&](std::size_t k) {
    return static_cast<std::uint8_t>(query[step > 0 ? query_origin + k - 1 : query_origin + 1 - k]);
  };
  const auto subject_code = [&](std::size_t k) {
    return static_cast<std::uint8_t>(subject[step > 0 ? subject_origin + k - 1 : subject_origin + 1 - k]);
  };
  const std::int64_t extend = parameters.gap_extend, open_extend = parameters.gap_open + extend;
  const std::int64_t x = std::max<std::int64_t>(parameters.x_dropoff, open_extend);

  // h[b], v[b]: the score of the cell in column b of the last row computed, and of a vertical gap leaving
  // it. Row a's traceback bytes cover its columns [row_first[a], ...) from trace[row_offset[a]].
  std::vector<std::int64_t> h(n + 2, kDead), v(n + 2, kDead);
  std::vector<std::uint8_t> trace;
  std::vector<std::size_t> row_offset(m + 1, 0), row_first(m + 1, 0);
  h[0] = 0;
  v[0] = -open_extend;
  trace.push_back(kFromPair);
  std::size_t size = 1;  // columns [first, size) of the row are computed
  for (std::int64_t gap = -open_extend; size <= n && gap >= -x; gap -= extend, ++size) {
    h[size] = gap;
    v[size] = gap - open_extend;
    trace.push_back(kFromSubjectGap);
  }
  std::int64_t best = 0;
  std::size_t best_a = 0, best_b = 0, first = 0;
  for (std::size_t a = 1; a <= m; ++a) {
    row_offset[a] = trace.size();
    row_first[a] = first;
    const std::int32_t* scores = matrix.scores[query_code(a)].data();
    std::int64_t diagonal = kDead, horizontal = kDead;
    std::size_t last = first;
    for (std::size_t b = first; b < size; ++b) {
      std::int64_t vertical = v[b];
      const std::int64_t next = b < n ? h[b] + scores[subject_code(b + 1)] : kDead;
      std::uint8_t from = kFromPair;
      std::int64_t cell = diagonal;
      if (cell < vertical) from = kFromQueryGap, cell = vertical;
      if (cell < horizontal) from = kFromSubjectGap, cell = horizontal;
      if (best - cell > x) {
        // Dead: the row's live columns start after it, or it feeds nothing below.
        if (b == first)
          ++first;
        else
          h[b] = kDead;
      } else {
        last = b;
        if (cell > best) best = cell, best_a = a, best_b = b;
        horizontal -= extend;
        vertical -= extend;
        if (vertical < cell - open_extend)
          v[b] = cell - open_extend;
        else
          v[b] = vertical, from |= kExtendsQueryGap;
        if (horizontal < cell - open_extend)
          horizontal = cell - open_extend;
        else
          from |= kExtendsSubjectGap;
        h[b] = cell;
      }
      diagonal = next;
      trace.push_back(from);
    }
    if (first == size) break;
    if (parameters.max_cells > 0 && trace.size() > parameters.max_cells)
      throw std::length_error("X-drop realignment: more than " + std::to_string(parameters.max_cells) + " cells");
    if (last + 1 < size) {
      size = last + 1;
    } else {
      // The row's last cell lives: a gap continues it while it stays within X.
      for (; horizontal >= best - x && size <= n; horizontal -= extend, ++size) {
        h[size] = horizontal;
        v[size] = horizontal - open_extend;
        trace.push_back(kFromSubjectGap);
      }
    }
    // One more column for the next row, reached only by a pair from this row's last column.
    if (size <= n) {
      h[size] = kDead;
      v[size] = kDead;
      ++size;
    }
  }
  result.score = best;
  result.query_length = static_cast<std::uint32_t>(best_a);
  result.subject_length = static_cast<std::uint32_t>(best_b);
  std::size_t a = best_a, b = best_b;
  std::uint8_t state = kFromPair;
  while (a > 0 || b > 0) {
    const std::uint8_t t = trace[row_offset[a] + (b - row_first[a])];
    if (state == kFromSubjectGap && (t & kExtendsSubjectGap) != 0)
      state = kFromSubjectGap;
    else if (state == kFromQueryGap && (t & kExtendsQueryGap) != 0)
      state = kFromQueryGap;
    else
      state = t & 3;
    if (state == kFromSubjectGap) {
      --b;
      result.operations.push_back('D');
    } else if (state == kFromQueryGap) {
      --a;
      result.operations.push_back('I');
    } else {
      --a;
      --b;
      result.operations.push_back('M');
    }
  }
  std::reverse(result.operations.begin(), result.operations.end());
  return result;
}

ScaledAlignment xdrop_align(std::string_view query, std::string_view subject, std::size_t query_start,
                            std::size_t subject_start, const ScaledMatrix& matrix,
                            const XdropRealignParameters& parameters) {
  const GappedExtension left = extend_gapped(matrix, query, query_start, query_start + 1, subject, subject_start,
                                             subject_start + 1, -1, parameters);
  const GappedExtension right = extend_gapped(matrix, query, query_start + 1, query.size() - query_start - 1, subject,
                                              subject_start + 1, subject.size() - subject_start - 1, +1, parameters);
  ScaledAlignment result;
  result.score = left.score + right.score;
  result.query_begin = static_cast<std::uint32_t>(query_start + 1 - left.query_length);
  result.query_end = static_cast<std::uint32_t>(query_start + 1 + right.query_length);
  result.subject_begin = static_cast<std::uint32_t>(subject_start + 1 - left.subject_length);
  result.subject_end = static_cast<std::uint32_t>(subject_start + 1 + right.subject_length);
  result.operations.assign(left.operations.rbegin(), left.operations.rend());
  result.operations += right.operations;
  return result;
}

StartPoint gapped_start_point(std::string_view query, std::string_view subject, std::uint32_t query_begin,
                              std::uint32_t subject_begin, std::string_view operations, const ScaledMatrix& scores) {
  const auto score = [&](std::size_t i, std::size_t j) {
    return std::int64_t{scores.scores[static_cast<std::uint8_t>(query[i])][static_cast<std::uint8_t>(subject[j])]};
  };
  // The best ungapped stretch of the alignment (maximal sum over consecutive pairs of one segment
  // without gaps; the first of equal ones).
  StartPoint stretch{query_begin, subject_begin};
  std::size_t stretch_length = 0;
  std::int64_t stretch_score = std::numeric_limits<std::int64_t>::min();
  std::size_t i = query_begin, j = subject_begin;
  std::int64_t running = 0;
  std::size_t running_begin = 0;  // index, in the current segment, of the running stretch's first pair
  std::size_t run_length = 0;     // pairs so far in the current segment without gaps
  for (const char op : operations) {
    if (op != 'M') {
      run_length = 0;
      if (op == 'I')
        ++i;
      else
        ++j;
      continue;
    }
    if (run_length == 0 || running <= 0) running = 0, running_begin = run_length;
    running += score(i, j);
    ++run_length;
    if (running > stretch_score) {
      stretch_score = running;
      stretch_length = run_length - running_begin;
      stretch = {static_cast<std::uint32_t>(i + 1 - stretch_length),
                 static_cast<std::uint32_t>(j + 1 - stretch_length)};
    }
    ++i;
    ++j;
  }
  // blastp's start in its ungapped segment: the middle of the best window of 11 pairs.
  stretch.stretch_score = stretch_length > 0 ? stretch_score : 0;
  if (stretch_length <= kWindow) {
    const auto half = static_cast<std::uint32_t>(stretch_length / 2);
    return {stretch.query + half, stretch.subject + half, stretch.stretch_score};
  }
  std::int64_t window = 0;
  for (std::size_t k = 0; k < kWindow; ++k) window += score(stretch.query + k, stretch.subject + k);
  std::int64_t best_window = window;
  std::size_t best_end = kWindow - 1;
  for (std::size_t k = kWindow; k < stretch_length; ++k) {
    window += score(stretch.query + k, stretch.subject + k) -
              score(stretch.query + k - kWindow, stretch.subject + k - kWindow);
    if (window > best_window) best_window = window, best_end = k;
  }
  const std::size_t offset = best_window > 0 ? best_end - kWindow / 2 : 0;
  return {static_cast<std::uint32_t>(stretch.query + offset), static_cast<std::uint32_t>(stretch.subject + offset),
          stretch.stretch_score};
}

}  // namespace warpsearch
