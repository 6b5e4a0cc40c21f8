// Seeded random sequences for the tests and the benchmarks (header-only, so that bench/ can use it
// without the test support library).
#pragma once

#include <cstddef>
#include <random>
#include <string>

namespace warpsearch::test {

// Seeded random residue codes of the given alphabet size (letters only, no padding).
inline std::string random_codes(std::mt19937_64& rng, std::size_t length, int alphabet_size) {
  std::uniform_int_distribution<int> pick(0, alphabet_size - 1);
  std::string codes(length, '\0');
  for (auto& c : codes) c = static_cast<char>(pick(rng));
  return codes;
}

// A copy of source (residue codes) with substitutions, insertions and deletions of 1..max_gap residues,
// each kind at rate / 3 per position: gapped, high-scoring pairs for alignment tests.
inline std::string mutated_codes(std::mt19937_64& rng, const std::string& source, int alphabet_size, double rate,
                                 int max_gap) {
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<int> letter(0, alphabet_size - 1);
  std::uniform_int_distribution<int> gap_length(1, max_gap);
  std::string out;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const double x = coin(rng);
    if (x < rate / 3) {
      out += static_cast<char>(letter(rng));
    } else if (x < 2 * rate / 3) {
      for (int k = gap_length(rng); k > 0; --k) out += static_cast<char>(letter(rng));
      out += source[i];
    } else if (x < rate) {
      i += static_cast<std::size_t>(gap_length(rng)) - 1;
    } else {
      out += source[i];
    }
  }
  return out;
}

}  // namespace warpsearch::test
