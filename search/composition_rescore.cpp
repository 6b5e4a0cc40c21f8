// Composition-based statistics applied to a subject's hits (see composition.hpp): the realignment with
// the adjusted matrix (Smith-Waterman, or blastp's X-drop extension from its start points:
// search/composition_xdrop.hpp) and the adjusted scores, E-values and order.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "profile/seg.hpp"
#include "search/composition.hpp"
#include "search/composition_tables.hpp"
#include "search/composition_xdrop.hpp"
#include "search/warpsearch.hpp"
#include "statistics/statistics.hpp"

namespace warpsearch {

using namespace composition_tables;  // NOLINT: the letter codes and BLAST's rounding, in their own file

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

namespace {

// The adjusted values of a hit whose alignment scores `scaled_score` at the fine scale: the E-value of
// the real score, the rounded raw score and its bit score.
void set_adjusted_score(Hit& hit, std::int64_t scaled_score, std::size_t query_length,
                        const EvalueCalculator& statistics, double evalue_divisor) {
  const double real_score = static_cast<double>(scaled_score) / ScaledMatrix::kScale;
  hit.score = static_cast<int>(nearest(real_score));
  hit.evalue =
      statistics.evalue_of_real_score(real_score, static_cast<std::uint32_t>(query_length), hit.subject_length) /
      evalue_divisor;
  hit.bitscore = statistics.bitscore(hit.score);
}

// The hit's alignment fields from a realigned alignment (identities against the searched subject).
void set_alignment(Hit& hit, const ScaledAlignment& a, std::string_view query, std::string_view searched_subject) {
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

}  // namespace

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
  if (realignment_ == CompositionRealignment::xdrop) {
    realign_by_xdrop(query, subject, searched_subject, matrix, hits, statistics, evalue_divisor);
    return;
  }
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
    set_adjusted_score(hit, a.score, query.size(), statistics, evalue_divisor);
    if (!a.operations.empty()) set_alignment(hit, a, query, searched_subject);
  }
}

void CompositionAdjustment::realign_by_xdrop(std::string_view query, std::string_view masked_subject,
                                             std::string_view searched_subject, const ScaledMatrix& matrix,
                                             std::vector<Hit>& hits, const EvalueCalculator& statistics,
                                             double evalue_divisor) const {
  // The X-drop and the containment tolerance (2 bits) at the fine scale of the gapped lambda.
  const double fine_lambda = statistics.parameters().lambda / ScaledMatrix::kScale;
  const XdropRealignParameters parameters{scaled_gap_open(), scaled_gap_extend(),
                                          static_cast<std::int64_t>(kXdropBits * std::log(2.0) / fine_lambda),
                                          kMaxRealignedCells};
  const double tolerance = 2 * std::log(2.0) / fine_lambda;
  std::vector<ScaledAlignment> realigned;
  std::vector<std::size_t> owner;  // the hit each realigned alignment belongs to
  const auto contains = [](const ScaledAlignment& a, std::size_t q, std::size_t s) {
    return a.query_begin <= q && q <= a.query_end && a.subject_begin <= s && s <= a.subject_end;
  };
  // Adds an alignment unless one sharing its start or its end scores at least as much; removes those
  // sharing an end with it otherwise.
  const auto add = [&](ScaledAlignment a, std::size_t k) {
    const auto shares_end = [&](const ScaledAlignment& r) {
      return (r.query_begin == a.query_begin && r.subject_begin == a.subject_begin) ||
             (r.query_end == a.query_end && r.subject_end == a.subject_end);
    };
    for (const ScaledAlignment& r : realigned)
      if (shares_end(r) && a.score <= r.score) return;
    for (std::size_t r = realigned.size(); r-- > 0;)
      if (shares_end(realigned[r])) {
        realigned.erase(realigned.begin() + static_cast<std::ptrdiff_t>(r));
        owner.erase(owner.begin() + static_cast<std::ptrdiff_t>(r));
      }
    realigned.push_back(std::move(a));
    owner.push_back(k);
  };
  // blastp's preliminary HSPs: X-drop alignments with the standard matrix from the same start points,
  // with the preliminary X-drop (gap_x_dropoff, 15 bits of the gapped lambda).
  const XdropRealignParameters preliminary_parameters{
      gap_open_, gap_extend_,
      static_cast<std::int64_t>(kPreliminaryXdropBits * std::log(2.0) / statistics.parameters().lambda),
      kMaxRealignedCells};
  std::vector<ScaledAlignment> preliminary;
  const auto in_preliminary = [&](std::size_t q, std::size_t s) {
    return std::any_of(preliminary.begin(), preliminary.end(), [&](const ScaledAlignment& a) {
      return a.query_begin <= q && q < a.query_end && a.subject_begin <= s && s < a.subject_end;
    });
  };
  // An extension with more than kMaxRealignedCells cells (long, low-complexity alignments): the subject's
  // hits keep their unadjusted values, as in the Smith-Waterman realignment.
  try {
    for (std::size_t k = 0; k < hits.size(); ++k) {
      const Hit& hit = hits[k];
      // The first start point lies in the hit's best ungapped stretch. Where the preliminary alignment
      // leaves parts of the hit uncovered, blastp has more preliminary HSPs whenever a seed there reaches
      // the gap trigger: each such part gives one more start point.
      for (int round = 0; round < kMaxStartsPerHit; ++round) {
        StartPoint start;
        bool found = false;
        std::size_t i = hit.query_begin, j = hit.subject_begin, piece = 0;
        std::size_t piece_query = i, piece_subject = j;
        const auto consider = [&](std::size_t end) {
          if (end <= piece) return;
          const StartPoint candidate =
              gapped_start_point(query, searched_subject, static_cast<std::uint32_t>(piece_query),
                                 static_cast<std::uint32_t>(piece_subject),
                                 std::string_view(hit.operations).substr(piece, end - piece), standard_);
          if (!found || candidate.stretch_score > start.stretch_score) start = candidate, found = true;
        };
        for (std::size_t op = 0; op < hit.operations.size(); ++op) {
          const char c = hit.operations[op];
          if (c == 'M' && in_preliminary(i, j)) {
            consider(op);
            piece = op + 1;
            piece_query = i + 1;
            piece_subject = j + 1;
          }
          if (c != 'D') ++i;
          if (c != 'I') ++j;
        }
        consider(hit.operations.size());
        if (!found || (round > 0 && start.stretch_score < kGapTriggerScore)) break;
        ScaledAlignment first =
            xdrop_align(query, searched_subject, start.query, start.subject, standard_, preliminary_parameters);
        if (first.operations.empty()) break;
        // Beyond the best hit's first, a preliminary HSP must reach blastp's preliminary cut-off: the
        // E-value cut-off, 5 times larger with the matrix adjustment (modes 2 and 3).
        const double preliminary_evalue =
            statistics.evalue_of_real_score(static_cast<double>(first.score), static_cast<std::uint32_t>(query.size()),
                                            hit.subject_length) /
            evalue_divisor;
        if ((k > 0 || round > 0) &&
            preliminary_evalue > max_evalue_ * (mode_ == CompositionMode::scaled_lambda ? 1 : kPreliminaryEvalueFactor))
          break;
        // A preliminary HSP inside a realigned alignment that scores clearly more is that alignment's.
        const double standard_score = static_cast<double>(first.score) * ScaledMatrix::kScale;
        const bool contained = std::any_of(realigned.begin(), realigned.end(), [&](const ScaledAlignment& a) {
          return contains(a, first.query_begin, first.subject_begin) &&
                 contains(a, first.query_end, first.subject_end) &&
                 standard_score + tolerance <= static_cast<double>(a.score);
        });
        preliminary.push_back(std::move(first));
        if (!contained) add(xdrop_align(query, masked_subject, start.query, start.subject, matrix, parameters), k);
      }
    }
  } catch (const std::length_error&) {
    return;
  }
  // No more alignments than the exact search found (so that --max-hsps holds): the best ones.
  std::vector<std::size_t> order(realigned.size());
  for (std::size_t r = 0; r < order.size(); ++r) order[r] = r;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return realigned[x].score > realigned[y].score; });
  if (order.size() > hits.size()) order.resize(hits.size());
  std::vector<Hit> kept;
  kept.reserve(order.size());
  for (const std::size_t r : order) {
    Hit hit = hits[owner[r]];
    set_adjusted_score(hit, realigned[r].score, query.size(), statistics, evalue_divisor);
    if (!realigned[r].operations.empty()) set_alignment(hit, realigned[r], query, searched_subject);
    kept.push_back(std::move(hit));
  }
  hits = std::move(kept);
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
