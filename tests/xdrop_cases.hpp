// X-drop test cases shared by the CPU emulation of the GPU engine (tests/test_xdrop_gpu_logic.cpp) and
// the GPU test (tests/gpu_test_xdrop.cu): scoring schemes, random and planted pairs with seeds anywhere
// (ends included), and read pairs as the benchmark simulates them. Header-only (the GPU test is compiled
// by nvcc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/reference/reference_xdrop.hpp"
#include "profile/scoring.hpp"
#include "tests/random_sequences.hpp"

namespace warpsearch::test::xdrop_cases {

inline ScoringScheme dna(int match, int mismatch, int open, int extend) {
  return ScoringScheme(SubstitutionMatrix::nucleotide(match, mismatch), GapOpen{open}, GapExtend{extend});
}

inline ScoringScheme protein(const char* matrix, int open, int extend) {
  return ScoringScheme(SubstitutionMatrix::builtin(matrix), GapOpen{open}, GapExtend{extend});
}

inline int letters_of(const ScoringScheme& scoring) {
  return scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20;
}

struct Case {
  std::string query, target;
  Seed seed;
};

// A seed inside both sequences (any length that fits, at least 1), or one touching an end.
inline Seed random_seed(std::mt19937_64& rng, std::size_t m, std::size_t n) {
  const std::size_t shortest = std::min(m, n);
  switch (rng() % 6) {
    case 0: return Seed{0, 0, 0};
    case 1: return Seed{static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(n), 0};
    case 2: return Seed{0, static_cast<std::uint32_t>(rng() % (n + 1)), 0};
    case 3:
      if (shortest > 0) return Seed{static_cast<std::uint32_t>(m - 1), static_cast<std::uint32_t>(n - 1), 1};
      return Seed{0, 0, 0};
    default: {
      if (shortest == 0) return Seed{0, 0, 0};
      const auto length = static_cast<std::uint32_t>(1 + rng() % std::min<std::size_t>(shortest, 12));
      return Seed{static_cast<std::uint32_t>(rng() % (m - length + 1)),
                  static_cast<std::uint32_t>(rng() % (n - length + 1)), length};
    }
  }
}

// Random pairs and pairs with planted similarity (a shared core, mutated in the target, random flanks,
// the seed at the start of the core).
inline std::vector<Case> make_cases(std::mt19937_64& rng, int letters, int count, std::size_t max_length) {
  std::vector<Case> cases;
  for (int k = 0; k < count; ++k) {
    Case c;
    if (k % 3 == 0) {
      c.query = test::random_codes(rng, rng() % (max_length + 1), letters);
      c.target = test::random_codes(rng, rng() % (max_length + 1), letters);
      c.seed = random_seed(rng, c.query.size(), c.target.size());
    } else {
      const std::size_t core_length = 10 + rng() % std::max<std::size_t>(1, max_length / 2);
      const std::string core = test::random_codes(rng, core_length, letters);
      const std::string query_flank = test::random_codes(rng, rng() % (max_length / 4 + 1), letters);
      const std::string target_flank = test::random_codes(rng, rng() % (max_length / 4 + 1), letters);
      c.query = query_flank + core + test::random_codes(rng, rng() % (max_length / 4 + 1), letters);
      const std::string mutated = test::mutated_codes(rng, core, letters, 0.05 + 0.1 * (k % 4), 5);
      c.target = target_flank + mutated + test::random_codes(rng, rng() % (max_length / 4 + 1), letters);
      const auto length =
          static_cast<std::uint32_t>(std::min<std::size_t>({1 + rng() % 8, core.size(), mutated.size()}));
      c.seed =
          Seed{static_cast<std::uint32_t>(query_flank.size()), static_cast<std::uint32_t>(target_flank.size()), length};
      if (k % 7 == 0) c.seed = random_seed(rng, c.query.size(), c.target.size());
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Read pairs as the benchmark simulates them (bench/align_make_data.py): two copies of a region, each
// mutated on its own, around an intact shared 17-mer that is the seed.
inline Case read_pair(std::mt19937_64& rng, std::size_t length, double divergence) {
  const std::size_t half = length / 2;
  const std::string left = test::random_codes(rng, half, 4), right = test::random_codes(rng, length - half - 17, 4);
  const std::string seed = test::random_codes(rng, 17, 4);
  Case c;
  const std::string query_left = test::mutated_codes(rng, left, 4, divergence / 2, 3);
  const std::string target_left = test::mutated_codes(rng, left, 4, divergence / 2, 3);
  c.query = query_left + seed + test::mutated_codes(rng, right, 4, divergence / 2, 3);
  c.target = target_left + seed + test::mutated_codes(rng, right, 4, divergence / 2, 3);
  c.seed = Seed{static_cast<std::uint32_t>(query_left.size()), static_cast<std::uint32_t>(target_left.size()), 17};
  return c;
}

inline const std::vector<ScoringScheme>& schemes() {
  static const std::vector<ScoringScheme> all = {
      dna(1, -1, 0, 1),           dna(2, -3, 5, 2),       dna(1, -2, 2, 1),        protein("BLOSUM62", 11, 1),
      protein("BLOSUM45", 14, 2), protein("PAM30", 9, 1), protein("PAM250", 10, 3)};
  return all;
}

}  // namespace warpsearch::test::xdrop_cases
