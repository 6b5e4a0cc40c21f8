// Genetic codes and reading frames: nucleotide codes to protein codes (core/alphabet.hpp), as BLAST+
// translates them for blastx, tblastn and tblastx.
//
// Codes: NCBI's genetic codes by number, 1-6, 9-16 and 21-33 (7 and 8 were merged into 4 and 1, 17-20
// were never assigned). Each is a table of 64 amino acids over the codons in NCBI's order (first base
// T C A G, then the second, then the third), '*' for a stop. A stop is translated to the protein code
// of '*', which the scoring matrices score with their own '*' row (BLOSUM62: * against * 1, against
// anything else -4), as BLAST does.
//
// Ambiguous codons. The nucleotide alphabet keeps A C G T and N only (every other IUPAC ambiguity code
// is read as N). A codon with an N translates to the amino acid that every one of its resolutions
// (N = A, C, G or T) translates to, and to X when they disagree: GGN is G, CTN is L (standard code),
// TAN is X (TAT/TAC Y, TAA/TAG stop). BLAST applies the same rule to the IUPAC codes themselves, so a
// codon with R, Y, ... (which reads here as N) may translate to X here where BLAST finds one amino acid
// (AAR: K in BLAST, AAN: X here, since AAC and AAT are N).
//
// Frames, with BLAST's numbering: +1, +2, +3 translate the plus strand from its 1st, 2nd and 3rd base;
// -1, -2, -3 translate the reverse complement from its 1st, 2nd and 3rd base (the plus strand's last,
// last but one, last but two). A frame translates whole codons only: a frame of a sequence of n bases
// that starts at offset o = |frame| - 1 holds (n - o) / 3 amino acids (0 when n <= o).
//
// Thread safety: GeneticCode objects are immutable; the free functions are pure.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpsearch {

class GeneticCode {
 public:
  // NCBI's genetic code `id`; throws std::invalid_argument naming the valid numbers for any other.
  static const GeneticCode& ncbi(int id);
  // The numbers NCBI defines, ascending.
  static std::vector<int> ids();

  int id() const { return id_; }
  const std::string& name() const { return name_; }  // "Standard", "Vertebrate Mitochondrial", ...
  // The 64 amino-acid letters, NCBI's ncbieaa string (codons in TCAG order).
  std::string_view amino_acids() const { return amino_acids_; }

  // The protein code of the codon of nucleotide codes (A C G T N = 0..4) b1 b2 b3; every code above 4
  // counts as N.
  std::uint8_t translate(std::uint8_t b1, std::uint8_t b2, std::uint8_t b3) const {
    return table_[index(b1) * 25 + index(b2) * 5 + index(b3)];
  }

 private:
  GeneticCode(int id, std::string name, std::string amino_acids);
  static unsigned index(std::uint8_t code) { return code < 4 ? code : 4u; }
  int id_;
  std::string name_;
  std::string amino_acids_;
  std::array<std::uint8_t, 125> table_{};  // [b1 * 25 + b2 * 5 + b3], A C G T N = 0..4
};

// BLAST's frames in BLAST's order: +1, +2, +3, -1, -2, -3; frame_index() is the position in it.
inline constexpr int kReadingFrames[6] = {1, 2, 3, -1, -2, -3};
inline int frame_index(int frame) { return frame > 0 ? frame - 1 : 2 - frame; }

// Amino acids in a frame of a sequence of `bases` nucleotides.
inline std::uint64_t frame_length(std::uint64_t bases, int frame) {
  const std::uint64_t offset = static_cast<std::uint64_t>(frame > 0 ? frame - 1 : -frame - 1);
  return bases > offset ? (bases - offset) / 3 : 0;
}

// The protein codes of one frame (+1..+3, -1..-3) of nucleotide codes. Throws std::invalid_argument
// for another frame number.
std::string translate_frame(std::string_view nucleotide_codes, int frame, const GeneticCode& code);
// The same into out[0, frame_length(size, frame)), without allocating; or only its amino acids
// [first, last) into out[first, last) (pieces of a long frame translated on several threads).
void translate_frame(const char* nucleotide_codes, std::size_t size, int frame, const GeneticCode& code, char* out);
void translate_frame(const char* nucleotide_codes, std::size_t size, int frame, const GeneticCode& code, char* out,
                     std::size_t first, std::size_t last);

// Amino acids [begin, end) of a frame of a sequence of `bases` nucleotides, as BLAST prints them: the
// 1-based first and last base of the codons, start > end on minus frames (start is the first base of
// the first codon on the strand read).
struct NucleotideSpan {
  std::uint64_t start = 0, end = 0;
};
NucleotideSpan nucleotide_span(int frame, std::uint64_t begin, std::uint64_t end, std::uint64_t bases);

}  // namespace warpsearch
