// Scoring: substitution matrices and affine gap costs.
//
// The gap convention is written down once, here: a gap of length k costs open + k * extend
// (BLAST's convention; parasail and SSW charge open + (k-1) * extend, so their "12/1" is our 11/1).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/alphabet.hpp"

namespace warpsearch {

// Strong types, so that an open cost can never be passed where an extend cost is meant.
struct GapOpen {
  int value;
};
struct GapExtend {
  int value;
};

// A substitution matrix over an alphabet's codes (padding code included).
//
// scores(a, b) is defined for every pair of codes below kMaxCodes. Rows and columns of codes that are
// scored as another letter (protein U -> C, O -> X) are copies of that letter's row and column. The
// padding code scores min_score() against everything, so a kernel that reads past the end of a
// sequence can never raise a local alignment score.
class SubstitutionMatrix {
 public:
  // Built-in NCBI matrices: BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, BLOSUM90, PAM30, PAM70, PAM250
  // (case-insensitive). Throws std::invalid_argument naming the known matrices.
  static SubstitutionMatrix builtin(std::string_view name);
  // An NCBI-format matrix file (the format of BLAST's data/BLOSUM62): '#' comments, a header line of
  // letters, then one row per letter. Every one of the 25 letters ARNDCQEGHILKMFPSTWYVBJZX* must
  // be present. Throws std::runtime_error naming the file, line and problem.
  static SubstitutionMatrix from_file(const std::string& path);
  // Nucleotide scoring: match for equal bases among A C G T, mismatch otherwise; N scores blastn's
  // (match + 3 mismatch) / 4, rounded half away from zero, against everything, N included.
  static SubstitutionMatrix nucleotide(int match, int mismatch);
  // Names of the built-in matrices.
  static std::vector<std::string> builtin_names();

  const std::string& name() const { return name_; }  // "BLOSUM62", a file's path, "2/-3"
  SequenceType type() const { return type_; }
  const Alphabet& alphabet() const { return Alphabet::of(type_); }
  int score(std::uint8_t a, std::uint8_t b) const { return scores_[a][b]; }
  const std::array<std::int8_t, kMaxCodes>& row(std::uint8_t a) const { return scores_[a]; }
  int min_score() const { return min_; }
  int max_score() const { return max_; }

 private:
  SubstitutionMatrix() = default;
  void finish();  // fills the U/O/padding rows and min/max from the letter scores
  std::string name_;
  SequenceType type_ = SequenceType::protein;
  std::array<std::array<std::int8_t, kMaxCodes>, kMaxCodes> scores_{};
  int min_ = 0;
  int max_ = 0;
};

// A matrix and affine gap costs, validated on construction (std::invalid_argument with a message a
// user understands): open >= 0, extend >= 1, open + extend <= 127, scores within int8, at least one
// positive and one negative score.
class ScoringScheme {
 public:
  ScoringScheme(SubstitutionMatrix matrix, GapOpen open, GapExtend extend);

  const SubstitutionMatrix& matrix() const { return matrix_; }
  int gap_open() const { return open_; }
  int gap_extend() const { return extend_; }
  // The cost of a gap of length k >= 1: open + k * extend.
  long long gap_cost(long long k) const { return open_ + k * extend_; }
  int score(std::uint8_t a, std::uint8_t b) const { return matrix_.score(a, b); }

 private:
  SubstitutionMatrix matrix_;
  int open_;
  int extend_;
};

}  // namespace warpsearch
