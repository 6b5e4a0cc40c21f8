// The oracle: plain O(mn) Gotoh dynamic programmes (local, global, semi-global) in 64-bit integers,
// written to be obviously right rather than fast. Every kernel (CPU and GPU) and the hit alignment
// are tested against them.
//
// Sequences are strings of residue codes (core/alphabet.hpp); scores come from a ScoringScheme, whose gap
// convention is: a gap of length k costs open + k * extend. A gap in the query next to a gap in the
// subject is allowed (they are two gaps, each paying its own open).
//
// Tie-break rule (the whole project, CPU and GPU, reproduces it):
//   end   = among the cells (query position i, subject position j) whose local score is maximal, the one
//           with the smallest subject position j, then the smallest query position i.
//   start = among the alignments of maximal score that end at that end cell, the one with the largest
//           subject start, then the largest query start (the shortest alignment).
// An optimal local alignment always begins and ends with an aligned pair (a gap at either end costs at
// least one point), so the end cell pairs query residue i with subject residue j.
// When no cell scores above zero there is no alignment: score 0 and every coordinate 0.
//
// Global and semi-global (span() with AlignmentMode, core/alignment_mode.hpp):
//   global     = both sequences end to end: begins (0, 0), ends (m, n). An empty sequence against one
//                of length n > 0 is one gap: -(open + n * extend); both empty score 0.
//   semiglobal = the whole query against a substring of the subject (the subject's leading and
//                trailing residues are free). end = the smallest subject end among the optimal
//                alignments; start = among the optimal alignments ending there, the largest subject
//                start. An alignment may begin or end with query residues against gaps, and may even
//                be all gaps (begin = end in the subject) when every substitution is worse. The span
//                is then the rectangle in which a global alignment reproduces the score. An empty
//                query scores 0 with every coordinate 0.
// Their scores may be negative.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/alignment_mode.hpp"
#include "core/span.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::reference {

// The Smith-Waterman score.
std::int64_t local_score(std::string_view query, std::string_view subject, const ScoringScheme& scoring);

// Score and end cell by the tie-break rule; the begin fields are left 0.
Span local_end(std::string_view query, std::string_view subject, const ScoringScheme& scoring);

// The largest local score of each subject column (entry j: the best alignment ending at subject residue
// j, 0 where none scores above 0): the columns a hot-column scan must find, for a threshold T, where
// the entry is at least T.
std::vector<std::int64_t> column_maxima(std::string_view query, std::string_view subject, const ScoringScheme& scoring);

// Score, end and start by the tie-break rule. The start is found by a method of its own (a backward
// dynamic programme anchored at the end pair), not by re-running the forward recurrence.
Span local_span(std::string_view query, std::string_view subject, const ScoringScheme& scoring);

// Every HSP (high-scoring local alignment) of the query in the subject, by region partition: the best
// local alignment of the subject region [0, n) (local_span on that region), if it scores at least
// cutoff (>= 1), is an HSP; then the regions left of it, [0, subject_begin), and right of it,
// [subject_end, n), are searched the same way, recursively. HSPs never share a subject position, and
// each is the best alignment of the region it was found in. Ordered by score (highest first), then
// subject start.
std::vector<Span> local_hsps(std::string_view query, std::string_view subject, const ScoringScheme& scoring,
                             std::int64_t cutoff);

// Score, end and start in the given mode (local: local_span). For semiglobal the start is found, as
// for local, by a backward dynamic programme anchored at the end, not by the forward recurrence. xdrop
// throws std::invalid_argument (its reference is reference_xdrop.hpp's).
Span span(std::string_view query, std::string_view subject, const ScoringScheme& scoring, AlignmentMode mode);

}  // namespace warpsearch::reference
