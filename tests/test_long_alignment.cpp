// Long pair alignment: the linear-memory traceback (Myers-Miller, kernels/cpu/alignment.hpp) forced on
// small rectangles against the 64-bit references in every mode.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "kernels/reference.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

constexpr AlignmentMode kModes[] = {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal};

// The score of the operations over the alignment's rectangle, by the gap rule of profile/scoring.hpp,
// written here without the library's replay; fails the test when the operations do not consume the
// rectangle exactly.
std::int64_t rescore(std::string_view query, std::string_view subject, const ScoringScheme& scoring,
                     const cpu::PairAlignment& alignment) {
  std::int64_t score = 0;
  std::size_t i = alignment.query_begin, j = alignment.subject_begin;
  char previous = 'M';
  bool inside = true;  // every operation is M, I or D and stays inside the rectangle
  for (const char op : alignment.operations) {
    if (op == 'M') {
      inside = inside && i < alignment.query_end && j < alignment.subject_end;
      if (!inside) break;
      score += scoring.score(static_cast<std::uint8_t>(query[i++]), static_cast<std::uint8_t>(subject[j++]));
    } else {
      inside = inside && (op == 'I' || op == 'D');
      score -= (op == previous ? 0 : scoring.gap_open()) + scoring.gap_extend();
      ++(op == 'I' ? i : j);
    }
    previous = op;
  }
  REQUIRE(inside);
  REQUIRE(i == alignment.query_end);
  REQUIRE(j == alignment.subject_end);
  return score;
}

// Limits that send every rectangle above `leaf` cells to the linear-memory path.
cpu::AlignmentLimits linear_limits(std::uint64_t leaf) {
  cpu::AlignmentLimits limits;
  limits.full_traceback_cells = leaf;
  limits.checkpoint_bytes = 0;
  return limits;
}

}  // namespace

TEST_CASE("long alignment: the linear-memory path against the reference", "[alignment][linear]") {
  std::mt19937_64 rng(97);
  std::vector<ScoringScheme> schemes;
  for (const auto& name : {"BLOSUM62", "PAM30"})
    schemes.emplace_back(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
  // Open 0 (extending never beats opening), cheap and dear gaps, the dearest extend the scoring allows
  // (open + extend <= 127; extend >= 1, so there is no free extension).
  for (auto [open, extend] : {std::pair{0, 1}, {1, 1}, {20, 5}, {3, 60}, {0, 127}, {126, 1}})
    schemes.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{open}, GapExtend{extend});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -2), GapOpen{2}, GapExtend{1});
  std::uniform_int_distribution<std::size_t> length(0, 90);
  for (const auto& scoring : schemes) {
    const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20;
    for (int n = 0; n < 24; ++n) {
      // Unrelated, related (long gaps across the middle rows), and two-letter pairs (many ties).
      const int kind = n % 3;
      const std::string query = test::random_codes(rng, length(rng), kind == 2 ? 2 : letters);
      const std::string subject =
          kind == 1 ? test::random_codes(rng, length(rng) / 6, letters) +
                          test::mutated_codes(rng, query, letters, 0.1 * (n % 5), 12) +
                          test::random_codes(rng, length(rng) / 6, letters)
                    : test::random_codes(rng, length(rng), kind == 2 ? 2 : letters);
      for (const AlignmentMode mode : kModes) {
        const reference::Span expected = reference::span(query, subject, scoring, mode);
        for (std::uint64_t leaf : {std::uint64_t{0}, std::uint64_t{2}, std::uint64_t{40}, std::uint64_t{300}}) {
          INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " mode "
                                       << static_cast<int>(mode) << " case " << n << ": " << query.size() << " x "
                                       << subject.size() << ", leaf " << leaf);
          const cpu::PairAlignment alignment = cpu::align_pair(query, subject, scoring, mode, linear_limits(leaf));
          REQUIRE(alignment.score == expected.score);
          REQUIRE(alignment.query_begin == expected.query_begin);
          REQUIRE(alignment.query_end == expected.query_end);
          REQUIRE(alignment.subject_begin == expected.subject_begin);
          REQUIRE(alignment.subject_end == expected.subject_end);
          REQUIRE(rescore(query, subject, scoring, alignment) == expected.score);
        }
      }
    }
  }
}
