// Composition-based statistics (see composition.hpp).
#include "search/composition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "profile/seg.hpp"
#include "search/composition_tables.hpp"
#include "search/warpsearch.hpp"
#include "statistics/statistics.hpp"

namespace warpsearch {
namespace {

using namespace composition_tables;  // NOLINT: the letter codes and BLOSUM62's tables, in their own file

constexpr double kRelativeEntropy = 0.44;        // BLOSUM62's, in nats: the target of modes 2 and 3
constexpr int kPseudocounts = 20;                // towards BLOSUM62's background, modes 2 and 3
constexpr std::int32_t kForbidden = -(1 << 20);  // padding: never aligned

long nearest(double x) { return static_cast<long>(x >= 0 ? x + 0.5 : x - 0.5); }

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

CompositionAdjustment::CompositionAdjustment(const ScoringScheme& scoring, CompositionMode mode)
    : mode_(mode), gap_open_(scoring.gap_open()), gap_extend_(scoring.gap_extend()) {
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

ScaledAlignment align_scaled(std::string_view query, std::size_t query_begin, std::size_t query_end,
                             std::string_view subject, std::size_t subject_begin, std::size_t subject_end,
                             const ScaledMatrix& matrix, int gap_open, int gap_extend) {
  const std::size_t m = query_end - query_begin, n = subject_end - subject_begin;
  const std::int32_t first = gap_open + gap_extend, next = gap_extend;
  constexpr std::int32_t kNone = std::numeric_limits<std::int32_t>::min() / 4;
  // Direction of each cell: bits 0-1 where H came from (0 start, 1 diagonal, 2 E, 3 F), bit 2 E extends
  // E, bit 3 F extends F. E: subject residues against a gap (along the subject), F: query residues.
  std::vector<std::uint8_t> direction((m + 1) * (n + 1), 0);
  std::vector<std::int32_t> h_row(n + 1, 0), f_row(n + 1, kNone);
  std::vector<std::uint8_t> codes(n);
  for (std::size_t j = 0; j < n; ++j) codes[j] = static_cast<std::uint8_t>(subject[subject_begin + j]);
  std::int32_t best = 0;
  std::size_t best_i = 0, best_j = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::int32_t* scores = matrix.scores[static_cast<std::uint8_t>(query[query_begin + i - 1])].data();
    std::uint8_t* row = &direction[i * (n + 1)];
    std::int32_t diagonal = 0, h_left = 0, e = kNone;
    std::int32_t row_best = 0;
    std::size_t row_best_j = 0;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::int32_t e_open = h_left - first, e_extend = e - next;
      const bool e_extends = e_extend > e_open;
      e = e_extends ? e_extend : e_open;
      const std::int32_t f_open = h_row[j] - first, f_extend = f_row[j] - next;
      const bool f_extends = f_extend > f_open;
      const std::int32_t f = f_extends ? f_extend : f_open;
      f_row[j] = f;
      const std::int32_t d = diagonal + scores[codes[j - 1]];
      const std::int32_t h = std::max(std::max(d, 0), std::max(e, f));
      // Where h came from (ties: the diagonal first, then E, then F); written without branches.
      const int from = h == 0 ? 0 : h == d ? 1 : h == e ? 2 : 3;
      row[j] = static_cast<std::uint8_t>(from | (e_extends ? 4 : 0) | (f_extends ? 8 : 0));
      diagonal = h_row[j];
      h_row[j] = h;
      h_left = h;
      row_best_j = h > row_best ? j : row_best_j;
      row_best = std::max(row_best, h);
    }
    if (row_best > best) best = row_best, best_i = i, best_j = row_best_j;
  }
  ScaledAlignment result;
  result.score = best;
  if (best == 0) return result;
  std::size_t i = best_i, j = best_j;
  int state = 0;  // 0: in H, 2: in E, 3: in F
  std::string reversed;
  for (;;) {
    const std::uint8_t d = direction[i * (n + 1) + j];
    if (state == 0) {
      const int from = d & 3;
      if (from == 0) break;
      if (from == 1) {
        reversed.push_back('M');
        --i;
        --j;
      } else {
        state = from;
      }
      continue;
    }
    const bool extends = state == 2 ? (d & 4) != 0 : (d & 8) != 0;
    if (state == 2) {
      reversed.push_back('D');
      --j;
    } else {
      reversed.push_back('I');
      --i;
    }
    if (!extends) state = 0;
  }
  result.operations.assign(reversed.rbegin(), reversed.rend());
  result.query_begin = static_cast<std::uint32_t>(query_begin + i);
  result.query_end = static_cast<std::uint32_t>(query_begin + best_i);
  result.subject_begin = static_cast<std::uint32_t>(subject_begin + j);
  result.subject_end = static_cast<std::uint32_t>(subject_begin + best_j);
  return result;
}

void CompositionAdjustment::rescore(std::string_view query, const Composition& query_composition,
                                    std::string_view searched_subject, std::vector<Hit>& hits,
                                    const EvalueCalculator& statistics, double evalue_divisor) const {
  if (hits.empty()) return;
  // The subject as blastp realigns it: selenocysteine read as X, and low-complexity segments masked
  // with X (SEG 10 1.8 2.1) unless the pair is one ungapped, nearly identical (98%) alignment.
  std::string subject(searched_subject);
  for (char& c : subject)
    if (static_cast<std::uint8_t>(c) == kU) c = static_cast<char>(kX);
  // Near-identical pairs keep their low-complexity segments (blastp's test on the best HSP: at least
  // min(query length, 50) long, 1.74 bits per position, more than 95% identical).
  const Hit& first = hits.front();
  const std::uint32_t span = std::min(first.query_end - first.query_begin, first.subject_end - first.subject_begin);
  const bool near_identical =
      span > 0 && first.subject_end - first.subject_begin + 1 >= std::min<std::size_t>(query.size(), 50) &&
      first.score >= 1.74 * std::log(2.0) / statistics.parameters().lambda * span && first.identities > 0.95 * span;
  if (!near_identical) subject = seg_masked(subject, SegParameters::for_composition());
  const Composition subject_composition = composition_of(subject);
  const ScaledMatrix matrix = matrix_for(query_composition, static_cast<std::uint32_t>(query.size()),
                                         subject_composition, static_cast<std::uint32_t>(subject.size()));
  for (std::size_t k = 0; k < hits.size(); ++k) {
    Hit& hit = hits[k];
    std::size_t query_begin = 0, query_end = query.size(), begin = 0, end = subject.size();
    if (k > 0) {
      query_begin = hit.query_begin > kHspMargin ? hit.query_begin - kHspMargin : 0;
      query_end = std::min(query.size(), std::size_t{hit.query_end} + kHspMargin);
      begin = hit.subject_begin > kHspMargin ? hit.subject_begin - kHspMargin : 0;
      end = std::min(subject.size(), std::size_t{hit.subject_end} + kHspMargin);
    }
    if (static_cast<std::uint64_t>(query_end - query_begin + 1) * (end - begin + 1) > kMaxRealignedCells) continue;
    const ScaledAlignment a = align_scaled(query, query_begin, query_end, subject, begin, end, matrix,
                                           scaled_gap_open(), scaled_gap_extend());
    const double real_score = static_cast<double>(a.score) / ScaledMatrix::kScale;
    hit.score = static_cast<int>(nearest(real_score));
    hit.evalue =
        statistics.evalue_of_real_score(real_score, static_cast<std::uint32_t>(query.size()), hit.subject_length) /
        evalue_divisor;
    hit.bitscore = statistics.bitscore(hit.score);
    if (a.operations.empty()) continue;
    hit.query_begin = a.query_begin;
    hit.query_end = a.query_end;
    hit.subject_begin = a.subject_begin;
    hit.subject_end = a.subject_end;
    hit.operations = a.operations;
    hit.identities = hit.mismatches = hit.gap_opens = hit.gaps = 0;
    std::size_t qi = a.query_begin, sj = a.subject_begin;
    char previous = 'M';
    for (const char op : a.operations) {
      if (op == 'M') {
        if (query[qi] == searched_subject[sj])
          ++hit.identities;
        else
          ++hit.mismatches;
        ++qi;
        ++sj;
      } else {
        ++hit.gaps;
        if (op != previous) ++hit.gap_opens;
        if (op == 'I')
          ++qi;
        else
          ++sj;
      }
      previous = op;
    }
    hit.subject_aligned_codes = std::string(searched_subject.substr(a.subject_begin, a.subject_end - a.subject_begin));
  }
}

void order_by_evalue(std::vector<Hit>& hits) {
  struct Group {
    std::size_t first, count;
    double best_evalue;
    int best_score;
  };
  std::vector<Group> groups;
  for (std::size_t k = 0; k < hits.size(); ++k) {
    if (groups.empty() || hits[k].subject != hits[groups.back().first].subject ||
        hits[k].strand != hits[groups.back().first].strand)
      groups.push_back({k, 0, hits[k].evalue, hits[k].score});
    Group& g = groups.back();
    ++g.count;
    g.best_evalue = std::min(g.best_evalue, hits[k].evalue);
    g.best_score = std::max(g.best_score, hits[k].score);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    if (a.best_evalue != b.best_evalue) return a.best_evalue < b.best_evalue;
    return a.best_score > b.best_score;
  });
  std::vector<Hit> ordered;
  ordered.reserve(hits.size());
  for (const Group& g : groups) {
    const auto begin = ordered.size();
    for (std::size_t k = g.first; k < g.first + g.count; ++k) ordered.push_back(std::move(hits[k]));
    std::stable_sort(ordered.begin() + static_cast<std::ptrdiff_t>(begin), ordered.end(),
                     [](const Hit& a, const Hit& b) { return a.score > b.score; });
  }
  hits = std::move(ordered);
}

}  // namespace warpsearch
