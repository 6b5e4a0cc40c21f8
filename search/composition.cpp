// Composition-based statistics (see composition.hpp).
#include "search/composition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "profile/seg.hpp"
#include "search/composition_tables.hpp"
#include "search/composition_xdrop.hpp"
#include "search/warpsearch.hpp"
#include "statistics/statistics.hpp"

namespace warpsearch {
namespace {

using namespace composition_tables;  // NOLINT: the letter codes and BLOSUM62's tables, in their own file

constexpr double kRelativeEntropy = 0.44;        // BLOSUM62's, in nats: the target of modes 2 and 3
constexpr int kPseudocounts = 20;                // towards BLOSUM62's background, modes 2 and 3
constexpr std::int32_t kForbidden = -(1 << 20);  // padding: never aligned

// The positive root of sum_s p(s) exp(lambda s) = 1 for a score distribution with a negative mean and a
// positive score; -1 when there is none.
double karlin_lambda(const std::vector<std::pair<double, double>>& score_probability) {
  double mean = 0, highest = -1;
  for (const auto& [score, p] : score_probability) {
    mean += score * p;
    if (p > 0) highest = std::max(highest, score);
  }
  if (mean >= 0 || highest <= 0) return -1;
  const auto phi = [&](double lambda) {
    double sum = -1;
    for (const auto& [score, p] : score_probability) sum += p * std::exp(lambda * score);
    return sum;
  };
  double low = 0, high = 0.5;
  while (phi(high) < 0) high *= 2;
  // phi < 0 on (0, root), > 0 beyond: bisection to the last bit, then the midpoint.
  for (int i = 0; i < 200 && high - low > 1e-17 * high; ++i) {
    const double middle = 0.5 * (low + high);
    if (phi(middle) < 0)
      low = middle;
    else
      high = middle;
  }
  return 0.5 * (low + high);
}

// A matrix of real scores over the codes 0..26, before rounding.
using RealScores = std::array<std::array<double, kLetters>, kLetters>;

// Scores of X (and U, J, O, which score as X here) as the composition-weighted means of the real scores,
// at most -1 at the fine scale; X against X the row-weighted mean of X's column.
void set_x_scores(RealScores& m, const std::array<double, kTrue>& rows, const std::array<double, kTrue>& columns) {
  const auto row_mean = [&](int i) {
    double s = 0;
    for (int j = 0; j < kTrue; ++j) s += m[i][j] * columns[j];
    return std::min(s, -1.0);
  };
  const auto column_mean = [&](int j) {
    double s = 0;
    for (int i = 0; i < kTrue; ++i) s += m[i][j] * rows[i];
    return std::min(s, -1.0);
  };
  double xx = 0;
  for (int i = 0; i < kTrue; ++i) {
    m[i][kX] = row_mean(i);
    xx += m[i][kX] * rows[i];
    m[kX][i] = column_mean(i);
  }
  m[kX][kX] = xx;
  for (const std::uint8_t c : {kB, kZ}) {
    m[c][kX] = row_mean(c);
    m[kX][c] = column_mean(c);
  }
  for (const std::uint8_t c : {kU, kJ, kO}) {
    m[c] = m[kX];
    for (int i = 0; i < kLetters; ++i) m[i][c] = m[i][kX];
  }
}

ScaledMatrix round_scores(const RealScores& real, const ScaledMatrix& start, AdjustmentRule rule) {
  ScaledMatrix result;
  for (auto& row : result.scores) row.fill(kForbidden);
  for (int i = 0; i < kLetters; ++i)
    for (int j = 0; j < kLetters; ++j) result.scores[i][j] = static_cast<std::int32_t>(nearest(real[i][j]));
  for (int i = 0; i < kLetters; ++i) {
    result.scores[i][kStop] = start.scores[i][kStop];
    result.scores[kStop][i] = start.scores[kStop][i];
  }
  result.rule = rule;
  return result;
}

// Jensen-Shannon-like distance of two compositions (the square root of the mean relative entropy of each
// to their average), the distance of the paper's rule.
double composition_distance(const std::array<double, kTrue>& a, const std::array<double, kTrue>& b) {
  double value = 0;
  for (int i = 0; i < kTrue; ++i) {
    const double mean = (a[i] + b[i]) / 2;
    if (mean <= 0) continue;
    if (a[i] > 0) value += a[i] * std::log(a[i] / mean) / 2;
    if (b[i] > 0) value += b[i] * std::log(b[i] / mean) / 2;
  }
  return std::sqrt(std::max(0.0, value));
}

// Two letters making more than 40% of a sequence longer than 50.
bool dominated_by_two_letters(const std::array<double, kTrue>& p, std::uint32_t length) {
  if (length <= 50) return false;
  std::array<double, kTrue> sorted = p;
  std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<double>());
  return sorted[0] + sorted[1] > 0.4;
}

std::array<double, kTrue> with_pseudocounts(const Composition& c) {
  const std::array<double, kTrue>& background = tables().background;
  const double weight = kPseudocounts / (static_cast<double>(c.residues) + kPseudocounts);
  double sum = 0;
  for (double p : c.probability) sum += p;
  if (sum == 0) sum = 1;
  std::array<double, kTrue> result{};
  for (int i = 0; i < kTrue; ++i) result[i] = (1 - weight) * c.probability[i] / sum + weight * background[i];
  return result;
}

}  // namespace

CompositionMode composition_mode(int number) {
  if (number < 0 || number > 3)
    throw std::invalid_argument("composition-based statistics mode " + std::to_string(number) +
                                ": expected 0 (off), 1, 2 or 3");
  return static_cast<CompositionMode>(number);
}

Composition composition_of(std::string_view codes) {
  Composition c;
  for (const char code : codes) {
    const auto u = static_cast<std::uint8_t>(code);
    if (u < kTrue) {
      c.probability[u] += 1;
      ++c.residues;
    }
  }
  if (c.residues > 0)
    for (double& p : c.probability) p /= c.residues;
  return c;
}

const TargetFrequencies& blosum62_joint_probabilities() { return tables().joint; }
const std::array<double, 20>& blosum62_background() { return tables().background; }

double relative_entropy(const TargetFrequencies& x, const std::array<double, 20>& rows,
                        const std::array<double, 20>& columns) {
  double h = 0;
  for (int i = 0; i < kTrue; ++i)
    for (int j = 0; j < kTrue; ++j)
      if (x[i][j] > 0) h += x[i][j] * std::log(x[i][j] / (rows[i] * columns[j]));
  return h;
}

// The minimizer has the form x_ij = q_ij^t (r_i c_j)^(1 - t) u_i v_j (stationarity of the Lagrangian, t =
// 1 / (1 + multiplier of the entropy constraint)): for each t, u and v are found by alternately fitting
// the row and column sums (Sinkhorn), and t by bisection on the relative entropy, which grows with t
// (t = 0 gives the independent pairs, relative entropy 0).
TargetFrequencies adjusted_target_frequencies(const std::array<double, 20>& rows, const std::array<double, 20>& columns,
                                              double target_entropy) {
  const TargetFrequencies& q = tables().joint;
  std::array<double, kTrue> u, v;
  u.fill(1);
  v.fill(1);
  TargetFrequencies kernel{}, x{};
  const auto fit = [&](double t) {
    for (int i = 0; i < kTrue; ++i)
      for (int j = 0; j < kTrue; ++j)
        kernel[i][j] = std::exp(t * std::log(q[i][j]) + (1 - t) * std::log(rows[i] * columns[j]));
    for (int iteration = 0; iteration < 10000; ++iteration) {
      for (int i = 0; i < kTrue; ++i) {
        double s = 0;
        for (int j = 0; j < kTrue; ++j) s += kernel[i][j] * v[j];
        u[i] = rows[i] / s;
      }
      double worst = 0;
      for (int j = 0; j < kTrue; ++j) {
        double s = 0;
        for (int i = 0; i < kTrue; ++i) s += kernel[i][j] * u[i];
        worst = std::max(worst, std::abs(s * v[j] - columns[j]) / columns[j]);
        v[j] = columns[j] / s;
      }
      if (worst < 1e-15) break;
    }
    for (int i = 0; i < kTrue; ++i)
      for (int j = 0; j < kTrue; ++j) x[i][j] = kernel[i][j] * u[i] * v[j];
    return relative_entropy(x, rows, columns);
  };
  double low = 0, high = 1;
  while (fit(high) < target_entropy && high < 64) {
    low = high;
    high *= 2;
  }
  for (int i = 0; i < 200 && high - low > 1e-15 * high; ++i) {
    const double middle = 0.5 * (low + high);
    if (fit(middle) < target_entropy)
      low = middle;
    else
      high = middle;
  }
  fit(0.5 * (low + high));
  return x;
}

bool CompositionAdjustment::supports(const ScoringScheme& scoring) { return scoring.matrix().name() == "BLOSUM62"; }

CompositionAdjustment::CompositionAdjustment(const ScoringScheme& scoring, CompositionMode mode,
                                             CompositionRealignment realignment, double max_evalue)
    : mode_(mode),
      realignment_(realignment),
      max_evalue_(max_evalue),
      gap_open_(scoring.gap_open()),
      gap_extend_(scoring.gap_extend()) {
  if (mode == CompositionMode::off) throw std::invalid_argument("composition-based statistics: mode 0 adjusts nothing");
  if (!supports(scoring))
    throw std::invalid_argument(
        "composition-based statistics need BLOSUM62 (its joint probabilities and frequency "
        "ratios are the published ones); the matrix is " +
        scoring.matrix().name());
  // The standard ungapped lambda: the integer matrix with Robinson and Robinson's frequencies.
  double total = 0;
  for (double f : kRobinson) total += f;
  std::vector<std::pair<double, double>> distribution;
  for (int i = 0; i < kTrue; ++i)
    for (int j = 0; j < kTrue; ++j)
      distribution.emplace_back(scoring.matrix().score(static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(j)),
                                kRobinson[i] / total * kRobinson[j] / total);
  ungapped_lambda_ = karlin_lambda(distribution);
  const double scaled_lambda = ungapped_lambda_ / ScaledMatrix::kScale;
  for (auto& row : start_.scores) row.fill(kForbidden);
  for (int i = 0; i < kLetters; ++i)
    for (int j = 0; j < kLetters; ++j)
      start_.scores[i][j] = static_cast<std::int32_t>(nearest(std::log(tables().ratio[i][j]) / scaled_lambda));
  for (int i = 0; i < kMaxCodes; ++i)
    for (int j = 0; j < kMaxCodes; ++j)
      standard_.scores[i][j] = scoring.score(static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(j));
}

AdjustmentRule CompositionAdjustment::rule_for(const Composition& query, std::uint32_t query_length,
                                               const Composition& subject, std::uint32_t subject_length) const {
  if (mode_ == CompositionMode::scaled_lambda) return AdjustmentRule::scaled_lambda;
  if (mode_ == CompositionMode::unconditional) return AdjustmentRule::matrix_adjustment;
  const auto& p = query.probability;
  const auto& s = subject.probability;
  if (dominated_by_two_letters(p, query_length) || dominated_by_two_letters(s, subject_length))
    return AdjustmentRule::matrix_adjustment;
  const auto& background = tables().background;
  const double d_subject = composition_distance(s, background);
  const double d_query = composition_distance(p, background);
  const double d_pair = composition_distance(s, p);
  // The angle at the background between the two compositions, in degrees (with the PI of the paper's
  // implementation, 3.1415926543).
  const double angle =
      std::acos((d_subject * d_subject + d_query * d_query - d_pair * d_pair) / 2.0 / d_subject / d_query) * 180 /
      3.1415926543;
  const double longer = std::max(query_length, subject_length), shorter = std::min(query_length, subject_length);
  if (d_pair > 0.16 && longer / shorter > 3.0 && angle > 70.0) return AdjustmentRule::scaled_lambda;
  return AdjustmentRule::matrix_adjustment;
}

double CompositionAdjustment::lambda_ratio(const Composition& query, const Composition& subject) const {
  std::vector<std::pair<double, double>> distribution;
  for (int i = 0; i < kTrue; ++i)
    for (int j = 0; j < kTrue; ++j)
      distribution.emplace_back(start_.scores[i][j], query.probability[i] * subject.probability[j]);
  const double lambda = karlin_lambda(distribution);
  const double ratio = lambda / (ungapped_lambda_ / ScaledMatrix::kScale);
  return std::max(std::min(1.0, ratio), 0.5);
}

ScaledMatrix CompositionAdjustment::matrix_for(const Composition& query, std::uint32_t query_length,
                                               const Composition& subject, std::uint32_t subject_length) const {
  const double scaled_lambda = ungapped_lambda_ / ScaledMatrix::kScale;
  if (query.residues == 0 || subject.residues == 0) return start_;
  RealScores real{};
  const AdjustmentRule rule = rule_for(query, query_length, subject, subject_length);
  if (rule == AdjustmentRule::scaled_lambda) {
    const double lambda = scaled_lambda / lambda_ratio(query, subject);
    for (int i = 0; i < kLetters; ++i)
      for (int j = 0; j < kLetters; ++j) real[i][j] = std::log(tables().ratio[i][j]) / lambda;
    set_x_scores(real, query.probability, subject.probability);
    return round_scores(real, start_, rule);
  }
  const std::array<double, kTrue> rows = with_pseudocounts(query), columns = with_pseudocounts(subject);
  TargetFrequencies x = adjusted_target_frequencies(rows, columns, kRelativeEntropy);
  double sum = 0;
  for (const auto& row : x)
    for (double f : row) sum += f;
  for (auto& row : x)
    for (double& f : row) f /= sum;
  // Frequencies over the codes with the pooled pairs B = D + N and Z = E + Q.
  std::array<std::array<double, kLetters>, kLetters> joint{};
  std::array<double, kLetters> row_p{}, column_p{};
  for (int i = 0; i < kTrue; ++i) {
    row_p[i] = rows[i];
    column_p[i] = columns[i];
    for (int j = 0; j < kTrue; ++j) joint[i][j] = x[i][j];
  }
  const auto pool = [](std::array<double, kLetters>& v, std::uint8_t into, std::uint8_t a, std::uint8_t b) {
    v[into] = v[a] + v[b];
  };
  pool(row_p, kB, kD, kN);
  pool(row_p, kZ, kE, kQ);
  pool(column_p, kB, kD, kN);
  pool(column_p, kZ, kE, kQ);
  for (auto& row : joint) {
    pool(row, kB, kD, kN);
    pool(row, kZ, kE, kQ);
  }
  for (int j = 0; j < kLetters; ++j) {
    joint[kB][j] = joint[kD][j] + joint[kN][j];
    joint[kZ][j] = joint[kE][j] + joint[kQ][j];
  }
  for (int i = 0; i < kLetters; ++i)
    for (int j = 0; j < kLetters; ++j) {
      const bool scored = (i < kTrue || i == kB || i == kZ) && (j < kTrue || j == kB || j == kZ);
      real[i][j] = scored ? std::log(joint[i][j] / (row_p[i] * column_p[j])) / scaled_lambda : 0.0;
    }
  set_x_scores(real, rows, columns);
  return round_scores(real, start_, rule);
}
}  // namespace warpsearch
