// Composition-based statistics, as blastp applies them to the hits it reports (-comp_based_stats 0..3).
//
// A protein pair of unusual amino-acid composition scores higher (or lower) with a standard matrix than
// its relatedness warrants; blastp corrects for it pair by pair, after its search, by realigning each
// reported subject with a matrix fitted to the two compositions. warpsearch does the same after its exact
// scan: the scan and the choice of candidates are untouched, and only the kept hits are realigned with
// the adjusted matrix and given the adjusted score, bit score and E-value. The realignment is either an
// exact Smith-Waterman (as blastp -use_sw_tback), or blastp's default: an X-drop extension both ways
// from a start point on the hit (search/composition_xdrop.hpp).
//
// The modes (BLAST+'s numbering):
//  1  composition-based statistics (Schaffer et al., Nucleic Acids Res. 29:2994, 2001): the standard
//     matrix's frequency ratios rescaled so that its ungapped lambda, in the context of the two
//     compositions, is the standard one ("scaled lambda").
//  2  conditional compositional score matrix adjustment (Yu and Altschul, Bioinformatics 21:902, 2005):
//     mode 3's adjusted matrix, except for pairs whose compositions are far apart in the way the paper's
//     rule describes (composition distance > 0.16, length ratio > 3, angle > 70 degrees, and neither
//     sequence dominated by two letters), which get mode 1. blastp's default.
//  3  unconditional compositional score matrix adjustment (Altschul et al., FEBS J. 272:5101, 2005):
//     the target frequencies closest, in relative entropy, to the matrix's own (BLOSUM62's joint
//     probabilities), whose marginals are the two compositions (20 pseudocounts towards BLOSUM62's
//     background) and whose relative entropy is 0.44 nats; scores are their log-odds.
//
// As in BLAST+, scores are computed 32 times finer than the matrix's (the matrix's ungapped lambda over
// 32), gap costs are multiplied by 32, the alignment score S is found at that scale, the E-value is that
// of the real score S / 32 with the standard gapped parameters, and the reported raw score is S / 32
// rounded to the nearest integer, from which the bit score is computed. Masked and ambiguous residues
// (X, B, Z, J, U, O) do not count in a composition; X, U, J and O score as X does in the adjusted matrix
// (the composition-weighted mean of its row or column, at most -1/32), B and Z as the pooled pairs.
//
// Only BLOSUM62 has the published joint probabilities and frequency ratios these need; CompositionAdjustment
// refuses other matrices (std::invalid_argument naming the matrix).
//
// Thread safety: a CompositionAdjustment is immutable; its const members may be called from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profile/scoring.hpp"

namespace warpsearch {

struct Hit;
class EvalueCalculator;
enum class CompositionRealignment : std::uint8_t;  // search/warpsearch.hpp

enum class CompositionMode : std::uint8_t { off = 0, scaled_lambda = 1, conditional = 2, unconditional = 3 };

// 0..3; std::invalid_argument otherwise.
CompositionMode composition_mode(int number);

// Amino-acid probabilities in the order of the residue codes 0..19 (A R N D C Q E G H I L K M F P S T W
// Y V), over the residues that are one of those 20; `residues` counts them.
struct Composition {
  std::array<double, 20> probability{};
  std::uint32_t residues = 0;
};
Composition composition_of(std::string_view codes);

using TargetFrequencies = std::array<std::array<double, 20>, 20>;

// BLOSUM62's joint probabilities (normalized) and their marginals.
const TargetFrequencies& blosum62_joint_probabilities();
const std::array<double, 20>& blosum62_background();

// The target frequencies x minimizing sum x ln(x / q) over q = BLOSUM62's joint probabilities, with row
// sums `rows`, column sums `columns` and relative entropy sum x ln(x / (rows_i columns_j)) equal to
// `relative_entropy` (nats). Both marginals must be positive and sum to 1.
TargetFrequencies adjusted_target_frequencies(const std::array<double, 20>& rows, const std::array<double, 20>& columns,
                                              double relative_entropy);
double relative_entropy(const TargetFrequencies& x, const std::array<double, 20>& rows,
                        const std::array<double, 20>& columns);

// What was done to the matrix for one pair.
enum class AdjustmentRule : std::uint8_t { none, scaled_lambda, matrix_adjustment };

// A matrix 32 times finer than the standard one, over the protein residue codes.
struct ScaledMatrix {
  static constexpr int kScale = 32;
  std::array<std::array<std::int32_t, kMaxCodes>, kMaxCodes> scores{};
  AdjustmentRule rule = AdjustmentRule::none;
};

class CompositionAdjustment {
 public:
  static bool supports(const ScoringScheme& scoring);
  // std::invalid_argument when the matrix is not BLOSUM62 or mode is off. The realignment defaults to
  // CompositionRealignment::smith_waterman (the enumerator of value 0); max_evalue is the search's
  // E-value cut-off (the X-drop realignment derives blastp's preliminary cut-off from it).
  CompositionAdjustment(const ScoringScheme& scoring, CompositionMode mode,
                        CompositionRealignment realignment = CompositionRealignment{}, double max_evalue = 10);

  // blastp's X-drop for the realignment (gap_x_dropoff_final), in bits.
  static constexpr double kXdropBits = 25;
  // blastp's X-drop for its preliminary gapped alignments (gap_x_dropoff), in bits.
  static constexpr double kPreliminaryXdropBits = 15;
  // blastp's gap trigger, 22 bits, as a BLOSUM62 score (ungapped lambda 0.3176, K 0.134): an ungapped
  // seed scoring less starts no gapped extension, so no preliminary HSP.
  static constexpr std::int64_t kGapTriggerScore = 41;
  // Start points (emulated preliminary HSPs) taken on one exact hit, at most.
  static constexpr int kMaxStartsPerHit = 8;
  // blastp's preliminary E-value cut-off over the final one with matrix adjustment (modes 2 and 3).
  static constexpr double kPreliminaryEvalueFactor = 5;

  CompositionMode mode() const { return mode_; }
  // The matrix's ungapped lambda for the standard (Robinson and Robinson) amino-acid frequencies.
  double ungapped_lambda() const { return ungapped_lambda_; }
  // The standard matrix at the fine scale (rounded log frequency ratios), as blastp starts from.
  const ScaledMatrix& start_matrix() const { return start_; }

  // The rule mode 2 applies to a pair of these compositions and lengths (mode 1: scaled_lambda,
  // mode 3: matrix_adjustment).
  AdjustmentRule rule_for(const Composition& query, std::uint32_t query_length, const Composition& subject,
                          std::uint32_t subject_length) const;
  // The adjusted matrix of a pair; rule none (the start matrix) when either composition is empty.
  ScaledMatrix matrix_for(const Composition& query, std::uint32_t query_length, const Composition& subject,
                          std::uint32_t subject_length) const;
  // Mode 1's ratio of the pair's ungapped lambda to the standard one, clamped to [0.5, 1].
  double lambda_ratio(const Composition& query, const Composition& subject) const;

  // Candidates are kept by the exact scan up to this many times the E-value cut-off, since the adjusted
  // E-value may be smaller (the adjusted matrix rewards the pair's compositional similarity).
  static constexpr double kAdmissionFactor = 10;
  static constexpr std::uint64_t kMaxRealignedCells = std::uint64_t{1} << 27;
  static constexpr std::uint32_t kHspMargin = 32;

  int scaled_gap_open() const { return gap_open_ * ScaledMatrix::kScale; }
  int scaled_gap_extend() const { return gap_extend_ * ScaledMatrix::kScale; }

  // Realigns one query's hits on one subject with the pair's adjusted matrix and gives them the adjusted
  // score, bit score and E-value (statistics for query_length and each hit's subject_length, divided by
  // evalue_divisor). `searched_subject` is what the hits' coordinates refer to. The first (best) hit is
  // realigned against the whole subject (as blastp -use_sw_tback does), the others inside their own
  // rectangle widened by kHspMargin residues on each side; the alignment fields are replaced by the new
  // alignment's. A hit whose region holds more than kMaxRealignedCells cells keeps its unadjusted values.
  // With CompositionRealignment::xdrop the hits are instead realigned as blastp realigns its preliminary
  // HSPs (docs/composition_statistics.md): start points on each hit (composition_xdrop.hpp), the
  // preliminary HSP from each emulated with the standard matrix and kPreliminaryXdropBits, further start
  // points in the parts of the hit it leaves (gap trigger and preliminary cut-off permitting); each
  // preliminary HSP not inside a realigned alignment scoring 2 bits more is realigned by the X-drop
  // extension, kXdropBits at the fine scale of statistics' gapped lambda; of two realigned alignments
  // sharing their start or their end only the better stays, and the subject keeps at most as many as
  // it had hits, the best. An extension needing more than kMaxRealignedCells cells leaves the subject's
  // hits unadjusted.
  void rescore(std::string_view query, const Composition& query_composition, std::string_view searched_subject,
               std::vector<Hit>& hits, const EvalueCalculator& statistics, double evalue_divisor) const;

 private:
  ScaledMatrix scaled_from_ratios(double lambda, const std::array<double, 20>& row_probability,
                                  const std::array<double, 20>& column_probability) const;

  void realign_by_xdrop(std::string_view query, std::string_view masked_subject, std::string_view searched_subject,
                        const ScaledMatrix& matrix, std::vector<Hit>& hits, const EvalueCalculator& statistics,
                        double evalue_divisor) const;

  CompositionMode mode_;
  CompositionRealignment realignment_;
  double max_evalue_;
  int gap_open_, gap_extend_;
  ScaledMatrix standard_;       // the matrix's own scores (not scaled): blastp's seeds and start points
  double ungapped_lambda_ = 0;  // standard matrix, standard frequencies
  ScaledMatrix start_;
};

// Orders one query's hits as blastp reports them after composition-based statistics: subjects by their
// best E-value (then best score, then their order so far), each subject's hits together by score.
void order_by_evalue(std::vector<Hit>& hits);

// A local alignment at the fine scale: the best local alignment (gap of length k costs open + k * extend)
// of query[query_begin, query_end) against subject[subject_begin, subject_end). operations as in
// PairAlignment (core/pair_alignment.hpp); coordinates are in the whole sequences.
struct ScaledAlignment {
  std::int64_t score = 0;
  std::uint32_t query_begin = 0, query_end = 0, subject_begin = 0, subject_end = 0;
  std::string operations;
};
ScaledAlignment align_scaled(std::string_view query, std::size_t query_begin, std::size_t query_end,
                             std::string_view subject, std::size_t subject_begin, std::size_t subject_end,
                             const ScaledMatrix& matrix, int gap_open, int gap_extend);

}  // namespace warpsearch
