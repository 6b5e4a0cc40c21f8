// DUST: low-complexity regions of nucleotide sequences, in the symmetric version (Morgulis, Gertz, Schaffer
// and Agarwala, J. Comput. Biol. 13:1028, 2006) that BLAST+ uses in dustmasker and for blastn's queries
// (-dust "level window linker", default 20 64 1).
//
// A sequence is read as its overlapping triplets (64 values). An interval of l triplets in which triplet t
// occurs c_t times scores sum_t c_t (c_t - 1) / 2 / (l - 1); it is *perfect* when that score exceeds
// level / 10 and no sub-interval scores more. The scan slides a window of at most `window` bases (window - 2
// triplets) along the sequence and keeps the perfect intervals that end inside it; an interval is settled
// once the window's start has passed its start, and settled intervals closer than `linker` bases are merged.
// Every run of one repeated triplet that fills the window is perfect (the scan walks along it and restarts
// after it). The order of the scan, its restarts and its tie-breaking follow BLAST+'s (CSymDustMasker), so
// that the intervals are the same, base for base.
//
// Ambiguous bases: warpsearch keeps only N (core/alphabet.hpp), which DUST reads as A. BLAST+ draws a random
// base for N and reads the other ambiguity codes as A, so the intervals can differ next to an N.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profile/seg.hpp"  // MaskedInterval

namespace warpsearch {

struct DustParameters {
  int level = 20;   // score threshold, times 10 (2 to 64)
  int window = 64;  // longest window, in bases (8 to 64)
  int linker = 1;   // settled intervals at most this far apart are merged (1 to 32)

  // "L W K" (blastn -dust's form, e.g. "20 64 1") or "yes" (the defaults); std::invalid_argument naming the
  // text and the ranges otherwise. "no" is the caller's business.
  static DustParameters parse(const std::string& text);
};

// The low-complexity intervals of a nucleotide sequence of base codes (core/alphabet.hpp): disjoint, in
// increasing order, as dustmasker reports them (with 0-based, end-exclusive bounds).
std::vector<MaskedInterval> dust_intervals(std::string_view codes, const DustParameters& parameters);

// codes with every base of dust_intervals() replaced by N's code (blastn's hard masking).
std::string dust_masked(std::string_view codes, const DustParameters& parameters);

}  // namespace warpsearch
