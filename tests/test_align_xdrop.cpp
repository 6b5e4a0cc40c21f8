// X-drop extension: the plain reference against hand-checked cases and an independent anchored DP (X
// infinite), and the banded CPU kernel against the reference, cell for cell in its results: score, both
// extensions, the span, and operations that replay to the score.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/reference/banded_xdrop.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

ScoringScheme dna(int match, int mismatch, int open, int extend) {
  return ScoringScheme(SubstitutionMatrix::nucleotide(match, mismatch), GapOpen{open}, GapExtend{extend});
}

ScoringScheme protein(const char* matrix, int open, int extend) {
  return ScoringScheme(SubstitutionMatrix::builtin(matrix), GapOpen{open}, GapExtend{extend});
}

// The best prefix-anchored alignment, by a row-by-row Gotoh DP (no drop-off): the largest H(i, j) over
// the whole matrix, ties to the smallest i + j, then the smallest i. With X infinite an extension must
// equal it.
Extension best_anchored(const std::string& query, const std::string& target, const ScoringScheme& scoring) {
  const std::int64_t minus_infinity = std::numeric_limits<std::int64_t>::min() / 4;
  const std::int64_t open = scoring.gap_open(), extend = scoring.gap_extend();
  const std::size_t m = query.size(), n = target.size();
  std::vector<std::vector<std::int64_t>> h(m + 1, std::vector<std::int64_t>(n + 1, minus_infinity));
  auto e = h, f = h;
  h[0][0] = 0;
  Extension best;
  for (std::size_t i = 0; i <= m; ++i) {
    for (std::size_t j = 0; j <= n; ++j) {
      if (i == 0 && j == 0) continue;
      if (j > 0) e[i][j] = std::max(e[i][j - 1] - extend, h[i][j - 1] - open - extend);
      if (i > 0) f[i][j] = std::max(f[i - 1][j] - extend, h[i - 1][j] - open - extend);
      std::int64_t diagonal = minus_infinity;
      if (i > 0 && j > 0)
        diagonal = h[i - 1][j - 1] +
                   scoring.score(static_cast<std::uint8_t>(query[i - 1]), static_cast<std::uint8_t>(target[j - 1]));
      h[i][j] = std::max({diagonal, e[i][j], f[i][j]});
      const bool earlier = i + j < best.query_length + best.target_length ||
                           (i + j == best.query_length + best.target_length && i < best.query_length);
      if (h[i][j] > best.score || (h[i][j] == best.score && earlier)) {
        best.score = h[i][j];
        best.query_length = static_cast<std::uint32_t>(i);
        best.target_length = static_cast<std::uint32_t>(j);
      }
    }
  }
  return best;
}

// The operations consume exactly the span and score exactly the alignment's score.
void check_operations(const std::string& query, const std::string& target, const ScoringScheme& scoring,
                      const XdropAlignment& alignment) {
  const XdropSpan& span = alignment.span;
  std::int64_t score = 0;
  std::size_t i = span.query_begin, j = span.subject_begin;
  char previous = 'M';
  for (const char op : alignment.operations) {
    if (op == 'M') {
      REQUIRE(i < span.query_end);
      REQUIRE(j < span.subject_end);
      score += scoring.score(static_cast<std::uint8_t>(query[i]), static_cast<std::uint8_t>(target[j]));
      ++i;
      ++j;
    } else {
      REQUIRE((op == 'I' || op == 'D'));
      score -= (op == previous ? 0 : scoring.gap_open()) + scoring.gap_extend();
      ++(op == 'I' ? i : j);
    }
    previous = op;
  }
  REQUIRE(i == span.query_end);
  REQUIRE(j == span.subject_end);
  REQUIRE(score == span.score);
}

void check_against_reference(const std::string& query, const std::string& target, const Seed& seed,
                             const ScoringScheme& scoring, XDrop x) {
  const XdropSpan expected = reference::xdrop_reference(query, target, seed, scoring, x);
  for (const auto width : {XdropAligner::ScoreWidth::automatic, XdropAligner::ScoreWidth::bits64}) {
    XdropAligner aligner(scoring, x, width);
    const XdropAlignment got = aligner.align(query, target, seed, true);
    INFO("X " << x.value << ", seed " << seed.query_begin << "," << seed.target_begin << "+" << seed.length << ", "
              << query.size() << " x " << target.size()
              << (width == XdropAligner::ScoreWidth::bits64 ? ", 64-bit" : ""));
    REQUIRE(got.span.score == expected.score);
    REQUIRE(got.span.seed_score == expected.seed_score);
    REQUIRE(got.span.left.score == expected.left.score);
    REQUIRE(got.span.right.score == expected.right.score);
    REQUIRE(got.span.query_begin == expected.query_begin);
    REQUIRE(got.span.query_end == expected.query_end);
    REQUIRE(got.span.subject_begin == expected.subject_begin);
    REQUIRE(got.span.subject_end == expected.subject_end);
    check_operations(query, target, scoring, got);
    // Without operations: the same span.
    const XdropAlignment plain = aligner.align(query, target, seed, false);
    REQUIRE(plain.operations.empty());
    REQUIRE(plain.span.score == expected.score);
    REQUIRE(plain.span.query_end == expected.query_end);
    REQUIRE(plain.span.subject_begin == expected.subject_begin);
  }
}

}  // namespace

TEST_CASE("xdrop: hand-checked drop-off, strictly more than X below the best", "[xdrop]") {
  // Five matches (score 5), four mismatches (down to 1), five matches (up to 6). Gaps cost 7, so no
  // gapped path stays alive. X = 3: the cell at score 1 is 4 below the best: dead, the extension ends
  // at 5. X = 4: it is exactly X below: alive, and the extension reaches 6 at the end.
  const ScoringScheme scoring = dna(1, -1, 5, 2);
  const auto& alphabet = Alphabet::nucleotide();
  const std::string query = alphabet.encode_string("AAAAACCCCAAAAA");
  const std::string target = alphabet.encode_string("AAAAAGGGGAAAAA");
  const Extension short_one = reference::extend_reference(query, target, scoring, XDrop{3});
  CHECK(short_one.score == 5);
  CHECK(short_one.query_length == 5);
  CHECK(short_one.target_length == 5);
  const Extension long_one = reference::extend_reference(query, target, scoring, XDrop{4});
  CHECK(long_one.score == 6);
  CHECK(long_one.query_length == 14);
  CHECK(long_one.target_length == 14);
  XdropAligner three(scoring, XDrop{3}), four(scoring, XDrop{4});
  CHECK(three.extend(query, target).score == 5);
  std::string operations;
  const Extension got = four.extend(query, target, &operations);
  CHECK(got.score == 6);
  CHECK(operations == std::string(14, 'M'));

  // X = 0: only cells at the best score so far survive; a mismatch right away ends the extension.
  CHECK(reference::extend_reference(alphabet.encode_string("CA"), alphabet.encode_string("GA"), scoring, XDrop{0})
            .score == 0);
  CHECK(three.extend(alphabet.encode_string("CA"), alphabet.encode_string("GA")).score == 0);
}

TEST_CASE("xdrop: the gap convention and a gapped extension", "[xdrop]") {
  // Ten matches, one deleted target residue, ten matches: 20 - (5 + 1 * 2) + 20 = 33.
  const ScoringScheme scoring = dna(2, -3, 5, 2);
  const auto& alphabet = Alphabet::nucleotide();
  const std::string left = alphabet.encode_string("ACGTTGCAAC"), right = alphabet.encode_string("GGATCCTAGC");
  const std::string query = left + right;
  const std::string target = left + alphabet.encode_string("T") + right;
  const Extension expected = reference::extend_reference(query, target, scoring, XDrop{20});
  CHECK(expected.score == 33);
  CHECK(expected.query_length == 20);
  CHECK(expected.target_length == 21);
  XdropAligner aligner(scoring, XDrop{20});
  std::string operations;
  CHECK(aligner.extend(query, target, &operations).score == 33);
  CHECK(operations == std::string(10, 'M') + "D" + std::string(10, 'M'));
  // With X = 6 the gap (a drop of 7) kills the path: the extension stops after the first ten matches.
  CHECK(reference::extend_reference(query, target, scoring, XDrop{6}).score == 20);
}

TEST_CASE("xdrop: seeds, their score, and seeds at the sequence ends", "[xdrop]") {
  const ScoringScheme scoring = dna(2, -3, 5, 2);
  const auto& alphabet = Alphabet::nucleotide();
  const std::string query = alphabet.encode_string("TTTTACGTACGTACGTTTTT");
  const std::string target = alphabet.encode_string("GGACGTACGTACGTGG");
  // The seed ACGT at query 4 (0-based), target 2.
  const Seed seed{4, 2, 4};
  CHECK(seed_score(query, target, seed, scoring) == 8);
  const XdropSpan span = reference::xdrop_reference(query, target, seed, scoring, XDrop{10});
  CHECK(span.score == 24);  // the twelve shared residues
  CHECK(span.query_begin == 4);
  CHECK(span.query_end == 16);
  CHECK(span.subject_begin == 2);
  CHECK(span.subject_end == 14);
  CHECK(span.score == span.seed_score + span.left.score + span.right.score);
  // A seed past the end of either sequence is refused.
  CHECK_THROWS_AS(seed_score(query, target, Seed{18, 2, 4}, scoring), std::out_of_range);
  CHECK_THROWS_AS(reference::xdrop_reference(query, target, Seed{4, 13, 4}, scoring, XDrop{10}), std::out_of_range);
  XdropAligner aligner(scoring, XDrop{10});
  CHECK_THROWS_AS(aligner.align(query, target, Seed{4, 13, 4}, false), std::out_of_range);
  CHECK_THROWS_AS(XdropAligner(scoring, XDrop{-1}), std::invalid_argument);
  CHECK_THROWS_AS(seed_score(query, target, Seed{4, 2, 0}, scoring), std::invalid_argument);  // empty, in the middle
  // Seeds touching the ends: nothing to extend on one side.
  for (const Seed& edge :
       {Seed{0, 0, 3}, Seed{17, 13, 3}, Seed{0, 13, 3}, Seed{17, 0, 3}, Seed{0, 0, 0}, Seed{20, 16, 0}})
    check_against_reference(query, target, edge, scoring, XDrop{10});
  // Empty sequences.
  check_against_reference("", target, Seed{0, 0, 0}, scoring, XDrop{10});
  check_against_reference(query, "", Seed{0, 0, 0}, scoring, XDrop{10});
  check_against_reference("", "", Seed{0, 0, 0}, scoring, XDrop{10});
}

TEST_CASE("xdrop: with X infinite an extension is the best prefix-anchored alignment", "[xdrop]") {
  std::mt19937_64 rng(501);
  const std::vector<ScoringScheme> schemes = {dna(2, -3, 5, 2), dna(1, -1, 0, 1), protein("BLOSUM62", 11, 1),
                                              protein("PAM30", 9, 1)};
  std::uniform_int_distribution<std::size_t> length(0, 90);
  for (const auto& scoring : schemes) {
    const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20;
    for (int n = 0; n < 25; ++n) {
      const std::string query = test::random_codes(rng, length(rng), letters);
      const std::string target =
          n % 2 ? test::mutated_codes(rng, query, letters, 0.2, 4) : test::random_codes(rng, length(rng), letters);
      const Extension expected = best_anchored(query, target, scoring);
      const Extension reference = reference::extend_reference(query, target, scoring, XDrop::infinite());
      INFO(scoring.matrix().name() << " case " << n);
      REQUIRE(reference.score == expected.score);
      REQUIRE(reference.query_length == expected.query_length);
      REQUIRE(reference.target_length == expected.target_length);
      XdropAligner aligner(scoring, XDrop::infinite());
      const Extension fast = aligner.extend(query, target);
      REQUIRE(fast.score == expected.score);
      REQUIRE(fast.query_length == expected.query_length);
      REQUIRE(fast.target_length == expected.target_length);
      check_against_reference(query, target, Seed{0, 0, 0}, scoring, XDrop::infinite());
    }
  }
}

TEST_CASE("xdrop: banded kernel equals the reference on planted similarity", "[xdrop]") {
  std::mt19937_64 rng(503);
  const std::vector<ScoringScheme> schemes = {dna(2, -3, 5, 2),           dna(1, -2, 2, 1),
                                              dna(1, -1, 0, 1),           protein("BLOSUM62", 11, 1),
                                              protein("BLOSUM45", 14, 2), protein("PAM250", 10, 3)};
  for (const auto& scoring : schemes) {
    const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20;
    for (int n = 0; n < 20; ++n) {
      // A shared core with flanks of random residues, the core of the target mutated (substitutions and
      // indels at 5..30%).
      const std::string core = test::random_codes(rng, 40 + static_cast<std::size_t>(n) * 17, letters);
      const std::string query_flank = test::random_codes(rng, static_cast<std::size_t>(rng() % 60), letters);
      const std::string target_flank = test::random_codes(rng, static_cast<std::size_t>(rng() % 60), letters);
      const std::string query =
          query_flank + core + test::random_codes(rng, static_cast<std::size_t>(rng() % 60), letters);
      const std::string target = target_flank +
                                 test::mutated_codes(rng, core, letters, 0.05 + 0.25 * (n % 4) / 3.0, 6) +
                                 test::random_codes(rng, static_cast<std::size_t>(rng() % 60), letters);
      const std::uint32_t length = static_cast<std::uint32_t>(
          std::min<std::size_t>({static_cast<std::size_t>(1 + n % 12), query.size() - query_flank.size(),
                                 target.size() - target_flank.size()}));
      const Seed seed{static_cast<std::uint32_t>(query_flank.size()), static_cast<std::uint32_t>(target_flank.size()),
                      length};
      for (const int x : {0, 1, 5, 12, 30, 80, XDrop::kInfinite}) {
        INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n);
        check_against_reference(query, target, seed, scoring, XDrop{x});
      }
    }
  }
}

TEST_CASE("xdrop: unrelated sequences, repeats and long identical pairs", "[xdrop]") {
  std::mt19937_64 rng(507);
  const ScoringScheme scoring = dna(2, -3, 5, 2);
  for (int n = 0; n < 10; ++n) {
    const std::string query = test::random_codes(rng, 200, 4), target = test::random_codes(rng, 150, 4);
    for (const int x : {0, 10, 50}) check_against_reference(query, target, Seed{100, 70, 1}, scoring, XDrop{x});
  }
  // Low-complexity sequences: many equal scores, so the tie-breaks decide.
  const std::string repeat_a(120, '\0'), repeat_ab = test::random_codes(rng, 90, 2);
  for (const int x : {0, 3, 20}) {
    check_against_reference(repeat_a, repeat_a.substr(0, 77), Seed{40, 30, 5}, scoring, XDrop{x});
    check_against_reference(repeat_ab, repeat_ab + repeat_ab, Seed{0, 0, 0}, scoring, XDrop{x});
  }
  // A long identical pair: 2 * 3,000 = 6,000 from the seed outwards, a narrow band.
  const std::string genome = test::random_codes(rng, 3000, 4);
  check_against_reference(genome, genome, Seed{1500, 1500, 11}, scoring, XDrop{50});
  XdropAligner aligner(scoring, XDrop{50});
  const XdropAlignment whole = aligner.align(genome, genome, Seed{1500, 1500, 11}, true);
  CHECK(whole.span.score == 6000);
  CHECK(whole.operations == std::string(3000, 'M'));
  CHECK(aligner.cells() < 3000u * 200u);  // banded: far fewer cells than the 9 M of the rectangle
}
