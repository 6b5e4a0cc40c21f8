// DNA for translated-search tests: the reverse complement, and back-translation of a protein.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/alphabet.hpp"
#include "core/genetic_code.hpp"

namespace warpsearch::test {

// The reverse complement of nucleotide codes.
inline std::string reverse_complement(const std::string& codes) {
  std::string result(codes.rbegin(), codes.rend());
  for (auto& c : result) c = static_cast<char>(Alphabet::nucleotide().complement(static_cast<std::uint8_t>(c)));
  return result;
}

// Nucleotide codes of a protein's codes (the twenty amino acids), a random codon of the standard code
// for each, read from the code's 64-letter table.
inline std::string back_translate(const std::string& protein_codes, std::mt19937_64& rng) {
  const std::string_view table = GeneticCode::ncbi(1).amino_acids();
  const std::uint8_t ncbi_base_code[4] = {3, 1, 0, 2};  // T C A G as A C G T codes
  std::map<char, std::vector<std::string>> codons;
  for (std::size_t c = 0; c < 64; ++c)
    codons[table[c]].push_back({static_cast<char>(ncbi_base_code[c / 16]), static_cast<char>(ncbi_base_code[c / 4 % 4]),
                                static_cast<char>(ncbi_base_code[c % 4])});
  std::string dna;
  for (char code : protein_codes) {
    const auto& choices = codons.at(Alphabet::protein().decode(static_cast<std::uint8_t>(code)));
    dna += choices[rng() % choices.size()];
  }
  return dna;
}

}  // namespace warpsearch::test
