// SEG: low-complexity regions of protein sequences (Wootton and Federhen, Comput. Chem. 17:149, 1993;
// Methods Enzymol. 266:554, 1996), as BLAST+ finds them (blastp -seg, segmasker, and the masking of
// subjects before composition-based statistics).
//
// A window of `window` residues is a trigger when its compositional (Shannon) complexity, in bits, is at
// most `locut`; it is extended left and right over the windows of complexity at most `hicut`, and the
// extended region is trimmed (by at most `maxtrim` residues) to the sub-segment of least probability P0
// (equation 3 of the 1996 paper); trigger windows left out by the trim are searched again. Windows with
// more than `maxbogus` residues outside the 20 amino acids get no complexity. The arithmetic follows
// BLAST's: ln n! rounded to 6 decimals, complexity from the sorted state vector, sums in the same order,
// so that ties resolve the same way.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpsearch {

struct SegParameters {
  int window = 12;
  double locut = 2.2;
  double hicut = 2.5;
  int maxtrim = 50;
  int maxbogus = 2;

  // "W K1 K2" (blastp -seg's form, e.g. "12 2.2 2.5"), "yes" (the defaults) ; std::invalid_argument
  // naming the text otherwise. "no" is the caller's business.
  static SegParameters parse(const std::string& text);
  // BLAST's masking of subjects before composition-based statistics: window 10, 1.8, 2.1.
  static SegParameters for_composition() { return {10, 1.8, 2.1, 50, 2}; }
};

struct MaskedInterval {
  std::uint32_t begin = 0, end = 0;  // 0-based, end exclusive
};

// codes with every residue inside the intervals replaced by `code` (SEG's X, DUST's N).
std::string mask_intervals(std::string_view codes, const std::vector<MaskedInterval>& intervals, char code);

// The low-complexity intervals of a protein sequence of residue codes (core/alphabet.hpp), in the order
// SEG finds them (they may overlap; their union is what is masked).
std::vector<MaskedInterval> seg_intervals(std::string_view codes, const SegParameters& parameters);

// codes with every residue of seg_intervals() replaced by X's code.
std::string seg_masked(std::string_view codes, const SegParameters& parameters);

}  // namespace warpsearch
