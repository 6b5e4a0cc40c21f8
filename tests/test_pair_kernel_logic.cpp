// The GPU pair kernel's per-lane logic, emulated on the CPU (tests/pair_lane_emulator.hpp), against
// reference::span: every mode, the aligner's and forced narrow or packed shapes, the reverse early exit,
// and the packed shapes' 16-bit bound.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/catch.hpp"
#include "tests/pair_lane_emulator.hpp"

namespace {

using namespace pair_lane_emulator;  // NOLINT: the emulator's names, in its tests

// Checks every pair in every mode, with the aligner's shapes and with forced narrow shapes, the early
// exit on (check intervals 1, 8, 32) and off; returns the reverse cells with and without it (local).
void check_pairs(const ScoringScheme& scoring, const std::vector<Pair>& pairs, std::uint64_t& cells_on,
                 std::uint64_t& cells_off, std::size_t& checked, std::size_t& packed) {
  // Narrow tiles; R = 1 and 2 (not kernel shapes, the same logic) put a lane's neighbours few columns
  // away, so that the cells the early exit skips often decide ties.
  static const Shape kForced[] = {{4, 4, true}, {8, 4, true}, {2, 4, true}, {8, 1, true}, {4, 2, true}};
  static const Shape kPacked[] = {{4, 4, true, true}, {2, 4, true, true},  {8, 1, true, true},
                                  {4, 2, true, true}, {32, 4, true, true}, {1, 4, true, true}};
  std::size_t k = 0;
  for (const Pair& pair : pairs) {
    ++k;
    for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::semiglobal, AlignmentMode::global}) {
      const auto expected = warpsearch::reference::span(pair.query, pair.target, scoring, mode);
      const Shape* forced = k % 2 == 1 ? &kPacked[k / 2 % 6] : k % 4 == 0 ? nullptr : &kForced[k / 4 % 5];
      for (const int check_mask : {-1, 0, 7, 31, -2}) {  // -1: no early exit; -2: no packing
        if (mode != AlignmentMode::local && check_mask < -1) continue;
        if (mode != AlignmentMode::local && check_mask >= 0) continue;
        const SpanRun run = emulate_span(pair.query, pair.target, scoring, mode, forced, check_mask >= 0,
                                         std::max(check_mask, 0), check_mask != -2);
        INFO("pair " << k << " " << pair.query.size() << " x " << pair.target.size() << " mode "
                     << static_cast<int>(mode) << " check mask " << check_mask << " forced shape "
                     << (forced ? forced->group : 0) << ": emulated " << run.span.score << " q[" << run.span.query_begin
                     << "," << run.span.query_end << ") t[" << run.span.subject_begin << "," << run.span.subject_end
                     << "), reference " << expected.score << " q[" << expected.query_begin << "," << expected.query_end
                     << ") t[" << expected.subject_begin << "," << expected.subject_end << ")");
        REQUIRE(run.reverse_score_matches);
        REQUIRE(run.overflows == 0);
        REQUIRE(same_span(run.span, expected));
        ++checked;
        packed += run.packed ? 1 : 0;
        if (mode == AlignmentMode::local && check_mask == -1) cells_off += run.reverse_cells;
        if (mode == AlignmentMode::local && check_mask == 7) cells_on += run.reverse_cells;
      }
    }
  }
}

std::vector<std::size_t> boundary_lengths() {
  std::vector<std::size_t> lengths = {1, 2, 3, 5, 7, 8, 9, 31, 32, 33};
  for (const auto& shape : detail::kPairShapes) {
    const std::size_t width = static_cast<std::size_t>(shape.group) * shape.regs;
    if (width > 400) continue;  // keeps the test fast; wider tiles are the same code
    lengths.insert(lengths.end(), {width - 1, width, width + 1});
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  return lengths;
}

}  // namespace

TEST_CASE("Pair kernel logic: emulated lanes, tiles and the reverse early exit equal the reference",
          "[pairs][gpu-logic]") {
  const std::vector<ScoringScheme> schemes = {
      ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2}),
      ScoringScheme(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1}),  // ties everywhere
      ScoringScheme(SubstitutionMatrix::builtin("PAM30"), GapOpen{9}, GapExtend{1}),
  };
  std::mt19937_64 rng(5150);
  std::uint64_t cells_on = 0, cells_off = 0;
  std::size_t checked = 0;
  std::size_t packed = 0;
  for (const ScoringScheme& scoring : schemes) {
    const int letters = scoring.matrix().alphabet().size() > 10 ? 25 : 4;
    std::vector<Pair> pairs;
    std::uniform_int_distribution<std::size_t> length(1, 180);
    for (int k = 0; k < 150; ++k) pairs.push_back(planted_pair(rng, length(rng), length(rng), letters));
    for (const std::size_t q : boundary_lengths()) {
      pairs.push_back(planted_pair(rng, q, 1 + q % 37, letters));
      pairs.push_back(planted_pair(rng, 1 + q % 41, q, letters));
      pairs.push_back(planted_pair(rng, q, q, letters));
    }
    // Two-letter sequences (ties in every row) and identical pairs.
    for (int k = 0; k < 20; ++k) {
      pairs.push_back(
          {warpsearch::test::random_codes(rng, length(rng), 2), warpsearch::test::random_codes(rng, length(rng), 2)});
      const std::string s = warpsearch::test::random_codes(rng, length(rng), letters);
      pairs.push_back({s, s});
    }
    check_pairs(scoring, pairs, cells_on, cells_off, checked, packed);
  }
  // Protein pairs as the benchmark's (100..1,100 residues, most unrelated): the aligner's packed shapes
  // (32,4)p and (32,8)p over several tiles, and their early exit.
  {
    std::vector<Pair> long_pairs;
    std::uniform_int_distribution<std::size_t> length(100, 1100);
    for (int k = 0; k < 12; ++k) long_pairs.push_back(planted_pair(rng, length(rng), length(rng), 25));
    check_pairs(schemes[0], long_pairs, cells_on, cells_off, checked, packed);
  }
  // Many small tie-heavy pairs (two letters, free gap opens): rows reaching the score in many places.
  const ScoringScheme ties(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  std::vector<Pair> small;
  std::uniform_int_distribution<std::size_t> short_length(1, 40);
  for (int k = 0; k < 1500; ++k)
    small.push_back({warpsearch::test::random_codes(rng, short_length(rng), 2),
                     warpsearch::test::random_codes(rng, short_length(rng), 2)});
  check_pairs(ties, small, cells_on, cells_off, checked, packed);
  INFO("reverse cells with the early exit " << cells_on << ", without " << cells_off << "; " << packed << " of "
                                            << checked << " spans packed");
  CHECK(checked > 5000);
  CHECK(packed > checked / 4);
  CHECK(cells_on < cells_off);
}

// The 16-bit bound (pair_pack_limit) is tight enough to matter and safe: an identical pair of the
// letter with the largest score, at the limit, runs packed with no live cell leaving int16 and gives
// the reference's span; a little past the limit the same emulation does overflow (so the check and
// the bound are not vacuous).
TEST_CASE("Pair kernel logic: packed passes at the 16-bit bound", "[pairs][gpu-logic]") {
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const std::uint32_t limit = pack_limit_of(scoring);
  CHECK(limit == (32767 - (11 + 12)) / 11);  // W-W scores 11; profile values s + 12
  int best_code = 0;
  for (int c = 0; c < scoring.matrix().alphabet().size(); ++c)
    if (scoring.score(static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(c)) == scoring.matrix().max_score())
      best_code = c;
  const std::string at_limit(limit, static_cast<char>(best_code));
  const SpanRun run = emulate_span(at_limit, at_limit, scoring, AlignmentMode::local, nullptr, true, 7, true);
  CHECK(run.packed);
  CHECK(run.overflows == 0);
  CHECK(run.span.score == static_cast<int>(limit) * scoring.matrix().max_score());
  CHECK(same_span(run.span, warpsearch::reference::span(at_limit, at_limit, scoring, AlignmentMode::local)));
  // One more residue: the aligner takes a 32-bit shape.
  const std::string past(limit + 1, static_cast<char>(best_code));
  CHECK_FALSE(emulate_span(past, past, scoring, AlignmentMode::local, nullptr, true, 7, true).packed);
  // Forced packed past the bound: the emulation sees the overflow.
  const std::string over(limit + 40, static_cast<char>(best_code));
  const std::string residues = over + over;
  const auto n = static_cast<std::uint32_t>(over.size());
  PassOptions o;
  const PassResult forced =
      emulate_packed_pass(residues, PairJob{n, 0, n, n}, Shape{32, 8, true, true}, scoring, o,
                          [&](std::uint8_t row, std::uint8_t col) { return scoring.score(col, row); });
  CHECK(forced.overflows > 0);
}
