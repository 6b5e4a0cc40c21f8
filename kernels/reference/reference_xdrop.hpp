// X-drop seed extension: the definition, and a plain 64-bit reference that follows it cell by cell.
//
// The algorithm is the dynamic-programming X-drop of Zhang, Schwartz, Wagner and Miller (J. Comput. Biol.
// 7:203, 2000), the gapped extension of BLAST and of LOGAN (Zeni et al., IPDPS 2020), here with affine gaps
// in the project's convention (a gap of length k costs open + k * extend).
//
// One extension (extend_reference) aligns a prefix of `query` with a prefix of `target`, anchored at
// their starts (the cell (0, 0), score 0). Cells (i, j) (i query residues, j target residues consumed)
// are computed anti-diagonal by anti-diagonal, d = i + j = 0, 1, 2, ..., with the Gotoh recurrence
//   E(i, j) = max(E(i, j-1) - extend, H(i, j-1) - open - extend)      target residue against a gap
//   F(i, j) = max(F(i-1, j) - extend, H(i-1, j) - open - extend)      query residue against a gap
//   H(i, j) = max(H(i-1, j-1) + s(query[i-1], target[j-1]), E(i, j), F(i, j)),   H(0, 0) = 0
// where only live cells feed their neighbours. A cell is dead when its H is more than X below `best`,
// the largest H of the live cells of the anti-diagonals before d (H < best - X); a dead cell, and a cell
// with no live neighbour to come from, has H = E = F = minus infinity. `best` is updated after each whole
// anti-diagonal, as in Zhang et al. and LOGAN, so the cells of one anti-diagonal are independent of each
// other. The extension stops when two consecutive anti-diagonals are entirely dead (a cell depends on the
// two anti-diagonals before it, so nothing after them can live), or at the end of both sequences.
//
// Result: the best live cell, i.e. the largest H; among equal scores the one on the smallest anti-diagonal
// (the shortest extension), then with the smallest i. The origin (score 0, nothing consumed) is a live
// cell, so an extension never scores below 0. The best cell is the origin or ends with an aligned pair
// (a cell reached by a gap scores less than the cell the gap opened from, on an earlier anti-diagonal).
// Note: LOGAN and SeqAn's extendSeed report the score of the farthest live cell of the last anti-diagonal;
// warpsearch reports the best cell, as Zhang et al. and BLAST do.
//
// A seeded alignment (xdrop_reference) extends to the right from the seed's end over the two suffixes, and
// to the left from the seed's start over the two reversed prefixes; its score is the seed's score (the
// substitution scores along its diagonal, no gaps) plus the two extension scores.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/span.hpp"
#include "profile/scoring.hpp"

namespace warpsearch {

// The drop-off X: a cell dies when it falls more than X below the best score seen (X >= 0).
// XDrop::infinite() keeps every cell alive: the extension is then the best prefix-anchored alignment.
struct XDrop {
  int value;
  static constexpr int kInfinite = 1 << 30;  // larger than any score difference the kernels can meet
  static constexpr XDrop infinite() { return XDrop{kInfinite}; }
};

// A seed: `length` residues of the query from query_begin aligned without gaps to as many target residues
// from target_begin (0-based). length 0 is an empty seed, a point between residues; it must touch the start
// or the end of one of the sequences (then one extension has nothing to extend), because in the middle
// both extensions could begin with the same kind of gap, and two gaps side by side are scored as one.
struct Seed {
  std::uint32_t query_begin = 0;
  std::uint32_t target_begin = 0;
  std::uint32_t length = 0;
};

// The best cell of one extension: its score and how many residues of each sequence it consumed.
struct Extension {
  std::int64_t score = 0;
  std::uint32_t query_length = 0;
  std::uint32_t target_length = 0;
};

// A seeded X-drop alignment: the total score and the extended span (core/span.hpp; the subject is the
// target), with the seed's score and the two extensions that make it up.
struct XdropSpan : Span {
  std::int64_t seed_score = 0;
  Extension left, right;
};

// The seed's score: the substitution scores of its diagonal. Throws std::out_of_range when the seed does
// not fit both sequences, std::invalid_argument for an empty seed in the middle of both.
std::int64_t seed_score(std::string_view query, std::string_view target, const Seed& seed,
                        const ScoringScheme& scoring);

namespace reference {

// One extension anchored at the start of both sequences. Throws std::invalid_argument when X < 0.
Extension extend_reference(std::string_view query, std::string_view target, const ScoringScheme& scoring, XDrop x);

// A seeded alignment: left extension over the reversed prefixes, right extension over the suffixes.
XdropSpan xdrop_reference(std::string_view query, std::string_view target, const Seed& seed,
                          const ScoringScheme& scoring, XDrop x);

}  // namespace reference
}  // namespace warpsearch
