// The 64-bit references themselves (local, global, semi-global): hand-checked cases, an exhaustive
// enumeration of every alignment of tiny sequences (score, end and start tie-breaks), and parasail as
// an outside oracle.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "kernels/reference/reference.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

#if defined(WARPSEARCH_HAVE_PARASAIL)
#include <parasail.h>
#endif

using namespace warpsearch;

namespace {

// The best score of any global alignment of a and b that is built column by column from (i, j) on,
// the previous column being previous ('M', 'I' or 'D'): every alignment is enumerated.
std::int64_t best_completion(std::string_view a, std::string_view b, std::size_t i, std::size_t j, char previous,
                             const ScoringScheme& scoring) {
  if (i == a.size() && j == b.size()) return 0;
  std::int64_t best = INT64_MIN / 2;
  if (i < a.size() && j < b.size())
    best = std::max(best, scoring.score(static_cast<std::uint8_t>(a[i]), static_cast<std::uint8_t>(b[j])) +
                              best_completion(a, b, i + 1, j + 1, 'M', scoring));
  if (i < a.size())
    best = std::max(best, -(previous == 'I' ? 0 : scoring.gap_open()) - scoring.gap_extend() +
                              best_completion(a, b, i + 1, j, 'I', scoring));
  if (j < b.size())
    best = std::max(best, -(previous == 'D' ? 0 : scoring.gap_open()) - scoring.gap_extend() +
                              best_completion(a, b, i, j + 1, 'D', scoring));
  return best;
}

// Local alignment by brute force: the best global alignment of every pair of non-empty substrings.
Span brute_force(const std::string& query, const std::string& subject, const ScoringScheme& scoring) {
  Span best;
  for (std::size_t qb = 0; qb < query.size(); ++qb)
    for (std::size_t qe = qb + 1; qe <= query.size(); ++qe)
      for (std::size_t sb = 0; sb < subject.size(); ++sb)
        for (std::size_t se = sb + 1; se <= subject.size(); ++se) {
          const std::int64_t score = best_completion(std::string_view(query).substr(qb, qe - qb),
                                                     std::string_view(subject).substr(sb, se - sb), 0, 0, 'M', scoring);
          if (score <= 0 || score < best.score) continue;
          // Higher score; else the smaller end (subject, then query); else the larger start (subject, then query).
          const bool better = score > best.score || se < best.subject_end ||
                              (se == best.subject_end && qe < best.query_end) ||
                              (se == best.subject_end && qe == best.query_end &&
                               (sb > best.subject_begin || (sb == best.subject_begin && qb > best.query_begin)));
          if (better)
            best = {score, static_cast<std::uint32_t>(qb), static_cast<std::uint32_t>(qe),
                    static_cast<std::uint32_t>(sb), static_cast<std::uint32_t>(se)};
        }
  return best;
}

// Global and semi-global by brute force over every alignment: global is one enumeration; semi-global
// is the best global alignment of the query with every subject substring [sb, se), sb <= se, the
// ties broken by the smallest se, then the largest sb.
Span brute_force(const std::string& query, const std::string& subject, const ScoringScheme& scoring,
                 AlignmentMode mode) {
  Span best;
  const auto m = static_cast<std::uint32_t>(query.size());
  if (mode == AlignmentMode::global)
    return {best_completion(query, subject, 0, 0, 'M', scoring), 0, m, 0, static_cast<std::uint32_t>(subject.size())};
  bool found = false;
  for (std::size_t se = 0; se <= subject.size(); ++se)
    for (std::size_t sb = 0; sb <= se; ++sb) {
      const std::int64_t score =
          best_completion(query, std::string_view(subject).substr(sb, se - sb), 0, 0, 'M', scoring);
      // se ascending: a later se wins only on a higher score; the same se on a higher or equal one.
      if (!found || score > best.score || (score == best.score && se == best.subject_end)) {
        found = true;
        best = {score, 0, m, static_cast<std::uint32_t>(sb), static_cast<std::uint32_t>(se)};
      }
    }
  if (query.empty()) best = {};
  return best;
}

std::string protein(const char* letters) { return Alphabet::protein().encode_string(letters); }
std::string dna(const char* letters) { return Alphabet::nucleotide().encode_string(letters); }

}  // namespace

TEST_CASE("reference: hand-checked scores and ends", "[reference]") {
  const ScoringScheme blosum62(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  CHECK(reference::local_score(protein("W"), protein("W"), blosum62) == 11);
  CHECK(reference::local_score(protein("WW"), protein("AAWWAA"), blosum62) == 22);
  CHECK(reference::local_score(protein("P"), protein("W"), blosum62) == 0);  // P-W = -4
  CHECK(reference::local_score("", protein("W"), blosum62) == 0);

  const ScoringScheme dna_scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  // One gap of length 1 costs 7: 8 matches with the gap score 16 - 7 = 9, below the ungapped TACGT (10).
  auto span = reference::local_span(dna("ACGTACGT"), dna("ACGTTACGT"), dna_scoring);
  CHECK(span.score == 10);
  CHECK(span.query_begin == 3);
  CHECK(span.query_end == 8);
  CHECK(span.subject_begin == 4);
  CHECK(span.subject_end == 9);
  // With cheap gaps the gapped alignment wins: 16 - (1 + 1) = 14.
  const ScoringScheme cheap_gaps(SubstitutionMatrix::nucleotide(2, -3), GapOpen{1}, GapExtend{1});
  span = reference::local_span(dna("ACGTACGT"), dna("ACGTTACGT"), cheap_gaps);
  CHECK(span.score == 14);
  CHECK(span.query_begin == 0);
  CHECK(span.subject_begin == 0);
  CHECK(span.query_end == 8);
  CHECK(span.subject_end == 9);

  // Ties of the end: the smallest subject position, then the smallest query position.
  span = reference::local_span(dna("AA"), dna("A"), dna_scoring);
  CHECK((span.score == 2 && span.query_end == 1 && span.subject_end == 1));
  span = reference::local_span(dna("A"), dna("AA"), dna_scoring);
  CHECK((span.score == 2 && span.query_end == 1 && span.subject_end == 1));
  span = reference::local_span(dna("ACGGGACG"), dna("TTACGTTTACGTT"), dna_scoring);
  CHECK((span.score == 6 && span.query_begin == 0 && span.query_end == 3 && span.subject_begin == 2 &&
         span.subject_end == 5));
  // A tie of the start (match 1, mismatch -1): A, G/C, T, T scores 1 - 1 + 2 = 2, as does TT alone;
  // the shorter alignment (largest starts) is chosen.
  const ScoringScheme unit(SubstitutionMatrix::nucleotide(1, -1), GapOpen{3}, GapExtend{1});
  span = reference::local_span(dna("AGTT"), dna("ACTT"), unit);
  CHECK(span.score == 2);
  CHECK(span.query_begin == 2);
  CHECK(span.subject_begin == 2);
  // No positive cell: everything zero.
  span = reference::local_span(dna("AAAA"), dna("CCCC"), dna_scoring);
  CHECK((span.score == 0 && span.query_end == 0 && span.subject_end == 0 && span.query_begin == 0));
}

TEST_CASE("reference: exhaustive enumeration of tiny alignments", "[reference]") {
  std::mt19937_64 rng(31);
  std::uniform_int_distribution<std::size_t> length(1, 5);
  const ScoringScheme schemes[] = {
      ScoringScheme(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{1}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::nucleotide(5, -4), GapOpen{2}, GapExtend{2}),
      ScoringScheme(SubstitutionMatrix::builtin("PAM30"), GapOpen{1}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{0}, GapExtend{1}),
  };
  for (const auto& scoring : schemes) {
    const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 3 : 4;
    for (int n = 0; n < 60; ++n) {
      const std::string query = test::random_codes(rng, length(rng), letters);
      const std::string subject = test::random_codes(rng, length(rng), letters);
      const auto expected = brute_force(query, subject, scoring);
      const auto span = reference::local_span(query, subject, scoring);
      INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n);
      REQUIRE(span.score == expected.score);
      REQUIRE(span.query_end == expected.query_end);
      REQUIRE(span.subject_end == expected.subject_end);
      REQUIRE(span.query_begin == expected.query_begin);
      REQUIRE(span.subject_begin == expected.subject_begin);
      const auto end = reference::local_end(query, subject, scoring);
      REQUIRE(end.score == expected.score);
      REQUIRE(end.subject_end == expected.subject_end);
    }
  }
}

TEST_CASE("reference: hand-checked global and semi-global spans", "[reference][modes]") {
  const ScoringScheme dna_scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  auto global = [&](const char* a, const char* b) {
    return reference::span(dna(a), dna(b), dna_scoring, AlignmentMode::global);
  };
  CHECK(global("ACGT", "ACGT").score == 8);
  // One deletion of C (a gap of length 1 costs 5 + 2): 6 - 7.
  CHECK(global("ACGT", "AGT").score == -1);
  // The gap convention: a gap of length k costs open + k * extend; an empty side is one gap.
  CHECK(global("", "AAA").score == -(5 + 3 * 2));
  CHECK(global("AAAA", "").score == -(5 + 4 * 2));
  CHECK(global("", "").score == 0);
  // Two matches and one gap of 4 (-13) beat two gaps of 2 (-18).
  auto span = global("AAAAAA", "AA");
  CHECK(span.score == 4 - 13);
  CHECK((span.query_begin == 0 && span.subject_begin == 0 && span.query_end == 6 && span.subject_end == 2));

  auto semiglobal = [&](const char* a, const char* b, const ScoringScheme& scoring) {
    return reference::span(dna(a), dna(b), scoring, AlignmentMode::semiglobal);
  };
  span = semiglobal("ACGT", "TTACGTTT", dna_scoring);
  CHECK((span.score == 8 && span.query_begin == 0 && span.query_end == 4 && span.subject_begin == 2 &&
         span.subject_end == 6));
  // The query end to end even when a local alignment would drop its ends: T mismatches (-3) but stays.
  span = semiglobal("TACGTT", "GACGTG", dna_scoring);
  CHECK((span.score == 8 - 6 && span.subject_begin == 0 && span.subject_end == 6));
  // The smallest subject end among the optimal ones.
  span = semiglobal("AC", "ACAC", dna_scoring);
  CHECK((span.score == 4 && span.subject_begin == 0 && span.subject_end == 2));
  // Match 1, mismatch -1, gap k costs k: the query C against G then A-A (begin 1), or C against a gap
  // then A-A (begin 2), both score 0 and end at 3: the largest start is taken.
  const ScoringScheme unit(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  span = semiglobal("CA", "GGA", unit);
  CHECK((span.score == 0 && span.subject_begin == 2 && span.subject_end == 3));
  // All gaps (-1) ties with the mismatch (-1); the all-gap alignment ends first, at 0.
  span = semiglobal("A", "C", unit);
  CHECK((span.score == -1 && span.subject_begin == 0 && span.subject_end == 0 && span.query_end == 1));
  // Empty query: nothing to align.
  span = semiglobal("", "ACGT", dna_scoring);
  CHECK((span.score == 0 && span.subject_end == 0 && span.query_end == 0));
  // Empty subject: the query is one gap.
  span = semiglobal("ACG", "", dna_scoring);
  CHECK((span.score == -(5 + 3 * 2) && span.subject_end == 0 && span.query_end == 3));
  // Local mode is local_span.
  const auto local = reference::span(dna("ACGGGACG"), dna("TTACGTTTACGTT"), dna_scoring, AlignmentMode::local);
  const auto expected = reference::local_span(dna("ACGGGACG"), dna("TTACGTTTACGTT"), dna_scoring);
  CHECK((local.score == expected.score && local.subject_begin == expected.subject_begin &&
         local.subject_end == expected.subject_end && local.query_begin == expected.query_begin &&
         local.query_end == expected.query_end));
}

TEST_CASE("reference: exhaustive enumeration of tiny global and semi-global alignments", "[reference][modes]") {
  std::mt19937_64 rng(41);
  std::uniform_int_distribution<std::size_t> length(0, 5);
  const ScoringScheme schemes[] = {
      ScoringScheme(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{1}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::nucleotide(5, -4), GapOpen{2}, GapExtend{2}),
      ScoringScheme(SubstitutionMatrix::builtin("PAM30"), GapOpen{1}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{0}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::builtin("BLOSUM45"), GapOpen{11}, GapExtend{1}),
  };
  for (const AlignmentMode mode : {AlignmentMode::global, AlignmentMode::semiglobal})
    for (const auto& scoring : schemes) {
      const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 3 : 4;
      for (int n = 0; n < 60; ++n) {
        const std::string query = test::random_codes(rng, length(rng), letters);
        const std::string subject = test::random_codes(rng, length(rng), letters);
        const auto expected = brute_force(query, subject, scoring, mode);
        const auto span = reference::span(query, subject, scoring, mode);
        INFO((mode == AlignmentMode::global ? "global " : "semiglobal ")
             << scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n
             << " lengths " << query.size() << " x " << subject.size());
        REQUIRE(span.score == expected.score);
        REQUIRE(span.query_begin == expected.query_begin);
        REQUIRE(span.query_end == expected.query_end);
        REQUIRE(span.subject_begin == expected.subject_begin);
        REQUIRE(span.subject_end == expected.subject_end);
      }
    }
}

TEST_CASE("reference: a semi-global span is a rectangle whose global alignment keeps the score", "[reference][modes]") {
  std::mt19937_64 rng(43);
  for (const char* name : {"BLOSUM62", "PAM250"}) {
    const ScoringScheme scoring(SubstitutionMatrix::builtin(name), GapOpen{10}, GapExtend{1});
    for (int n = 0; n < 30; ++n) {
      const std::string query = test::random_codes(rng, 1 + static_cast<std::size_t>(n) * 3, 20);
      std::string subject = test::random_codes(rng, 40, 20) + test::mutated_codes(rng, query, 20, 0.2, 3) +
                            test::random_codes(rng, 40, 20);
      const auto span = reference::span(query, subject, scoring, AlignmentMode::semiglobal);
      const std::string_view rectangle =
          std::string_view(subject).substr(span.subject_begin, span.subject_end - span.subject_begin);
      const auto inside = reference::span(query, rectangle, scoring, AlignmentMode::global);
      INFO(name << " case " << n);
      CHECK(inside.score == span.score);
      // A global alignment never beats the semi-global one.
      CHECK(reference::span(query, subject, scoring, AlignmentMode::global).score <= span.score);
    }
  }
}

#if defined(WARPSEARCH_HAVE_PARASAIL)
namespace {

// Residue codes as parasail letters: code c is kParasailLetters[c]; the matrix is ours, all 32 codes.
constexpr const char kParasailLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";

parasail_matrix_t* parasail_matrix_of(const ScoringScheme& scoring) {
  parasail_matrix_t* matrix = parasail_matrix_create(kParasailLetters, 0, 0);
  for (int a = 0; a < kMaxCodes; ++a)
    for (int b = 0; b < kMaxCodes; ++b)
      parasail_matrix_set_value(matrix, a, b,
                                scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
  return matrix;
}

std::string parasail_letters(const std::string& codes) {
  std::string letters;
  for (char c : codes) letters += kParasailLetters[static_cast<std::size_t>(c)];
  return letters;
}

}  // namespace

TEST_CASE("reference: parasail agrees on global and semi-global scores", "[reference][modes][parasail]") {
  // parasail's open is ours + extend. parasail_nw is Needleman-Wunsch; parasail_sg_dx frees the leading
  // and trailing gaps of s2 (the subject), i.e. the query end to end against any subject substring.
  std::mt19937_64 rng(47);
  const std::size_t edge_lengths[] = {1, 2, 15, 16, 17, 31, 32, 33, 64, 255, 256, 257};
  std::vector<ScoringScheme> schemes;
  for (const std::string& name : SubstitutionMatrix::builtin_names())
    schemes.emplace_back(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
  for (auto [open, extend] : {std::pair{10, 1}, {5, 2}, {0, 1}, {20, 5}, {3, 3}})
    schemes.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{open}, GapExtend{extend});
  for (auto [open, extend] : {std::pair{5, 2}, {0, 1}, {2, 4}})
    schemes.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{open}, GapExtend{extend});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{1}, GapExtend{1});
  for (const auto& scoring : schemes) {
    parasail_matrix_t* matrix = parasail_matrix_of(scoring);
    const int letters = scoring.matrix().alphabet().size();
    const int open = scoring.gap_open() + scoring.gap_extend(), extend = scoring.gap_extend();
    for (int n = 0; n < 24; ++n) {
      std::uniform_int_distribution<std::size_t> pick(0, std::size(edge_lengths) - 1);
      const std::size_t query_length = n < 12 ? edge_lengths[static_cast<std::size_t>(n)] : edge_lengths[pick(rng)];
      const std::string query = test::random_codes(rng, query_length, letters);
      // Half the subjects unrelated, half a mutated copy of the query inside random flanks.
      const std::string subject = n % 2 == 0 ? test::random_codes(rng, edge_lengths[pick(rng)], letters)
                                             : test::random_codes(rng, n, letters) +
                                                   test::mutated_codes(rng, query, letters, 0.15, 4) +
                                                   test::random_codes(rng, static_cast<std::size_t>(2 * n), letters);
      const std::string q = parasail_letters(query), s = parasail_letters(subject);
      parasail_result_t* nw = parasail_nw(q.c_str(), static_cast<int>(q.size()), s.c_str(), static_cast<int>(s.size()),
                                          open, extend, matrix);
      parasail_result_t* sg = parasail_sg_dx(q.c_str(), static_cast<int>(q.size()), s.c_str(),
                                             static_cast<int>(s.size()), open, extend, matrix);
      const int expected_global = parasail_result_get_score(nw);
      const int expected_semiglobal = parasail_result_get_score(sg);
      parasail_result_free(nw);
      parasail_result_free(sg);
      INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << extend << " case " << n << " lengths "
                                   << query.size() << " x " << subject.size());
      CHECK(reference::span(query, subject, scoring, AlignmentMode::global).score == expected_global);
      CHECK(reference::span(query, subject, scoring, AlignmentMode::semiglobal).score == expected_semiglobal);
    }
    parasail_matrix_free(matrix);
  }
}

TEST_CASE("reference: parasail agrees on the score", "[reference][parasail]") {
  // parasail charges open + (k - 1) * extend for a gap of length k: its open is our open + extend.
  std::mt19937_64 rng(37);
  const std::string letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (auto [open, extend] : {std::pair{11, 1}, {10, 1}, {5, 2}, {0, 1}, {20, 5}}) {
    const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM50"), GapOpen{open}, GapExtend{extend});
    parasail_matrix_t* matrix = parasail_matrix_create(letters.c_str(), 0, 0);
    for (int a = 0; a < 25; ++a)
      for (int b = 0; b < 25; ++b)
        parasail_matrix_set_value(matrix, a, b,
                                  scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
    for (int n = 0; n < 20; ++n) {
      const std::string query = test::random_codes(rng, 1 + static_cast<std::size_t>(n) * 13, 20);
      std::string subject = test::random_codes(rng, 200, 20);
      subject.insert(subject.size() / 2,
                     query.substr(0, query.size() / 2) + "\x01\x02" + query.substr(query.size() / 2));
      std::string q_letters, s_letters;
      for (char c : query) q_letters += letters[static_cast<std::size_t>(c)];
      for (char c : subject) s_letters += letters[static_cast<std::size_t>(c)];
      parasail_result_t* result = parasail_sw(q_letters.c_str(), static_cast<int>(q_letters.size()), s_letters.c_str(),
                                              static_cast<int>(s_letters.size()), open + extend, extend, matrix);
      const int expected = parasail_result_get_score(result);
      parasail_result_free(result);
      INFO(open << "/" << extend << " case " << n);
      CHECK(reference::local_score(query, subject, scoring) == expected);
    }
    parasail_matrix_free(matrix);
  }
}
#endif
