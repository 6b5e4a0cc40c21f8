// Karlin-Altschul statistics: E-values and bit scores for local alignment scores, with NCBI's
// published gapped parameters and BLAST's two ways of correcting for finite sequence lengths.
//
// Parameters. Gapped lambda, K and H cannot be computed in closed form; NCBI estimated them by
// simulation for a fixed list of (matrix, gap open, gap extend) and (reward, penalty, gap open,
// gap extend) combinations and publishes them in BLAST's source (blast_stat.c). Only those
// combinations have statistics: any other scoring scheme (a matrix read from a file, an unlisted gap
// pair) makes EvalueCalculator throw, and the caller may still report raw scores. Our gap convention
// is BLAST's (a gap of length k costs open + k * extend), so the pairs map 1:1 to blastp/blastn's
// -gapopen/-gapextend.
//
// Two E-value formulas, both as BLAST+ computes them:
//
//  * Length-adjusted Karlin-Altschul (evalue(score, query_length)): E = K * m' * N' * exp(-lambda S),
//    with m' = m - ell, N' = N - n * ell, where m is the query length, N the residues of the database,
//    n its sequence count and ell BLAST's length adjustment (see length_adjustment()). This is what
//    blastn reports, what blastp reported before BLAST+ 2.2.26, and what blastp still reports with
//    the environment variable OLD_FSC set.
//
//  * Spouge's finite-size correction (evalue(score, query_length, subject_length)), what blastp
//    reports by default since BLAST+ 2.2.26 (Park, Sheetlin, Ma, Madden, Spouge, "New finite-size
//    correction for local alignment score distributions", BMC Research Notes 5:286, 2012). It needs
//    three more published parameters per row (C, alpha_v, sigma) that NCBI tabulates for the protein
//    matrices only; for nucleotide scoring the three-argument evalue() falls back to the
//    length-adjusted formula, exactly as blastn does.
//
// bit score = (lambda * S - ln K) / ln 2 in both cases.
//
// Thread safety: an EvalueCalculator is immutable after construction; every const member may be
// called from any number of threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile/scoring.hpp"

namespace warpsearch {

// The Karlin-Altschul parameters of one scoring system. alpha and beta describe the mean length of a
// high-scoring alignment, E[length] ~ alpha / lambda * S + beta (Altschul, Bundschuh, Olsen, Hwa,
// Nucleic Acids Res. 29:351, 2001), from which the length adjustment is computed.
struct KarlinAltschulParameters {
  double lambda = 0;
  double K = 0;
  double H = 0;
  double alpha = 0;
  double beta = 0;
};

// The extra parameters of Spouge's finite-size correction, as NCBI tabulates them (columns C, alpha_v
// and sigma of blast_stat.c), together with the ungapped row's alpha and alpha_v which the correction
// uses to derive its intercepts.
struct FiniteSizeParameters {
  double C = 0;
  double alpha_v = 0;
  double sigma = 0;
  double alpha_ungapped = 0;
  double alpha_v_ungapped = 0;
};

// One published row, for one gap pair.
struct PublishedGapPair {
  int gap_open = 0;
  int gap_extend = 0;
  KarlinAltschulParameters parameters;
  bool has_finite_size = false;  // protein rows only
  FiniteSizeParameters finite_size;
};

// BLAST's length adjustment: the largest integer ell >= 0 that does not exceed the fixed point of
//     f(ell) = beta + (alpha / lambda) * (ln K + ln((m - ell) * (N - n * ell)))
// and keeps K * (m - ell) * (N - n * ell) > max(m, N). f decreases as ell grows, so the fixed point
// is unique; we find the integer by bisection (BLAST iterates to the same integer).
// alpha_over_lambda: alpha / lambda (1 / H for ungapped statistics, with beta = 0).
std::uint64_t length_adjustment(double K, double alpha_over_lambda, double beta, std::uint64_t query_length,
                                std::uint64_t database_residues, std::uint64_t database_sequences);

// The published row for a scoring scheme, or nullptr when NCBI publishes none. For nucleotide scoring
// a reward/penalty pair with a common divisor d > 1 uses the table of (reward/d, penalty/d) with gap
// costs d times the tabulated ones and lambda (and alpha) divided by d, as BLAST does.
// The returned row is by value (scaled rows do not exist in the tables); `found` tells whether one
// exists.
struct PublishedLookup {
  bool found = false;
  PublishedGapPair row;
  // Tables for reward 2 (2/-3, 2/-5, 2/-7): odd scores are rounded down to even before the E-value
  // is computed (blastn does so; its bit scores use the score as it is).
  bool round_down_odd_scores = false;
};
PublishedLookup published_parameters(const ScoringScheme& scoring);

// "BLOSUM62 gap pairs with published statistics (open/extend): 11/2, 10/2, ..." or the same for a
// reward/penalty pair, or the list of supported reward/penalty pairs when the pair itself is unknown,
// or a sentence saying a matrix read from a file has no published statistics.
std::string supported_gap_pairs(const ScoringScheme& scoring);

// E-values and bit scores for one scoring scheme and one database.
class EvalueCalculator {
 public:
  // Throws std::invalid_argument naming the scoring scheme and listing what is supported when NCBI
  // publishes no parameters for it, or when the database is empty.
  EvalueCalculator(const ScoringScheme& scoring, std::uint64_t database_residues, std::uint64_t database_sequences);

  static bool supported(const ScoringScheme& scoring);

  const KarlinAltschulParameters& parameters() const { return parameters_; }
  bool has_finite_size_correction() const { return has_finite_size_; }
  std::uint64_t database_residues() const { return database_residues_; }
  std::uint64_t database_sequences() const { return database_sequences_; }

  // Length adjustment and effective search space (m - ell) * (N - n * ell) for a query of this length
  // (each factor at least 1, as in BLAST).
  std::uint64_t length_adjustment(std::uint32_t query_length) const;
  double search_space(std::uint32_t query_length) const;

  // Length-adjusted Karlin-Altschul E-value of a raw score: K * search_space * exp(-lambda * S).
  double evalue(int score, std::uint32_t query_length) const;
  // blastp's default E-value: Spouge's finite-size correction for this query and subject length,
  // scaled to the database (multiplied by database residues / subject length). Without published
  // finite-size parameters (nucleotide scoring) this is evalue(score, query_length).
  double evalue(int score, std::uint32_t query_length, std::uint32_t subject_length) const;
  // The same for a real-valued score (composition-based statistics align at 32 times the matrix's
  // precision and evaluate the score / 32 before it is rounded, as blastp does).
  double evalue_of_real_score(double score, std::uint32_t query_length, std::uint32_t subject_length) const;
  // (lambda * S - ln K) / ln 2, from the raw score (no rounding down, as in blastn).
  double bitscore(int score) const;

 private:
  int effective_score(int score) const { return round_down_ ? score - (score & 1) : score; }

  KarlinAltschulParameters parameters_;
  FiniteSizeParameters finite_size_;
  bool has_finite_size_ = false;
  bool round_down_ = false;
  int gap_open_ = 0;
  int gap_extend_ = 0;
  std::uint64_t database_residues_ = 0;
  std::uint64_t database_sequences_ = 0;
};

}  // namespace warpsearch
