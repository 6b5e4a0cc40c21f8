// The scoring of alignments: a substitution matrix (protein) or match / mismatch scores (nucleotide),
// and affine gap costs. A gap of length k costs gap_open + k * gap_extend (BLAST's convention; parasail
// and SSW charge open + (k-1) * extend, so their 12/1 is this 11/1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "warpsearch/common.hpp"

namespace warpsearch {
inline namespace v0 {

// What is not set takes the default of the sequence type, as on the command line: BLOSUM62 and gaps
// 11/1 for proteins; match 2, mismatch -3 and gaps 5/2 for nucleotides. Setting an option of the other
// type is an error (std::invalid_argument), e.g. "matrix is for protein databases; use match and mismatch".
// The scheme is checked where it is used: a gap open below 0, an extend below 1, open + extend above
// 127 or scores outside -128..127 throw std::invalid_argument with the command line's messages.
struct Scoring {
  // Protein: a built-in NCBI matrix (BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, BLOSUM90, PAM30, PAM70,
  // PAM250, any case) or the path of an NCBI-format matrix file. An existing file of that name wins.
  std::optional<std::string> matrix;
  std::optional<int> match;     // nucleotide
  std::optional<int> mismatch;  // nucleotide
  std::optional<int> gap_open;
  std::optional<int> gap_extend;
};

// The names of the built-in matrices.
std::vector<std::string> builtin_matrices();

}  // namespace v0
}  // namespace warpsearch
