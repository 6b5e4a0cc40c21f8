// Score and end cell of one pair, by a striped SIMD kernel (Farrar's layout; F across the stripes by a
// prefix scan instead of the lazy-F loop: kernels/cpu/striped_kernel.hpp), for the alignment modes of
// core/alignment_mode.hpp. The forward and reverse passes of the pair alignment
// (kernels/cpu/alignment.hpp) run on it. Measurements: docs/cpu_kernels.md.
//
// The query's StripedProfile<int16_t> (profile/query_profile.hpp) is built once per StripedScorer with
// the lane count of the chosen instruction set, and read by every subject scored against it. Scores are
// computed in 16-bit saturating lanes; a pair that may have left the 16-bit range (checked exactly, see
// striped_kernel.hpp) is recomputed in 32-bit lanes from a profile with half the lanes, when the mode's
// range of values (striped_score_range) fits them; beyond that, in 64 bits by the scalar kernel (one
// lane, about 0.5 GCUPS). There is no length limit below 2^32 residues per sequence: local alignment of
// a 2 kb query against a 5 Mb genome stays in 16 or 32 bits (its values lie in [0, 2,000 x the best
// substitution]); global and semi-global pairs leave 32 bits only when the boundary gaps exceed about
// 2^29 (query + subject above 5 x 10^8 residues at extend 1, 4 x 10^6 at extend 127). A score is never
// wrong. Memory: the profiles, 64 bytes per query residue for each width used, and O(m / lanes) scratch.
//
// The end follows the project's tie-break (kernels/reference/reference.hpp): local = the maximal cell with the
// smallest subject position, then the smallest query position (score 0: every coordinate 0); global =
// (m, n); semiglobal = (m, the smallest subject end among the optimal alignments); an empty query in
// semiglobal mode scores 0 with every coordinate 0.
//
// Instruction sets: avx512bw, avx2, sse4.1, scalar (cpu::Isa, chosen at run time from cpuid; the scalar
// kernels run the same template with one lane).
//
// Thread safety: a StripedScorer is immutable after construction; end() may be called from any number of
// threads at once (scratch memory is per call).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/alignment_mode.hpp"
#include "kernels/cpu/column_range.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "profile/query_profile.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::cpu {

struct PairEnd {
  std::int64_t score = 0;
  // Exclusive ends (0-based): the alignment ends with query residue query_end - 1 and subject residue
  // subject_end - 1, or at a gap in the semiglobal all-gap case.
  std::uint32_t query_end = 0;
  std::uint32_t subject_end = 0;
};

// A local pass over (a segment of) a long subject: the best cell among the columns it reports, and the
// columns where some cell reaches a threshold (StripedScorer::scan_columns).
struct ColumnScan {
  PairEnd best;                  // subject_end relative to the scanned string
  std::vector<ColumnRange> hot;  // relative to the scanned string, ascending, disjoint
};

class StripedScorer {
 public:
  // query_codes: residue codes below kMaxCodes (std::invalid_argument otherwise); may be empty. An isa
  // this CPU or build cannot run throws std::invalid_argument naming it.
  StripedScorer(std::string_view query_codes, const ScoringScheme& scoring, Isa isa = best_isa());

  // Score and end of the query against the subject (codes below kMaxCodes; only the low 5 bits are read).
  // Exact for any lengths; a query or subject of 2^32 residues or more throws std::length_error, and
  // AlignmentMode::xdrop std::invalid_argument.
  // first = Width::w32 skips the 16-bit attempt (for a pair known to score beyond 16 bits, e.g. the
  // reverse pass of an alignment). Local mode: with stop_score, the pass ends at the first subject
  // position whose column reaches it; where no cell scores more (the reverse pass of an alignment of
  // that score) the outcome is the whole pass's.
  PairEnd end(std::string_view subject_codes, AlignmentMode mode, Width first = Width::w16,
              std::int64_t stop_score = std::numeric_limits<std::int64_t>::max()) const;

  // One width only (Width::w16 or Width::w32; std::invalid_argument for w8), no retry: the exact result,
  // or nullopt when that width cannot guarantee it (a 16-bit value may have saturated, or the lengths
  // exceed the width's static bound). For tests and benchmarks.
  std::optional<PairEnd> end_at_width(std::string_view subject_codes, AlignmentMode mode, Width width) const;

  // Local mode: the best cell (the tie-break of end()) among subject positions >= first_column, and the
  // ranges of positions >= first_column whose column holds a cell >= hot_threshold. Positions before
  // first_column are context: alignments may start there but are not reported ending there. The SIMD
  // kernels' padding positions (past the query's end, scoring the matrix minimum) may carry a high cell
  // diagonally into the next few columns, so the ranges may reach a little past the true ones: a
  // superset, never missing a column, the same for every segmentation of the subject.
  ColumnScan scan_columns(std::string_view subject_codes, std::size_t first_column, std::int64_t hot_threshold) const;
  // The 64-bit fallback alone (the scalar kernel in int64_t lanes), whatever the lengths: what end()
  // runs beyond the 32-bit bound. For tests and benchmarks.
  PairEnd end_64_bits(std::string_view subject_codes, AlignmentMode mode) const;

  Isa isa() const { return isa_; }
  // Lanes per vector of the 16-bit and 32-bit kernels of this instruction set.
  int lanes(Width width) const;
  std::size_t query_length() const { return query_.size(); }

 private:
  struct ColumnReport {
    std::size_t first_column = 0;
    std::int64_t hot_threshold = 0;
    std::vector<ColumnRange>* hot = nullptr;
  };
  std::optional<PairEnd> pass_at_width(std::string_view subject_codes, AlignmentMode mode, Width width,
                                       const ColumnReport* report,
                                       std::int64_t stop_score = std::numeric_limits<std::int64_t>::max()) const;
  PairEnd pass_64_bits(std::string_view subject_codes, AlignmentMode mode, std::int64_t stop_score) const;
  void check_lengths(std::size_t subject_length) const;

  std::string query_;
  ScoringScheme scoring_;
  Isa isa_;
  std::optional<StripedProfile<std::int16_t>> profile16_;  // absent for an empty query
};

// A range holding every value of the mode's dynamic programme other than minus infinity (H, the
// boundaries, E and F; kernels/cpu/striped_kernel.hpp) for a query of query_length residues (the
// kernels' padding included) and a subject of subject_length: H lies in [low + open + extend, high] and
// E, F in [low, high]. The dispatcher keeps the 32-bit kernels to pairs whose range, widened by one
// substitution and one more open + extend, is within +-2^29.
struct ScoreRange {
  std::int64_t low = 0, high = 0;
};
ScoreRange striped_score_range(AlignmentMode mode, std::size_t query_length, std::size_t subject_length,
                               const ScoringScheme& scoring);

// One-off convenience: StripedScorer(query_codes, scoring, isa).end(subject_codes, mode).
PairEnd striped_end(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                    AlignmentMode mode, Isa isa = best_isa());

}  // namespace warpsearch::cpu
