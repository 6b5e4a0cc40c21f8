// Residue alphabets and their small integer codes.
//
// Every sequence inside warpsearch (database subjects, queries, profiles, kernels) is a string of
// residue codes, one byte each, always below kMaxCodes. The code order is the row order of the
// scoring matrices (profile/), so a code indexes a matrix row directly.
//
//   protein:    0..24 = A R N D C Q E G H I L K M F P S T W Y V B J Z X *   (NCBI matrix order)
//               25 = U (selenocysteine, scored as C), 26 = O (pyrrolysine, scored as X)
//   nucleotide: 0..4  = A C G T N; U is read as T, every other IUPAC ambiguity code as N
//
// Each alphabet also has a padding code (its letter count): packed subjects are padded with it to a
// word boundary, and the scoring tables give it a large negative score so that kernels may read past
// the end of a subject without changing any result.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace warpsearch {

enum class SequenceType : std::uint8_t { protein = 0, nucleotide = 1 };

inline constexpr int kMaxCodes = 32;  // every code, padding included, fits in 5 bits

class Alphabet {
 public:
  // What a byte of input means in this alphabet.
  static constexpr std::uint8_t kInvalid = 0xFF;  // not a residue: an error (or a skipped record)
  static constexpr std::uint8_t kIgnored = 0xFE;  // a byte FASTA allows inside sequence lines
                                                  // and that carries no residue: '*' at the end
                                                  // of a protein is handled by the reader

  static const Alphabet& protein();
  static const Alphabet& nucleotide();
  static const Alphabet& of(SequenceType type);

  SequenceType type() const { return type_; }
  const char* name() const { return type_ == SequenceType::protein ? "protein" : "nucleotide"; }
  // Number of residue codes (the padding code is this number).
  int size() const { return size_; }
  std::uint8_t pad_code() const { return static_cast<std::uint8_t>(size_); }
  // Code of an input byte (either case), or kInvalid.
  std::uint8_t encode(unsigned char c) const { return encode_[c]; }
  // Upper-case letter of a code (the padding code decodes to '#').
  char decode(std::uint8_t code) const { return code <= size_ ? decode_[code] : '?'; }
  // The code of the letter (in the matrix files' alphabet) a code is scored as: U -> C, O -> X.
  std::uint8_t scored_as(std::uint8_t code) const { return scored_as_[code]; }
  // The letters of the scoring alphabet, in code order ("ARND...*" or "ACGTN").
  std::string_view matrix_letters() const { return matrix_letters_; }
  // Complement of a nucleotide code (N stays N); identity for protein.
  std::uint8_t complement(std::uint8_t code) const { return complement_[code]; }

  std::string encode_string(std::string_view letters) const;  // throws on an invalid letter
  std::string decode_string(std::string_view codes) const;

 private:
  explicit Alphabet(SequenceType type);
  SequenceType type_;
  int size_;
  std::string_view matrix_letters_;
  std::array<std::uint8_t, 256> encode_{};
  std::array<char, kMaxCodes> decode_{};
  std::array<std::uint8_t, kMaxCodes> scored_as_{};
  std::array<std::uint8_t, kMaxCodes> complement_{};
};

// Guess the type of a sequence set from a sample of its residues (letters only, any case):
// nucleotide when at least 90% of the sample is A, C, G, T, U or N, else protein.
SequenceType guess_sequence_type(std::string_view sample);

}  // namespace warpsearch
