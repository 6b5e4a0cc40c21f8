// The CPU database-scan kernels against the 64-bit reference (and parasail where it is installed):
// every instruction set this machine runs x every starting width, edge lengths, every built-in
// matrix, several gap pairs, DNA, mixed-length batches, and forced saturation.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/query_scorer.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/catch.hpp"
#include "tests/cpu_kernel_support.hpp"
#include "tests/test_support.hpp"

#if defined(WARPSEARCH_HAVE_PARASAIL)
#include <parasail.h>
#endif

using namespace warpsearch;
using warpsearch::cpu::Isa;
using warpsearch::cpu::QueryScorer;
using warpsearch::cpu::Width;
using warpsearch::test::PackedBatch;
using warpsearch::test::runnable_isas;

namespace {
std::string mutate(std::mt19937_64& rng, const std::string& source, int alphabet_size, double rate) {
  return warpsearch::test::mutated_codes(rng, source, alphabet_size, rate, 6);
}

// A mixed batch: random subjects of the edge lengths and random lengths, plus mutated copies of
// (pieces of) the query, shuffled so that the batch is not sorted.
std::vector<std::string> mixed_subjects(std::mt19937_64& rng, const std::string& query, int alphabet_size,
                                        std::size_t random_count) {
  std::vector<std::string> subjects;
  for (std::size_t length : {1, 2, 3, 4, 5, 31, 32, 33, 255, 256, 257})
    subjects.push_back(test::random_codes(rng, length, alphabet_size));
  subjects.emplace_back();  // an empty subject scores 0
  std::uniform_int_distribution<std::size_t> length(1, 400);
  for (std::size_t n = 0; n < random_count; ++n)
    subjects.push_back(test::random_codes(rng, length(rng), alphabet_size));
  for (double rate : {0.0, 0.05, 0.15, 0.3}) {
    subjects.push_back(mutate(rng, query, alphabet_size, rate));
    if (query.size() > 8)
      subjects.push_back(test::random_codes(rng, 20, alphabet_size) +
                         mutate(rng, query.substr(query.size() / 3), alphabet_size, rate) +
                         test::random_codes(rng, 13, alphabet_size));
  }
  std::shuffle(subjects.begin(), subjects.end(), rng);
  return subjects;
}

std::vector<std::int64_t> reference_scores(const std::string& query, const std::vector<std::string>& subjects,
                                           const ScoringScheme& scoring) {
  std::vector<std::int64_t> scores;
  for (const auto& s : subjects) scores.push_back(reference::local_score(query, s, scoring));
  return scores;
}

// Every runnable instruction set x every starting width against the reference scores.
void check_all_kernels(const std::string& query, const std::vector<std::string>& subjects, const ScoringScheme& scoring,
                       const std::vector<std::int64_t>& expected) {
  const PackedBatch packed(subjects, scoring.matrix().alphabet().pad_code());
  for (Isa isa : runnable_isas()) {
    const QueryScorer scorer(query, scoring, isa);
    for (Width width : {Width::w8, Width::w16, Width::w32}) {
      std::vector<std::int32_t> scores(subjects.size(), -1);
      scorer.score(packed.batch(), scores.data(), width);
      for (std::size_t s = 0; s < subjects.size(); ++s) {
        INFO("isa " << cpu::isa_name(isa) << ", width " << static_cast<int>(width) << ", matrix "
                    << scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend()
                    << ", query length " << query.size() << ", subject " << s << " of length " << subjects[s].size());
        REQUIRE(scores[s] == expected[s]);
      }
    }
    std::vector<std::int32_t> scores(subjects.size(), -1);
    scorer.score(packed.batch(), scores.data());
    for (std::size_t s = 0; s < subjects.size(); ++s) REQUIRE(scores[s] == expected[s]);
  }
}

ScoringScheme blosum62(int open, int extend) {
  return ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{open}, GapExtend{extend});
}

}  // namespace

TEST_CASE("cpu scan: the dispatcher picks an instruction set this CPU runs", "[cpu_kernels]") {
  const Isa best = cpu::best_isa();
  CHECK(cpu::isa_supported(best));
  CHECK(cpu::isa_supported(Isa::scalar));
  CHECK(std::string(cpu::isa_name(Isa::avx2)) == "avx2");
  const QueryScorer scorer(std::string("\x01\x02", 2), blosum62(11, 1));
  CHECK(scorer.isa() == best);
  REQUIRE_THROWS(QueryScorer(std::string("\x01\x1f", 2), blosum62(11, 1)));
}

TEST_CASE("cpu scan: edge query lengths, every instruction set and width", "[cpu_kernels]") {
  std::mt19937_64 rng(20261121);
  const ScoringScheme scoring = blosum62(11, 1);
  for (std::size_t query_length : {1, 2, 31, 32, 33, 255, 256, 257}) {
    const std::string query = test::random_codes(rng, query_length, 25);
    const auto subjects = mixed_subjects(rng, query, 25, 40);
    check_all_kernels(query, subjects, scoring, reference_scores(query, subjects, scoring));
  }
}

TEST_CASE("cpu scan: every built-in matrix", "[cpu_kernels]") {
  std::mt19937_64 rng(7);
  for (const auto& name : SubstitutionMatrix::builtin_names()) {
    const ScoringScheme scoring(SubstitutionMatrix::builtin(name), GapOpen{10}, GapExtend{2});
    // All 28 codes, the padding code and U/O included.
    const std::string query = test::random_codes(rng, 150, 28);
    const auto subjects = mixed_subjects(rng, query, 28, 20);
    check_all_kernels(query, subjects, scoring, reference_scores(query, subjects, scoring));
  }
}

TEST_CASE("cpu scan: gap pairs", "[cpu_kernels]") {
  std::mt19937_64 rng(11);
  for (auto [open, extend] : {std::pair{11, 1}, {10, 1}, {5, 2}, {0, 1}, {20, 5}, {1, 3}}) {
    const ScoringScheme scoring = blosum62(open, extend);
    const std::string query = test::random_codes(rng, 120, 20);
    const auto subjects = mixed_subjects(rng, query, 20, 20);
    check_all_kernels(query, subjects, scoring, reference_scores(query, subjects, scoring));
  }
}

TEST_CASE("cpu scan: DNA", "[cpu_kernels]") {
  std::mt19937_64 rng(13);
  for (auto [match, mismatch] : {std::pair{2, -3}, {1, -1}, {5, -4}}) {
    const ScoringScheme scoring(SubstitutionMatrix::nucleotide(match, mismatch), GapOpen{5}, GapExtend{2});
    const std::string query = test::random_codes(rng, 200, 5);
    const auto subjects = mixed_subjects(rng, query, 5, 20);
    check_all_kernels(query, subjects, scoring, reference_scores(query, subjects, scoring));
  }
}

TEST_CASE("cpu scan: long query and long subjects", "[cpu_kernels]") {
  std::mt19937_64 rng(17);
  const ScoringScheme scoring = blosum62(11, 1);
  const std::string query = test::random_codes(rng, 3000, 20);
  std::vector<std::string> subjects = {test::random_codes(rng, 2500, 20), mutate(rng, query, 20, 0.2),
                                       test::random_codes(rng, 40, 20), mutate(rng, query.substr(1000, 700), 20, 0.1)};
  check_all_kernels(query, subjects, scoring, reference_scores(query, subjects, scoring));
}

TEST_CASE("cpu scan: a batch longer than the lanes, with one long subject among short ones", "[cpu_kernels]") {
  // Lanes are refilled many times; the long subject keeps one lane busy while the others cycle.
  std::mt19937_64 rng(19);
  const ScoringScheme scoring = blosum62(11, 1);
  const std::string query = test::random_codes(rng, 60, 20);
  std::vector<std::string> subjects;
  std::uniform_int_distribution<std::size_t> length(0, 90);
  for (int n = 0; n < 300; ++n) subjects.push_back(test::random_codes(rng, length(rng), 20));
  subjects.push_back(mutate(rng, query + query + query, 20, 0.1) + test::random_codes(rng, 1500, 20));
  subjects.push_back(mutate(rng, query, 20, 0.05));
  std::shuffle(subjects.begin(), subjects.end(), rng);
  check_all_kernels(query, subjects, scoring, reference_scores(query, subjects, scoring));
  // Sorted by length, as a database chunk is.
  std::stable_sort(subjects.begin(), subjects.end(),
                   [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  check_all_kernels(query, subjects, scoring, reference_scores(query, subjects, scoring));
}

TEST_CASE("cpu scan: saturation is flagged exactly and rescored", "[cpu_kernels]") {
  std::mt19937_64 rng(23);
  SECTION("8 bits: identical proteins and a high-scoring matrix") {
    for (const char* name : {"BLOSUM62", "PAM30"}) {
      const ScoringScheme scoring(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
      const std::string query = test::random_codes(rng, 300, 20);
      std::vector<std::string> subjects;
      for (std::size_t cut : {5, 10, 20, 30, 40, 60, 100, 300}) subjects.push_back(query.substr(0, cut));
      subjects.push_back(mutate(rng, query, 20, 0.1));
      const auto expected = reference_scores(query, subjects, scoring);
      const PackedBatch packed(subjects, 25);
      for (Isa isa : runnable_isas()) {
        const QueryScorer scorer(query, scoring, isa);
        const std::int64_t limit = scorer.saturation_limit(Width::w8);
        REQUIRE(limit == 255 + scoring.matrix().min_score());
        std::vector<std::int32_t> scores(subjects.size());
        std::vector<std::uint8_t> saturated(subjects.size());
        scorer.score_width(packed.batch(), Width::w8, scores.data(), saturated.data());
        std::size_t flagged = 0;
        for (std::size_t s = 0; s < subjects.size(); ++s) {
          INFO(cpu::isa_name(isa) << " " << name << " subject " << s << " expected " << expected[s]);
          REQUIRE(static_cast<bool>(saturated[s]) == (expected[s] >= limit));
          if (!saturated[s]) REQUIRE(scores[s] == expected[s]);
          flagged += saturated[s];
        }
        REQUIRE(flagged >= 2);  // the test does reach saturation
        REQUIRE(flagged < subjects.size());
        std::vector<std::int32_t> final_scores(subjects.size());
        const cpu::ScanStats stats = scorer.score(packed.batch(), final_scores.data(), Width::w8);
        CHECK(stats.scored_16 == flagged);
        for (std::size_t s = 0; s < subjects.size(); ++s) REQUIRE(final_scores[s] == expected[s]);
      }
    }
  }
  SECTION("16 bits and on to 32 bits: long identical DNA with a large match score") {
    const ScoringScheme scoring(SubstitutionMatrix::nucleotide(100, -100), GapOpen{20}, GapExtend{5});
    const std::string query = test::random_codes(rng, 1500, 4);
    std::vector<std::string> subjects = {
        query.substr(0, 600), query.substr(0, 700),        query,
        query.substr(200, 2), mutate(rng, query, 4, 0.05), test::random_codes(rng, 900, 4)};
    const auto expected = reference_scores(query, subjects, scoring);
    const PackedBatch packed(subjects, 5);
    for (Isa isa : runnable_isas()) {
      const QueryScorer scorer(query, scoring, isa);
      const std::int64_t limit = scorer.saturation_limit(Width::w16);
      std::vector<std::int32_t> scores(subjects.size());
      std::vector<std::uint8_t> saturated(subjects.size());
      scorer.score_width(packed.batch(), Width::w16, scores.data(), saturated.data());
      std::size_t flagged = 0;
      for (std::size_t s = 0; s < subjects.size(); ++s) {
        INFO(cpu::isa_name(isa) << " subject " << s << " expected " << expected[s]);
        REQUIRE(static_cast<bool>(saturated[s]) == (expected[s] >= limit));
        if (!saturated[s]) REQUIRE(scores[s] == expected[s]);
        flagged += saturated[s];
      }
      REQUIRE(flagged >= 2);
      std::vector<std::int32_t> final_scores(subjects.size());
      const cpu::ScanStats stats = scorer.score(packed.batch(), final_scores.data(), Width::w8);
      CHECK(stats.scored_32 == flagged);
      for (std::size_t s = 0; s < subjects.size(); ++s) REQUIRE(final_scores[s] == expected[s]);
    }
  }
}

TEST_CASE("cpu scan: an empty query and an empty batch", "[cpu_kernels]") {
  const ScoringScheme scoring = blosum62(11, 1);
  const PackedBatch packed({std::string("\x01\x02\x03", 3), std::string()}, 25);
  const PackedBatch empty({}, 25);
  for (Isa isa : runnable_isas()) {
    std::vector<std::int32_t> scores(2, -1);
    QueryScorer(std::string(), scoring, isa).score(packed.batch(), scores.data());
    CHECK(scores == std::vector<std::int32_t>{0, 0});
    QueryScorer(std::string("\x01", 1), scoring, isa).score(empty.batch(), scores.data());
  }
}

#if defined(WARPSEARCH_HAVE_PARASAIL)
TEST_CASE("cpu scan: parasail agrees (a second oracle)", "[cpu_kernels][parasail]") {
  // parasail charges open + (k - 1) * extend for a gap of length k: its open is our open + extend.
  // Codes become the letters A..Z of a parasail matrix filled with our scores.
  std::mt19937_64 rng(29);
  const std::string letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (const char* name : {"BLOSUM62", "BLOSUM45", "PAM30"}) {
    for (auto [open, extend] : {std::pair{11, 1}, {5, 2}}) {
      const ScoringScheme scoring(SubstitutionMatrix::builtin(name), GapOpen{open}, GapExtend{extend});
      parasail_matrix_t* matrix = parasail_matrix_create(letters.c_str(), 0, 0);
      for (int a = 0; a < 25; ++a)
        for (int b = 0; b < 25; ++b)
          parasail_matrix_set_value(matrix, a, b,
                                    scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
      const std::string query = test::random_codes(rng, 180, 20);
      const auto subjects = mixed_subjects(rng, query, 20, 15);
      const PackedBatch packed(subjects, 25);
      std::vector<std::int32_t> scores(subjects.size());
      QueryScorer(query, scoring).score(packed.batch(), scores.data());
      auto to_letters = [&](const std::string& codes) {
        std::string out;
        for (char c : codes) out += letters[static_cast<std::size_t>(c)];
        return out;
      };
      const std::string query_letters = to_letters(query);
      for (std::size_t s = 0; s < subjects.size(); ++s) {
        if (subjects[s].empty()) continue;
        const std::string subject_letters = to_letters(subjects[s]);
        parasail_result_t* result = parasail_sw_striped_32(
            query_letters.c_str(), static_cast<int>(query_letters.size()), subject_letters.c_str(),
            static_cast<int>(subject_letters.size()), open + extend, extend, matrix);
        const int expected = parasail_result_get_score(result);
        parasail_result_free(result);
        INFO(name << " " << open << "/" << extend << " subject " << s);
        CHECK(scores[s] == expected);
      }
      parasail_matrix_free(matrix);
    }
  }
}
#endif
