// BLOSUM62's tables for composition-based statistics (search/composition.cpp): its joint probabilities,
// background and frequency ratios as NCBI's composition_adjustment publishes them, over the residue codes
// of the protein alphabet; Robinson and Robinson's amino-acid frequencies; and BLAST's rounding. Read-only after their
// first use; safe from any thread.
#pragma once

#include <array>
#include <cstdint>

#include "search/composition.hpp"

namespace warpsearch::composition_tables {

constexpr int kTrue = 20;  // residue codes 0..19 are the 20 amino acids
constexpr std::uint8_t kB = 20, kJ = 21, kZ = 22, kX = 23, kStop = 24, kU = 25, kO = 26;
constexpr std::uint8_t kD = 3, kN = 2, kE = 6, kQ = 5;
constexpr int kLetters = 27;  // codes 0..26 (padding excluded)

// Rounding half away from zero, as BLAST rounds the adjusted scores and the reported raw score.
inline long nearest(double x) { return static_cast<long>(x >= 0 ? x + 0.5 : x - 0.5); }

// Robinson and Robinson's amino-acid frequencies (per 1000), BLAST's standard background, A R N D ... V.
inline constexpr double kRobinson[kTrue] = {78.05, 51.29, 44.87, 53.64, 19.25, 42.64, 62.95, 73.77, 21.99, 51.42,
                                            90.19, 57.44, 22.43, 38.56, 52.03, 71.20, 58.41, 13.30, 32.16, 64.41};

// BLOSUM62's joint probabilities (normalised to sum 1) with their marginals, and its frequency ratios
// over the codes 0..26 (U and O as X).
struct Tables {
  TargetFrequencies joint{};
  std::array<double, kTrue> background{};
  std::array<std::array<double, kLetters>, kLetters> ratio{};
  Tables();
};

// The tables, built on first use.
const Tables& tables();

}  // namespace warpsearch::composition_tables
