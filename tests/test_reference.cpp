// The 64-bit reference itself: hand-checked cases, an exhaustive enumeration of every alignment of
// tiny sequences (score, end and start tie-breaks), and parasail as an outside oracle.
#include <cstdint>
#include <random>
#include <string>

#include "kernels/reference.hpp"
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
reference::LocalSpan brute_force(const std::string& query, const std::string& subject, const ScoringScheme& scoring) {
  reference::LocalSpan best;
  for (std::size_t qb = 0; qb < query.size(); ++qb)
    for (std::size_t qe = qb + 1; qe <= query.size(); ++qe)
      for (std::size_t sb = 0; sb < subject.size(); ++sb)
        for (std::size_t se = sb + 1; se <= subject.size(); ++se) {
          const std::int64_t score = best_completion(std::string_view(query).substr(qb, qe - qb),
                                                     std::string_view(subject).substr(sb, se - sb), 0, 0, 'M', scoring);
          if (score <= 0 || score < best.score) continue;
          // Higher score; else the smaller end (subject, then query); else the larger start (subject, then query).
          const bool better =
              score > best.score || se < best.subject_end || (se == best.subject_end && qe < best.query_end) ||
              (se == best.subject_end && qe == best.query_end &&
               (sb > best.subject_begin || (sb == best.subject_begin && qb > best.query_begin)));
          if (better)
            best = {score, static_cast<std::uint32_t>(qb), static_cast<std::uint32_t>(qe),
                    static_cast<std::uint32_t>(sb), static_cast<std::uint32_t>(se)};
        }
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

#if defined(WARPSEARCH_HAVE_PARASAIL)
TEST_CASE("reference: parasail agrees on the score", "[reference][parasail]") {
  // parasail charges open + (k - 1) * extend for a gap of length k: its open is our open + extend.
  std::mt19937_64 rng(37);
  const std::string letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (auto [open, extend] : {std::pair{11, 1}, {10, 1}, {5, 2}, {0, 1}, {20, 5}}) {
    const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM50"), GapOpen{open}, GapExtend{extend});
    parasail_matrix_t* matrix = parasail_matrix_create(letters.c_str(), 0, 0);
    for (int a = 0; a < 25; ++a)
      for (int b = 0; b < 25; ++b)
        parasail_matrix_set_value(matrix, a, b, scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
    for (int n = 0; n < 20; ++n) {
      const std::string query = test::random_codes(rng, 1 + static_cast<std::size_t>(n) * 13, 20);
      std::string subject = test::random_codes(rng, 200, 20);
      subject.insert(subject.size() / 2, query.substr(0, query.size() / 2) + "\x01\x02" + query.substr(query.size() / 2));
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
