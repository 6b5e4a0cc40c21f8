// blastp's realignment after composition-based statistics, without -use_sw_tback: a gapped X-drop
// extension with traceback, both ways from a start point, with the pair's adjusted matrix.
//
// blastp realigns each preliminary HSP from the HSP's gapped start point: the extension to the left runs
// over the reversed prefixes and includes the start pair, the extension to the right runs over what
// follows it, and the alignment is their union, scoring the sum of the two. The start point is where its
// preliminary gapped extension began: the middle of the best-scoring window of 11 pairs (the first of
// equal ones) in the ungapped segment that seeded it, or the segment's start when no window scores above
// 0, or its middle when it is at most 11 long. The X-drop is gap_x_dropoff_final, 25 bits, in the
// adjusted matrix's units (25 ln 2 / (gapped lambda / 32), truncated), at least gap open + extend.
//
// An exact search has no seeds. Its hit is the best alignment with the standard matrix; the start point
// is taken on that alignment, in its best-scoring stretch without gaps (scored with the standard matrix,
// as blastp's seeds are), as blastp takes it in its seed's ungapped segment. Where blastp's seed lay elsewhere on the
// alignment, the extension can differ (docs/composition_statistics.md gives the measured agreement).
//
// The extension computes the dynamic programming row by row (one query residue a row) over the columns
// still alive, as BLAST's gapped extension does, so that its result is BLAST's to the cell:
//  - the best score so far is updated cell by cell (the first cell of the best score, in row order,
//    ends the alignment), and a cell more than X below it is dead;
//  - a row's live columns run from its first live cell to its last; a row whose last cell is live is
//    continued by a gap while that gap stays within X, and gives the next row one more column;
//  - the first row (no query residue) is a gap in the query while it stays within X;
//  - ties: a pair before a query residue against a gap, before a subject residue against a gap; a gap
//    that scores the same extended or opened is extended;
//  - the extension stops after its last row or at the first row without a live cell.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "search/composition.hpp"

namespace warpsearch {

struct XdropRealignParameters {
  int gap_open = 0, gap_extend = 0;  // in the matrix's units: a gap of length k costs open + k * extend
  std::int64_t x_dropoff = 0;        // at least gap_open + gap_extend is used
  std::uint64_t max_cells = 0;       // cells one extension may keep traceback for (0: no limit)
};

// One extension from the origin over query_length residues of query and subject_length of subject,
// read from the given positions forwards (step +1) or backwards (step -1). operations run from the
// origin outwards ('M' pair, 'I' query residue against a gap, 'D' subject residue against a gap).
// Throws std::length_error when the extension needs more than parameters.max_cells cells.
struct GappedExtension {
  std::int64_t score = 0;
  std::uint32_t query_length = 0, subject_length = 0;
  std::string operations;
};
GappedExtension extend_gapped(const ScaledMatrix& matrix, std::string_view query, std::size_t query_origin,
                              std::size_t query_length, std::string_view subject, std::size_t subject_origin,
                              std::size_t subject_length, int step, const XdropRealignParameters& parameters);

// The alignment through the start pair (query_start, subject_start): the left extension over
// query[0, query_start] and subject[0, subject_start] read backwards (the start pair first), the right
// one over what follows. Coordinates in the whole sequences; an empty alignment scores 0. Throws
// std::length_error as extend_gapped.
ScaledAlignment xdrop_align(std::string_view query, std::string_view subject, std::size_t query_start,
                            std::size_t subject_start, const ScaledMatrix& matrix,
                            const XdropRealignParameters& parameters);

// blastp's start point on an alignment given by its operations from (query_begin, subject_begin), scored
// with `scores`: the segment without gaps holding the best ungapped sub-segment (the first of equal ones)
// stands for blastp's ungapped seed, and the start is chosen in that sub-segment as blastp chooses it.
struct StartPoint {
  std::uint32_t query = 0, subject = 0;
  std::int64_t stretch_score = 0;  // the score of the ungapped stretch it was chosen in
};
StartPoint gapped_start_point(std::string_view query, std::string_view subject, std::uint32_t query_begin,
                              std::uint32_t subject_begin, std::string_view operations, const ScaledMatrix& scores);

}  // namespace warpsearch
