// The traceback's exact band (optimal_band in profile/exact_band.hpp, AlignmentLimits::exact_band): every cell of every
// optimal global alignment lies inside it (found here by a plain 64-bit forward and backward DP), it is
// one diagonal for identical sequences, and on each traceback path (whole table, checkpointed bands,
// linear memory), at any thread count, the operations with the band are those without it.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/alignment_rows.hpp"
#include "kernels/cpu/global_aligner.hpp"
#include "kernels/reference/reference.hpp"
#include "profile/exact_band.hpp"
#include "tests/catch.hpp"
#include "tests/random_sequences.hpp"

using namespace warpsearch;

namespace {

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min() / 4;

// For each cell (i, j) of the global DP of a against b, whether some optimal alignment passes through it,
// and the optimal score: forward values per state (last operation M, I = a residue against a gap, D = b
// residue against a gap) plus backward values per state (given the operation before), summed.
struct OptimalCells {
  std::int64_t score = 0;
  std::vector<std::vector<bool>> on_optimal;
};

OptimalCells optimal_cells(std::string_view a, std::string_view b, const ScoringScheme& scoring) {
  const std::size_t m = a.size(), n = b.size();
  const std::int64_t open = scoring.gap_open(), extend = scoring.gap_extend();
  const auto s = [&](std::size_t i, std::size_t j) {
    return std::int64_t{scoring.score(static_cast<std::uint8_t>(a[i]), static_cast<std::uint8_t>(b[j]))};
  };
  using Table = std::vector<std::vector<std::int64_t>>;
  const Table none(m + 1, std::vector<std::int64_t>(n + 1, kNone));
  Table fm = none, fi = none, fd = none, bm = none, bi = none, bd = none;
  fm[0][0] = 0;  // the start: no gap before it
  for (std::size_t i = 0; i <= m; ++i)
    for (std::size_t j = 0; j <= n; ++j) {
      if (i > 0 && j > 0) fm[i][j] = std::max({fm[i - 1][j - 1], fi[i - 1][j - 1], fd[i - 1][j - 1]}) + s(i - 1, j - 1);
      if (i > 0)
        fi[i][j] = std::max({fi[i - 1][j] - extend, fm[i - 1][j] - open - extend, fd[i - 1][j] - open - extend});
      if (j > 0)
        fd[i][j] = std::max({fd[i][j - 1] - extend, fm[i][j - 1] - open - extend, fi[i][j - 1] - open - extend});
    }
  for (std::size_t i = m + 1; i-- > 0;)
    for (std::size_t j = n + 1; j-- > 0;) {
      if (i == m && j == n) {
        bm[i][j] = bi[i][j] = bd[i][j] = 0;
        continue;
      }
      const std::int64_t diagonal = i < m && j < n ? bm[i + 1][j + 1] + s(i, j) : kNone;
      const std::int64_t down = i < m ? bi[i + 1][j] - extend : kNone;  // an I step from here
      const std::int64_t right = j < n ? bd[i][j + 1] - extend : kNone;
      bm[i][j] = std::max({diagonal, down - open, right - open});
      bi[i][j] = std::max({diagonal, down, right - open});
      bd[i][j] = std::max({diagonal, down - open, right});
    }
  OptimalCells cells;
  cells.score = std::max({fm[m][n], fi[m][n], fd[m][n]});
  cells.on_optimal.assign(m + 1, std::vector<bool>(n + 1, false));
  for (std::size_t i = 0; i <= m; ++i)
    for (std::size_t j = 0; j <= n; ++j)
      cells.on_optimal[i][j] = std::max({fm[i][j] + bm[i][j], fi[i][j] + bi[i][j], fd[i][j] + bd[i][j]}) == cells.score;
  return cells;
}

std::vector<ScoringScheme> schemes() {
  std::vector<ScoringScheme> all;
  all.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  all.emplace_back(SubstitutionMatrix::nucleotide(1, -2), GapOpen{0}, GapExtend{1});
  all.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{2}, GapExtend{1});
  all.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  all.emplace_back(SubstitutionMatrix::builtin("PAM30"), GapOpen{0}, GapExtend{1});
  return all;
}

int letters(const ScoringScheme& scoring) { return scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20; }

}  // namespace

TEST_CASE("exact band: every optimal alignment lies inside it", "[alignment][band]") {
  std::mt19937_64 rng(41);
  std::uniform_int_distribution<std::size_t> length(0, 160);
  std::size_t narrowed = 0;
  for (const ScoringScheme& scoring : schemes()) {
    const int codes = letters(scoring);
    for (int n = 0; n < 40; ++n) {
      // Identical, nearly identical (few and short indels: the narrowest bands), mutated, unrelated.
      const std::string a = test::random_codes(rng, length(rng), codes);
      const std::string b = n % 4 == 0   ? a
                            : n % 4 == 1 ? test::mutated_codes(rng, a, codes, 0.02, 2)
                            : n % 4 == 2 ? test::mutated_codes(rng, a, codes, 0.15, 6)
                                         : test::random_codes(rng, length(rng), codes);
      INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n << ": "
                                   << a.size() << " x " << b.size());
      const OptimalCells cells = optimal_cells(a, b, scoring);
      const auto band = optimal_band(a.size(), b.size(), cells.score, scoring, scoring.gap_open());
      if (!band) continue;
      ++narrowed;
      for (std::size_t i = 0; i <= a.size(); ++i)
        for (std::size_t j = 0; j <= b.size(); ++j) {
          if (!cells.on_optimal[i][j]) continue;
          const auto diagonal = static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i);
          INFO("cell " << i << ", " << j << " of an optimal alignment; band " << band->low << ".." << band->high);
          REQUIRE(diagonal >= band->low);
          REQUIRE(diagonal <= band->high);
        }
    }
  }
  CHECK(narrowed >= 40);  // the band excluded cells in many of the cases, not only in the trivial ones
}

TEST_CASE("exact band: identical sequences keep one diagonal", "[alignment][band]") {
  std::mt19937_64 rng(43);
  for (const ScoringScheme& scoring : schemes()) {
    const std::string a = test::random_codes(rng, 500, letters(scoring));
    std::int64_t score = 0;
    for (char residue : a)
      score += scoring.score(static_cast<std::uint8_t>(residue), static_cast<std::uint8_t>(residue));
    const auto band = optimal_band(a.size(), a.size(), score, scoring, scoring.gap_open());
    INFO(scoring.matrix().name());
    if (score != scoring.matrix().max_score() * 500) continue;  // a matrix whose diagonal varies (BLOSUM62)
    REQUIRE(band.has_value());
    CHECK(band->low == 0);
    CHECK(band->high == 0);
  }
  // A score no alignment of the lengths reaches (a caller's mistake) gives no band; the caller's check
  // then reports the score.
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  CHECK_FALSE(optimal_band(100, 90, 200, dna, dna.gap_open()).has_value());
}

TEST_CASE("exact band: the operations are those without it, on every path", "[alignment][band]") {
  std::mt19937_64 rng(47);
  for (const ScoringScheme& scoring : schemes()) {
    const int codes = letters(scoring);
    for (int n = 0; n < 6; ++n) {
      // Long enough for the band to leave most columns out, with repeats (two-letter stretches) for ties.
      const std::string core = test::random_codes(rng, 600 + 300 * static_cast<std::size_t>(n), n % 3 == 2 ? 2 : codes);
      const std::string a = test::random_codes(rng, 20, codes) + core;
      const std::string b = test::mutated_codes(rng, core, n % 3 == 2 ? 2 : codes, 0.02 + 0.03 * (n % 3), 4) +
                            test::random_codes(rng, 20, codes);
      const auto global = cpu::align_pair(a, b, scoring, AlignmentMode::global);
      const auto band = optimal_band(a.size(), b.size(), global.score, scoring, scoring.gap_open());
      INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n << ": "
                                   << a.size() << " x " << b.size());
      if (scoring.matrix().type() == SequenceType::nucleotide) {  // the band matters where it should
        REQUIRE(band.has_value());
        CHECK(band->width() < b.size() / 2);
      }
      struct Path {
        const char* name;
        std::uint64_t full_traceback_cells, checkpoint_bytes;
      };
      for (const Path path : {Path{"whole table", std::uint64_t{1} << 40, std::uint64_t{64} << 20},
                              Path{"checkpointed", 1, std::uint64_t{1} << 40}, Path{"linear", 64, 0},
                              Path{"linear, larger leaves", 4096, 0}}) {
        for (const unsigned threads : {1u, 3u}) {
          for (const AlignmentMode mode : {AlignmentMode::global, AlignmentMode::local, AlignmentMode::semiglobal}) {
            cpu::AlignmentLimits with, without;
            with.full_traceback_cells = without.full_traceback_cells = path.full_traceback_cells;
            with.checkpoint_bytes = without.checkpoint_bytes = path.checkpoint_bytes;
            with.threads = without.threads = threads;
            without.exact_band = false;
            INFO(path.name << ", " << threads << " threads, mode " << static_cast<int>(mode));
            const PairAlignment banded = cpu::align_pair(a, b, scoring, mode, with);
            const PairAlignment plain = cpu::align_pair(a, b, scoring, mode, without);
            REQUIRE(banded.score == plain.score);
            REQUIRE(banded.operations == plain.operations);
          }
        }
      }
    }
  }
}

TEST_CASE("exact band: global scores computed in bands equal the reference's", "[alignment][band]") {
  std::mt19937_64 rng(53);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  for (int n = 0; n < 5; ++n) {
    // Pairs of at least 2^24 cells (the banded route): identical (the guess holds the optimum and
    // proves it); mutated (a second, wider band); shifted by 300 residues at one end and back at the other
    // (the guess misses the optimal path, whose score the second band finds); unrelated DNA and related
    // proteins (bands too wide: the striped pass).
    const bool is_protein = n == 4;
    const ScoringScheme& scoring = is_protein ? protein : dna;
    const std::string a = test::random_codes(rng, 4500, is_protein ? 20 : 4);
    std::string b = n == 0   ? a
                    : n == 1 ? test::mutated_codes(rng, a, 4, 0.06, 4)
                    : n == 2 ? test::random_codes(rng, 300, 4) + a.substr(0, a.size() - 300)
                    : n == 3 ? test::random_codes(rng, 4400, 4)
                             : test::mutated_codes(rng, a, 20, 0.3, 4);
    INFO("case " << n << ": " << a.size() << " x " << b.size());
    REQUIRE(static_cast<std::uint64_t>(a.size()) * b.size() >= (std::uint64_t{1} << 24));
    const Span expected = reference::span(a, b, scoring, AlignmentMode::global);
    const Span got = cpu::pair_span(a, b, scoring, AlignmentMode::global);
    CHECK(got.score == expected.score);
    CHECK(got.query_begin == 0);
    CHECK(got.subject_begin == 0);
    CHECK(got.query_end == a.size());
    CHECK(got.subject_end == b.size());
    // The operations follow: align_pair's traceback starts from the guess band's score alone (a lower
    // bound where the guess misses the optimum) and finds the score; its operations are those from the
    // score.
    const PairAlignment alignment = cpu::align_pair(a, b, scoring, AlignmentMode::global);
    CHECK(alignment.score == expected.score);
    CHECK(alignment.operations == cpu::align_in_rectangle(a, b, scoring, expected).operations);
  }
}

TEST_CASE("exact band: a global traceback from a lower bound of the score equals the one from the score",
          "[alignment][band]") {
  std::mt19937_64 rng(59);
  for (const ScoringScheme& scoring : schemes()) {
    const int codes = letters(scoring);
    for (int n = 0; n < 3; ++n) {
      const std::string core = test::random_codes(rng, 900 + 300 * static_cast<std::size_t>(n), n == 2 ? 2 : codes);
      const std::string a = test::random_codes(rng, 30, codes) + core;
      const std::string b =
          test::mutated_codes(rng, core, n == 2 ? 2 : codes, 0.03 + 0.03 * n, 4) + test::random_codes(rng, 10, codes);
      const Span exact = reference::span(a, b, scoring, AlignmentMode::global);
      const auto band = optimal_band(a.size(), b.size(), exact.score, scoring, scoring.gap_open());
      // A checkpoint budget that the score's band fits and wider bands (lower bounds') may not: the
      // traceback learns the score at its first split and must then leave the linear path.
      const std::uint64_t band_fits =
          band ? cpu::detail::GlobalAligner::checkpoint_bytes(a.size(), b.size() + 1, band->width() + 1, 64) : 0;
      struct Path {
        const char* name;
        std::uint64_t full_traceback_cells, checkpoint_bytes;
      };
      for (const Path path :
           {Path{"whole table", std::uint64_t{1} << 40, std::uint64_t{64} << 20},
            Path{"checkpointed", 1, std::uint64_t{1} << 40}, Path{"linear", 64, 0},
            Path{"linear, larger leaves", 4096, 0}, Path{"the score's band checkpointed", 64, band_fits}}) {
        for (const unsigned threads : {1u, 3u}) {
          cpu::AlignmentLimits limits;
          limits.full_traceback_cells = path.full_traceback_cells;
          limits.checkpoint_bytes = path.checkpoint_bytes;
          limits.threads = threads;
          const PairAlignment expected = cpu::align_in_rectangle(a, b, scoring, exact, limits);
          for (const std::int64_t less : {0, 1, 7, 40, 200, 2000}) {
            INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n
                                         << ", " << path.name << ", " << threads << " threads, bound " << less
                                         << " below " << exact.score);
            const PairAlignment got = cpu::align_global(a, b, scoring, exact.score - less, limits);
            REQUIRE(got.score == exact.score);
            REQUIRE(got.query_end == a.size());
            REQUIRE(got.subject_end == b.size());
            REQUIRE(got.operations == expected.operations);
            CHECK(got.identities == expected.identities);
            CHECK(got.gaps == expected.gaps);
          }
        }
      }
      // A bound above the score is a caller's bug, and reported as one.
      CHECK_THROWS_AS(cpu::align_global(a, b, scoring, exact.score + 1), std::logic_error);
    }
  }
}

TEST_CASE("exact band: a local alignment's start lies in local_start_band", "[alignment][band]") {
  std::mt19937_64 rng(61);
  for (const ScoringScheme& scoring : schemes()) {
    const int codes = letters(scoring);
    for (int n = 0; n < 12; ++n) {
      // Related cores in random flanks, with an insertion of 0..300 residues on one side. An identical core
      // at the start of both sequences and one insertion make the bound tight: the start's diagonal is the
      // insertion's length, and the bound's min(rows, cols) the core's pairs.
      const std::size_t gap = static_cast<std::size_t>(n % 4) * 100;
      const bool tight = n < 4;
      const std::string left = test::random_codes(rng, 400, codes), right = test::random_codes(rng, 500, codes);
      const double mutation = tight ? 0.0 : 0.05 * (n % 3);
      std::string a =
          test::random_codes(rng, tight ? 0 : 50, codes) + left + right + test::random_codes(rng, 30, codes);
      std::string b = test::random_codes(rng, tight ? 0 : 20, codes) +
                      test::mutated_codes(rng, left, codes, mutation, 3) + test::random_codes(rng, gap, codes) +
                      test::mutated_codes(rng, right, codes, mutation, 3) + test::random_codes(rng, 40, codes);
      if (n % 2 == 1) std::swap(a, b);
      const Span span = reference::span(a, b, scoring, AlignmentMode::local);
      INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n
                                   << ": score " << span.score);
      REQUIRE(span.score > 0);
      const auto band = local_start_band(span.query_end, span.subject_end, span.score, scoring);
      REQUIRE(band.has_value());
      // The start in the reversed prefixes: row query_end - query_begin, column subject_end - subject_begin.
      const std::int64_t diagonal = (static_cast<std::int64_t>(span.subject_end) - span.subject_begin) -
                                    (static_cast<std::int64_t>(span.query_end) - span.query_begin);
      CHECK(band->low <= diagonal);
      CHECK(diagonal <= band->high);
      // (With free gap opens, the best alignment may pair some of the insertion's residues, and is not tight.)
      if (tight && scoring.matrix().type() == SequenceType::nucleotide && scoring.gap_open() > 0)
        CHECK(band->high - static_cast<std::int64_t>(gap) < 2);
    }
  }
}
