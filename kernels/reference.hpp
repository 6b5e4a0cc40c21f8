// The oracle: a plain O(mn) Gotoh local alignment in 64-bit integers, written to be obviously right
// rather than fast. Every kernel (CPU and GPU) and the hit alignment are tested against it.
//
// Sequences are strings of residue codes (db/alphabet.hpp); scores come from a ScoringScheme, whose gap
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
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "profile/scoring.hpp"

namespace warpsearch::reference {

struct LocalSpan {
  std::int64_t score = 0;
  // 0-based, end exclusive: the alignment covers query [query_begin, query_end) and subject
  // [subject_begin, subject_end). All zero when the score is zero.
  std::uint32_t query_begin = 0;
  std::uint32_t query_end = 0;
  std::uint32_t subject_begin = 0;
  std::uint32_t subject_end = 0;
};

// The Smith-Waterman score.
std::int64_t local_score(std::string_view query, std::string_view subject, const ScoringScheme& scoring);

// Score and end cell by the tie-break rule; the begin fields are left 0.
LocalSpan local_end(std::string_view query, std::string_view subject, const ScoringScheme& scoring);

// Score, end and start by the tie-break rule. The start is found by a method of its own (a backward
// dynamic programme anchored at the end pair), not by re-running the forward recurrence.
LocalSpan local_span(std::string_view query, std::string_view subject, const ScoringScheme& scoring);

}  // namespace warpsearch::reference
