#include "profile/exact_band.hpp"

#include <algorithm>

namespace warpsearch {

std::optional<DiagonalBand> optimal_band(std::size_t rows, std::size_t cols, std::int64_t score,
                                         const ScoringScheme& scoring, std::int64_t open) {
  // The matrix's best score is every code's: other codes copy a letter's scores, padding scores the
  // minimum (profile/scoring.cpp).
  const std::int64_t best = scoring.matrix().max_score();
  const std::int64_t extend = scoring.gap_extend();
  if (best + 2 * extend <= 0) return std::nullopt;
  const auto m = static_cast<std::int64_t>(rows), n = static_cast<std::int64_t>(cols);
  // The largest g with best * (m + n - g) - 2 * extend * g - 2 * open * [g > 0] >= 2 * score.
  const std::int64_t reach = best * (m + n) - 2 * open - 2 * score;
  const std::int64_t gaps = reach >= 0 ? reach / (best + 2 * extend) : best * (m + n) >= 2 * score ? 0 : -1;
  const std::int64_t skew = n - m, least = skew < 0 ? -skew : skew;  // the gaps of every alignment
  if (gaps < least) return std::nullopt;  // only where the score is not the optimum (the caller's check fails)
  const std::int64_t half = (gaps - least) / 2;
  const DiagonalBand band{std::min<std::int64_t>(0, skew) - half, std::max<std::int64_t>(0, skew) + half};
  if (band.low <= -m && band.high >= n) return std::nullopt;
  return band;
}

std::optional<DiagonalBand> guess_band(std::size_t rows, std::size_t cols) {
  const auto m = static_cast<std::int64_t>(rows), n = static_cast<std::int64_t>(cols);
  const std::int64_t widen = std::max<std::int64_t>(32, (m + n) / 512);
  const DiagonalBand guess{std::min<std::int64_t>(0, n - m) - widen, std::max<std::int64_t>(0, n - m) + widen};
  if (rows == 0 || guess.width() * 3 > cols + 1) return std::nullopt;
  return guess;
}

std::optional<DiagonalBand> local_start_band(std::size_t rows, std::size_t cols, std::int64_t score,
                                             const ScoringScheme& scoring) {
  const std::int64_t best = scoring.matrix().max_score(), extend = scoring.gap_extend();
  if (best <= 0 || extend <= 0) return std::nullopt;
  const std::int64_t reach = best * static_cast<std::int64_t>(std::min(rows, cols)) - score;
  const std::int64_t gaps = reach < scoring.gap_open() + extend ? 0 : (reach - scoring.gap_open()) / extend;
  return DiagonalBand{-gaps, gaps};
}

AfterGuess after_guess(std::size_t rows, std::size_t cols, std::int64_t guess_score, const DiagonalBand& guess,
                       const ScoringScheme& scoring) {
  AfterGuess after;
  after.band = optimal_band(rows, cols, guess_score, scoring, scoring.gap_open());
  after.proven = after.band && after.band->low >= guess.low && after.band->high <= guess.high;
  return after;
}

}  // namespace warpsearch
