#include "kernels/reference/reference_xdrop.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsearch {
namespace {

constexpr std::int64_t kMinusInfinity = std::numeric_limits<std::int64_t>::min() / 4;

}  // namespace

std::int64_t seed_score(std::string_view query, std::string_view target, const Seed& seed,
                        const ScoringScheme& scoring) {
  if (std::uint64_t{seed.query_begin} + seed.length > query.size() ||
      std::uint64_t{seed.target_begin} + seed.length > target.size())
    throw std::out_of_range("the seed (query " + std::to_string(seed.query_begin + 1) + ", target " +
                            std::to_string(seed.target_begin + 1) + ", length " + std::to_string(seed.length) +
                            ") does not fit the query (" + std::to_string(query.size()) +
                            " residues) and the target (" + std::to_string(target.size()) + " residues)");
  // In the middle of both sequences, an empty seed would let both extensions begin with the same kind of
  // gap: two gaps that, put together, are one gap scored differently from the sum of the extensions.
  if (seed.length == 0 && seed.query_begin > 0 && seed.target_begin > 0 && seed.query_begin < query.size() &&
      seed.target_begin < target.size())
    throw std::invalid_argument("an empty seed (length 0) must touch the start or the end of the query or the target");
  std::int64_t score = 0;
  for (std::uint32_t k = 0; k < seed.length; ++k)
    score += scoring.score(static_cast<std::uint8_t>(query[seed.query_begin + k]),
                           static_cast<std::uint8_t>(target[seed.target_begin + k]));
  return score;
}

namespace reference {

Extension extend_reference(std::string_view query, std::string_view target, const ScoringScheme& scoring, XDrop x) {
  if (x.value < 0) throw std::invalid_argument("the X-drop must be at least 0, not " + std::to_string(x.value));
  const std::int64_t open_extend = scoring.gap_open() + scoring.gap_extend();
  const std::int64_t extend = scoring.gap_extend();
  const std::size_t m = query.size(), n = target.size();

  // Three anti-diagonals (d - 2, d - 1, d), each indexed by the query position i = 0..m; the target
  // position is j = d - i. Cells outside the matrix stay minus infinity.
  struct AntiDiagonal {
    std::vector<std::int64_t> h, e, f;
    explicit AntiDiagonal(std::size_t size)
        : h(size, kMinusInfinity), e(size, kMinusInfinity), f(size, kMinusInfinity) {}
  };
  AntiDiagonal before_previous(m + 1), previous(m + 1), current(m + 1);

  Extension result;       // the origin: score 0, nothing consumed
  std::int64_t best = 0;  // best live H of the anti-diagonals finished so far
  bool previous_all_dead = false;
  for (std::size_t d = 0; d <= m + n; ++d) {
    std::int64_t diagonal_best = kMinusInfinity;
    std::size_t diagonal_best_i = 0;
    bool all_dead = true;
    for (std::size_t i = 0; i <= m; ++i) {
      std::int64_t h = kMinusInfinity, e = kMinusInfinity, f = kMinusInfinity;
      if (i <= d && d - i <= n) {
        const std::size_t j = d - i;
        if (d == 0) {
          h = 0;
        } else {
          if (j >= 1) e = std::max(previous.e[i] - extend, previous.h[i] - open_extend);          // from (i, j-1)
          if (i >= 1) f = std::max(previous.f[i - 1] - extend, previous.h[i - 1] - open_extend);  // from (i-1, j)
          std::int64_t match = kMinusInfinity;
          if (i >= 1 && j >= 1 && before_previous.h[i - 1] > kMinusInfinity / 2)
            match = before_previous.h[i - 1] +
                    scoring.score(static_cast<std::uint8_t>(query[i - 1]), static_cast<std::uint8_t>(target[j - 1]));
          h = std::max({match, e, f});
        }
        // Dead: too far below the best, or unreachable from a live cell.
        if (h <= kMinusInfinity / 2 || h < best - x.value) {
          h = e = f = kMinusInfinity;
        } else {
          all_dead = false;
          if (h > diagonal_best) {
            diagonal_best = h;
            diagonal_best_i = i;
          }
        }
      }
      current.h[i] = h;
      current.e[i] = e;
      current.f[i] = f;
    }
    if (!all_dead && diagonal_best > result.score) {
      result.score = diagonal_best;
      result.query_length = static_cast<std::uint32_t>(diagonal_best_i);
      result.target_length = static_cast<std::uint32_t>(d - diagonal_best_i);
    }
    if (!all_dead) best = std::max(best, diagonal_best);
    if (all_dead && previous_all_dead) break;
    previous_all_dead = all_dead;
    std::swap(before_previous, previous);
    std::swap(previous, current);
  }
  return result;
}

XdropSpan xdrop_reference(std::string_view query, std::string_view target, const Seed& seed,
                          const ScoringScheme& scoring, XDrop x) {
  XdropSpan span;
  span.seed_score = seed_score(query, target, seed, scoring);
  const std::string query_prefix(query.rend() - seed.query_begin, query.rend());
  const std::string target_prefix(target.rend() - seed.target_begin, target.rend());
  span.left = extend_reference(query_prefix, target_prefix, scoring, x);
  span.right = extend_reference(query.substr(seed.query_begin + seed.length),
                                target.substr(seed.target_begin + seed.length), scoring, x);
  span.score = span.seed_score + span.left.score + span.right.score;
  span.query_begin = seed.query_begin - span.left.query_length;
  span.subject_begin = seed.target_begin - span.left.target_length;
  span.query_end = seed.query_begin + seed.length + span.right.query_length;
  span.subject_end = seed.target_begin + seed.length + span.right.target_length;
  return span;
}

}  // namespace reference
}  // namespace warpsearch
