// The exact band of a global alignment (core/diagonal_band.hpp) from its score and the scoring, for the
// traceback's rows on the CPU (kernels/cpu/alignment.cpp) and the long-pair kernel's passes on the GPU
// (kernels/gpu/long_pair.hpp); docs/long_alignment.md, "Exact band".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/diagonal_band.hpp"
#include "profile/scoring.hpp"

namespace warpsearch {

// The band of a global alignment of rows x cols residues (the DP's columns 0..cols) whose optimal score
// is `score`; none where it would not exclude a column (or where the matrix's best score is so low that
// the bound below does not fall with the gaps). An alignment through cell (i, j) has at least
// g = |j - i| + |(cols - j) - (rows - i)| residues against gaps, hence (rows + cols - g) / 2 pairs, and
// scores at most max_score * (rows + cols - g) / 2 - extend * g - (g > 0 ? open : 0), open being the least
// a gap may open for (the scheme's, or less for a gap at a corner of a Myers-Miller half). Where that is below
// `score` no optimal alignment passes: the band is the diagonals whose g stays at or below the largest g
// at which the bound still reaches `score`.
std::optional<DiagonalBand> optimal_band(std::size_t rows, std::size_t cols, std::int64_t score,
                                         const ScoringScheme& scoring, std::int64_t open);

// A global score in bands (cpu::pair_span and the long-pair kernel's span in global mode): first a narrow
// band, guess_band: the diagonals between the two corners' (0 and cols - rows), widened on each side by
// 1/512 of the lengths (at least 32); none where that would hold over a third of the columns. Its banded
// score is a lower bound L of the optimum S. Then after_guess: when optimal_band(L) lies inside the guess,
// S = L (proven); else S is the banded score in optimal_band(L), which holds every alignment scoring L or
// more (no band: the whole DP).
std::optional<DiagonalBand> guess_band(std::size_t rows, std::size_t cols);

// The band of a local alignment's start pass (cpu::pair_span's step 2, the long-pair kernel's): over the
// reversed prefixes of rows x cols residues that end at the end found, every local alignment that scores
// `score` (the end's) begins at their origin (one that did not would end, forward, at a cell scoring as
// much before the end, which the end's tie-break excludes). Such an alignment has at most min(rows, cols)
// pairs, so with g residues against gaps it scores at most best * min(rows, cols) - open - extend * g
// (g > 0): g, and so its distance from the origin's diagonal, is at most (best * min - open - score) /
// extend. None where the scoring gives no such bound (extend 0, or no positive score).
std::optional<DiagonalBand> local_start_band(std::size_t rows, std::size_t cols, std::int64_t score,
                                             const ScoringScheme& scoring);

struct AfterGuess {
  bool proven = false;               // the guess's score is the optimum
  std::optional<DiagonalBand> band;  // else the band to compute it in
};
AfterGuess after_guess(std::size_t rows, std::size_t cols, std::int64_t guess_score, const DiagonalBand& guess,
                       const ScoringScheme& scoring);

}  // namespace warpsearch
