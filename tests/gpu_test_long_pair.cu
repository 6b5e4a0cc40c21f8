// The long-pair kernel (one pair across the GPU) against the CPU: spans equal cpu::pair_span's in every
// mode, in both orientations (the query or the subject giving the rows) and with ties everywhere, and
// the rows of a global alignment equal a plain 64-bit DP's, for pairs of one stripe, of many, of a last
// stripe cut short, and of the wide shape; with an exact band, the rows are minus infinity outside it, at
// most the 64-bit DP's inside, and exact at the pair's corner; the guess band's lower bound of a global
// score leads the CPU's traceback to the operations of the exact score; local spans of many pairs in one
// launch equal each pair's, their start passes in bands too; the packed kernel's local passes (16-bit
// values relative to a base) equal the CPU's at every shape and the 32-bit kernel's on scores far beyond
// 16 bits, and a scoring too wide for them takes the 32-bit kernel; the stripe timeline covers every
// stripe and changes nothing. Skips (with a warning) where no GPU is usable.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/long_pair.hpp"
#include "profile/exact_band.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/gpu_test_support.hpp"
#include "tests/random_sequences.hpp"

namespace {

using warpsearch::AlignmentMode;
using warpsearch::GapExtend;
using warpsearch::GapOpen;
using warpsearch::ScoringScheme;
using warpsearch::Span;
using warpsearch::SubstitutionMatrix;
using warpsearch::gpu::LongPairAligner;

bool have_gpu() { return warpsearch::test::gpu_usable("GPU long-pair test"); }

// A pair that aligns along most of its length: a random query and a mutated copy inside random flanks.
std::pair<std::string, std::string> related_pair(std::mt19937_64& rng, std::size_t m, std::size_t flank,
                                                 int alphabet_size) {
  const std::string query = warpsearch::test::random_codes(rng, m, alphabet_size);
  const std::string subject = warpsearch::test::random_codes(rng, flank, alphabet_size) +
                              warpsearch::test::mutated_codes(rng, query, alphabet_size, 0.15, 4) +
                              warpsearch::test::random_codes(rng, flank, alphabet_size);
  return {query, subject};
}

// H and I of the given rows of the global DP of a (rows) against b (columns), a vertical gap from (0, 0)
// costing top_open; 64-bit.
void reference_rows(const std::string& a, const std::string& b, const ScoringScheme& scoring, long long top_open,
                    const std::vector<std::size_t>& wanted, std::vector<long long>& h_out,
                    std::vector<long long>& i_out) {
  constexpr long long kMinusInfinity = -(1LL << 60);
  const long long open = scoring.gap_open(), extend = scoring.gap_extend();
  const std::size_t n = b.size();
  std::vector<long long> h(n + 1), ins(n + 1, kMinusInfinity);
  h[0] = 0;
  for (std::size_t c = 1; c <= n; ++c) h[c] = -(open + static_cast<long long>(c) * extend);
  h_out.clear();
  i_out.clear();
  std::size_t next = 0;
  for (std::size_t r = 1; r <= a.size(); ++r) {
    long long diagonal = h[0], del = kMinusInfinity;
    h[0] = ins[0] = -(top_open + static_cast<long long>(r) * extend);
    for (std::size_t c = 1; c <= n; ++c) {
      ins[c] = std::max(ins[c] - extend, h[c] - open - extend);
      del = std::max(del - extend, h[c - 1] - open - extend);
      const long long cell =
          std::max({diagonal + scoring.score(static_cast<std::uint8_t>(a[r - 1]), static_cast<std::uint8_t>(b[c - 1])),
                    ins[c], del});
      diagonal = h[c];
      h[c] = cell;
    }
    if (next < wanted.size() && wanted[next] == r) {
      h_out.insert(h_out.end(), h.begin(), h.end());
      i_out.insert(i_out.end(), ins.begin(), ins.end());
      ++next;
    }
  }
}

void check_same_span(const Span& got, const Span& expected) {
  CHECK(got.score == expected.score);
  CHECK(got.query_begin == expected.query_begin);
  CHECK(got.query_end == expected.query_end);
  CHECK(got.subject_begin == expected.subject_begin);
  CHECK(got.subject_end == expected.subject_end);
}

void check_spans(LongPairAligner& aligner, const ScoringScheme& scoring, const std::string& query,
                 const std::string& subject) {
  for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal}) {
    const Span expected = warpsearch::cpu::pair_span(query, subject, scoring, mode);
    const Span got = aligner.span(query, subject, mode);
    INFO("query " << query.size() << ", subject " << subject.size() << ", mode " << static_cast<int>(mode));
    check_same_span(got, expected);
    // Global passes of large related pairs run in bands (fewer cells); the others cover the whole DP.
    if (mode != AlignmentMode::global) CHECK(aligner.last_cells() >= query.size() * subject.size());
  }
}

}  // namespace

TEST_CASE("GPU long pair: spans equal cpu::pair_span in every mode", "[gpu][long_pair]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(31);
  SECTION("protein, BLOSUM62: one stripe, a stripe and one row, many stripes") {
    const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
    LongPairAligner aligner(0, protein);
    for (const std::size_t m : {1, 100, 256, 257, 3001, 9000}) {
      const auto [query, subject] = related_pair(rng, m, 700, 20);
      check_spans(aligner, protein, query, subject);
      check_spans(aligner, protein, subject, query);  // the shorter sequence, the subject, gives the rows
    }
    // Every shape on one pair (the shape is chosen by the rows; results never depend on it).
    const auto [query, subject] = related_pair(rng, 5000, 300, 20);
    for (const int rows_per_lane : {8, 16, 32}) {
      aligner.set_rows_per_lane(rows_per_lane);
      check_spans(aligner, protein, query, subject);
    }
    aligner.set_rows_per_lane(0);
    CHECK_THROWS_AS(aligner.set_rows_per_lane(12), std::invalid_argument);
    // Unrelated sequences: ties among many low-scoring cells.
    check_spans(aligner, protein, warpsearch::test::random_codes(rng, 2000, 20),
                warpsearch::test::random_codes(rng, 5000, 20));
  }
  SECTION("DNA: multi-stripe, and the wide shape") {
    const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
    LongPairAligner aligner(0, dna);
    const auto [query, subject] = related_pair(rng, 6000, 3000, 4);
    check_spans(aligner, dna, query, subject);
    check_spans(aligner, dna, subject, query);
    // Ties everywhere (match 1, mismatch -1, free gap opens): the tie-breaks in both orientations.
    const ScoringScheme ties(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
    LongPairAligner tie_aligner(0, ties);
    const auto [a, b] = related_pair(rng, 3000, 1500, 4);
    check_spans(tie_aligner, ties, a, b);
    check_spans(tie_aligner, ties, b, a);
    const std::string repeat = warpsearch::test::random_codes(rng, 50, 4);
    std::string repeats;
    for (int k = 0; k < 60; ++k) repeats += repeat;
    check_spans(tie_aligner, ties, repeats, repeat + repeat);
    check_spans(tie_aligner, ties, repeat + repeat, repeats);
    // Global spans in bands: identical (the guess proves its score), mutated (a second band), shifted by
    // 300 at one end (the guess misses the optimal path).
    const std::string copy_of = warpsearch::test::random_codes(rng, 9000, 4);
    aligner.set_span_bands_always(true);
    check_spans(aligner, dna, copy_of, copy_of);
    check_spans(aligner, dna, copy_of, warpsearch::test::mutated_codes(rng, copy_of, 4, 0.06, 4));
    const std::string shifted = warpsearch::test::random_codes(rng, 300, 4) + copy_of.substr(0, 8700);
    check_spans(aligner, dna, copy_of, shifted);
    // The guess band's score alone, a lower bound where the guess misses the optimum: the CPU's traceback
    // from it finds the score and the operations of the traceback from the score.
    for (const std::string* subject : {&copy_of, &shifted}) {
      const LongPairAligner::ScoreBound bound = aligner.global_score_bound(copy_of, *subject);
      const warpsearch::PairAlignment expected =
          warpsearch::cpu::align_pair(copy_of, *subject, dna, AlignmentMode::global);
      const bool identical = subject == &copy_of;
      INFO((identical ? "identical" : "shifted"));
      CHECK(bound.exact == identical);
      CHECK(bound.score <= expected.score);
      if (bound.exact) CHECK(bound.score == expected.score);
      const warpsearch::PairAlignment got = warpsearch::cpu::align_global(copy_of, *subject, dna, bound.score);
      CHECK(got.score == expected.score);
      CHECK(got.operations == expected.operations);
    }
    aligner.set_span_bands_always(false);
    // Rows enough for the wide shape (32 rows per lane) on any current GPU.
    const std::string long_query = warpsearch::test::random_codes(rng, 400000, 4);
    const std::string short_subject = long_query.substr(123456, 300);
    check_spans(aligner, dna, long_query, short_subject);
  }
}

TEST_CASE("GPU long pair: local spans in one launch equal cpu::pair_span, pair by pair", "[gpu][long_pair]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(37);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  LongPairAligner aligner(0, dna);
  // Stripes of all the pairs from one counter: pairs of one stripe and of many, both orientations, a pair
  // without any stripe (an empty subject gives no rows) and one without a positive cell, between others.
  std::vector<std::pair<std::string, std::string>> owned;
  for (const std::size_t m : {3000, 40, 257, 1200}) {
    owned.push_back(related_pair(rng, m, 500, 4));
    owned.push_back({owned.back().second, owned.back().first});
  }
  owned.insert(owned.begin() + 3, {warpsearch::test::random_codes(rng, 300, 4), std::string()});
  owned.insert(owned.begin() + 5, {std::string(200, '\0'), std::string(900, '\1')});
  std::vector<std::pair<std::string_view, std::string_view>> pairs(owned.begin(), owned.end());
  std::vector<Span> got = aligner.local_spans(pairs);
  REQUIRE(got.size() == pairs.size());
  std::uint64_t cells = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Span expected = warpsearch::cpu::pair_span(owned[i].first, owned[i].second, dna, AlignmentMode::local);
    INFO("pair " << i << ": query " << owned[i].first.size() << ", subject " << owned[i].second.size());
    check_same_span(got[i], expected);
    cells += owned[i].first.size() * owned[i].second.size();
  }
  CHECK(got[5].score == 0);
  CHECK(aligner.last_cells() >= cells);
  const std::uint64_t all_cells = aligner.last_cells();
  // Least scores: the pairs scoring below theirs keep their score and end, without a start pass.
  std::vector<std::int64_t> least(pairs.size());
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    least[i] = i % 2 == 0 ? got[i].score + 1 : got[i].score;
    if (got[i].score > 0 && i % 2 == 0) ++skipped;
  }
  REQUIRE(skipped >= 3);
  const std::vector<Span> ends_only = aligner.local_spans(pairs, least);
  REQUIRE(ends_only.size() == pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    INFO("least scores, pair " << i);
    CHECK(ends_only[i].score == got[i].score);
    CHECK(ends_only[i].query_end == got[i].query_end);
    CHECK(ends_only[i].subject_end == got[i].subject_end);
    if (i % 2 == 0) {
      CHECK(ends_only[i].query_begin == 0);
      CHECK(ends_only[i].subject_begin == 0);
    } else {
      check_same_span(ends_only[i], got[i]);
    }
  }
  CHECK(aligner.last_cells() < all_cells);  // fewer start passes
  CHECK_THROWS_AS(aligner.local_spans(pairs, std::vector<std::int64_t>(2)), std::invalid_argument);
  // The same pairs one at a time: the same spans.
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Span alone = aligner.span(pairs[i].first, pairs[i].second, AlignmentMode::local);
    CHECK(alone.score == got[i].score);
    CHECK(alone.query_begin == got[i].query_begin);
    CHECK(alone.subject_end == got[i].subject_end);
  }
  // The start passes in their bands (local_start_band): the same spans, in fewer cells. With a pair
  // whose reversed prefixes have more rows than the band reaches (the alignment ends at the shorter
  // sequence's end and early in the longer one: the band then widens to the last row), a core inside
  // flanks, and a long insertion (the band's edge), in both orientations.
  const std::string core = warpsearch::test::random_codes(rng, 6000, 4);
  owned.push_back({warpsearch::test::random_codes(rng, 3000, 4) + core.substr(0, 1000),
                   core.substr(0, 1000) + warpsearch::test::random_codes(rng, 5000, 4)});
  owned.push_back({owned.back().second, owned.back().first});
  owned.push_back({core, warpsearch::test::random_codes(rng, 30, 4) + core.substr(2000, 1500) +
                             warpsearch::test::random_codes(rng, 20, 4)});
  owned.push_back({owned.back().second, owned.back().first});
  owned.push_back({core, core.substr(0, 2500) + warpsearch::test::random_codes(rng, 700, 4) + core.substr(2500)});
  owned.push_back({owned.back().second, owned.back().first});
  pairs.assign(owned.begin(), owned.end());
  aligner.set_span_bands_always(true);
  got = aligner.local_spans(pairs);
  aligner.set_span_bands_always(false);
  REQUIRE(got.size() == pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Span expected = warpsearch::cpu::pair_span(owned[i].first, owned[i].second, dna, AlignmentMode::local);
    INFO("in bands, pair " << i << ": query " << owned[i].first.size() << ", subject " << owned[i].second.size());
    check_same_span(got[i], expected);
  }
  std::uint64_t ends_cells = 0, starts_cells = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ends_cells += owned[i].first.size() * owned[i].second.size();
    starts_cells += std::uint64_t{got[i].query_end} * got[i].subject_end;
  }
  CHECK(aligner.last_cells() < ends_cells + starts_cells);
  // A pair the kernel does not accept is refused before any work.
  pairs.push_back({std::string_view(), owned[0].second});
  CHECK_THROWS_AS(aligner.local_spans(pairs), std::invalid_argument);
  CHECK(aligner.local_spans({}).empty());
}

TEST_CASE("GPU long pair: packed local passes equal the 32-bit kernel's and cpu::pair_span", "[gpu][long_pair]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(43);
  // The packed kernel's edges: pairs shorter than a lane's rows, than a stripe, a last stripe cut short,
  // columns fewer than the lanes' lag; ties everywhere; both orientations; every shape (8 rows a lane
  // takes the 32-bit kernel).
  std::vector<std::pair<std::string, std::string>> owned;
  for (const std::size_t m : {1, 7, 40, 300, 1025, 2500}) {
    owned.push_back(related_pair(rng, m, 200, 4));
    owned.push_back({owned.back().second, owned.back().first});
  }
  owned.push_back({warpsearch::test::random_codes(rng, 3000, 5), warpsearch::test::random_codes(rng, 5, 5)});
  const std::string repeat = warpsearch::test::random_codes(rng, 50, 4);
  std::string repeats;
  for (int k = 0; k < 60; ++k) repeats += repeat;
  owned.push_back({repeats, repeat + repeat});
  owned.push_back({repeat + repeat, repeats});
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const ScoringScheme ties(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  // Scores too large for the packed kernel's 16-bit span at any shape: the 32-bit kernel's path.
  const ScoringScheme wide(SubstitutionMatrix::nucleotide(100, -100), GapOpen{60}, GapExtend{20});
  for (const ScoringScheme* scoring : {&dna, &ties, &wide}) {
    LongPairAligner aligner(0, *scoring);
    for (const int rows_per_lane : {8, 16, 32}) {
      aligner.set_rows_per_lane(rows_per_lane);
      for (const auto& [query, subject] : owned) {
        const Span expected = warpsearch::cpu::pair_span(query, subject, *scoring, AlignmentMode::local);
        INFO("match " << scoring->score(0, 0) << ", rows a lane " << rows_per_lane << ", query " << query.size()
                      << ", subject " << subject.size());
        check_same_span(aligner.span(query, subject, AlignmentMode::local), expected);
      }
    }
  }
  // Scores far beyond 16 bits (a 20,000-residue copy scores 40,000): the base moves along the pair.
  // The packed kernel's spans (16 and 32 rows a lane) equal the CPU's and the 32-bit kernel's. After the
  // copy's end, 40,000 unrelated columns take the base far below the best (further than 16 bits reach),
  // in either orientation.
  const std::string core = warpsearch::test::random_codes(rng, 20000, 4);
  const std::string mutated = warpsearch::test::mutated_codes(rng, core, 4, 0.02, 4);
  const std::string flanked =
      warpsearch::test::random_codes(rng, 3000, 4) + core + warpsearch::test::random_codes(rng, 2000, 4) + mutated;
  const std::string trailed = core + warpsearch::test::random_codes(rng, 40000, 4);
  LongPairAligner aligner(0, dna);
  for (const auto& [query, subject] : {std::pair{core, flanked}, std::pair{flanked, core}, std::pair{mutated, core},
                                       std::pair{core, trailed}, std::pair{trailed, core}}) {
    const Span expected = warpsearch::cpu::pair_span(query, subject, dna, AlignmentMode::local);
    for (const int rows_per_lane : {16, 32}) {
      aligner.set_rows_per_lane(rows_per_lane);
      aligner.set_packed_passes(true);
      const Span packed = aligner.span(query, subject, AlignmentMode::local);
      aligner.set_packed_passes(false);
      const Span wide_values = aligner.span(query, subject, AlignmentMode::local);
      INFO("query " << query.size() << ", subject " << subject.size() << ", rows a lane " << rows_per_lane);
      CHECK(packed.score > 32767);
      check_same_span(packed, expected);
      check_same_span(wide_values, expected);
    }
  }
}

TEST_CASE("GPU long pair: packed local passes of related pairs of unequal lengths equal cpu::pair_span",
          "[gpu][long_pair]") {
  if (!have_gpu()) return;
  // Copies of 3,000 to 30,000 residues at 2-9% mutations inside flanks of up to 40,000 on either side,
  // both orientations: scores beyond 16 bits, ends anywhere in the columns, the base moving up and down.
  std::mt19937_64 rng(47);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  LongPairAligner aligner(0, dna);
  aligner.set_packed_passes(true);
  for (int n = 0; n < 8; ++n) {
    const std::string core = warpsearch::test::random_codes(rng, 3000 + rng() % 27000, 4);
    const std::string copy = warpsearch::test::random_codes(rng, rng() % 40000, 4) +
                             warpsearch::test::mutated_codes(rng, core, 4, 0.02 + 0.01 * (n % 9), 4) +
                             warpsearch::test::random_codes(rng, rng() % 40000, 4);
    const auto& [query, subject] = n % 2 == 0 ? std::pair{core, copy} : std::pair{copy, core};
    const Span expected = warpsearch::cpu::pair_span(query, subject, dna, AlignmentMode::local);
    for (const int rows_per_lane : {16, 32}) {
      aligner.set_rows_per_lane(rows_per_lane);
      INFO("case " << n << ": query " << query.size() << ", subject " << subject.size() << ", rows a lane "
                   << rows_per_lane);
      check_same_span(aligner.span(query, subject, AlignmentMode::local), expected);
    }
  }
}

TEST_CASE("GPU long pair: rows of a global alignment equal a 64-bit DP's", "[gpu][long_pair]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(37);
  const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  LongPairAligner aligner(0, protein);
  struct Case {
    std::size_t m, n, spacing;
    std::int32_t top_open;
  };
  for (const Case c :
       {Case{1000, 700, 256, 11}, Case{1024, 300, 512, 0}, Case{3000, 2000, 1u << 30, 11}, Case{513, 40, 256, 3}}) {
    const auto [a, flanked] = related_pair(rng, c.m, 0, 20);
    const std::string b = flanked.substr(0, std::min(flanked.size(), c.n));
    std::vector<std::size_t> wanted;
    for (std::size_t r = c.spacing; r < a.size(); r += c.spacing) wanted.push_back(r);
    wanted.push_back(a.size());
    std::vector<long long> h_expected, i_expected;
    reference_rows(a, b, protein, c.top_open, wanted, h_expected, i_expected);
    std::vector<std::int32_t> h, ins;
    aligner.global_rows(a, b, c.top_open, c.spacing, h, ins);
    INFO("rows " << a.size() << ", columns " << b.size() << ", spacing " << c.spacing);
    REQUIRE(h.size() == h_expected.size());
    REQUIRE(ins.size() == i_expected.size());
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < h.size(); ++k) wrong += h[k] != h_expected[k] || ins[k] != i_expected[k] ? 1 : 0;
    CHECK(wrong == 0);
  }
  std::vector<std::int32_t> h, ins;
  const std::string codes(1000, '\1');
  CHECK_THROWS_AS(aligner.global_rows(codes, codes, 11, 100, h, ins), std::invalid_argument);  // not a stripe multiple
  CHECK_THROWS_AS(aligner.global_rows("", codes, 11, 256, h, ins), std::invalid_argument);     // no rows
}

TEST_CASE("GPU long pair: rows inside an exact band", "[gpu][long_pair]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(39);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  LongPairAligner aligner(0, dna);
  constexpr std::int32_t kMinusInfinity = -(1 << 29);
  for (const std::size_t m : {3000, 9000}) {
    const std::string a = warpsearch::test::random_codes(rng, m, 4);
    const std::string b = warpsearch::test::mutated_codes(rng, a, 4, 0.06, 4);
    const Span global = warpsearch::cpu::pair_span(a, b, dna, AlignmentMode::global);
    const auto band = warpsearch::optimal_band(a.size(), b.size(), global.score, dna, dna.gap_open());
    REQUIRE(band.has_value());
    REQUIRE(band->width() < b.size() / 2);  // the stripes sweep a part of the columns
    for (const std::size_t spacing : {std::size_t{256}, std::size_t{1} << 30}) {
      std::vector<std::size_t> wanted;
      for (std::size_t r = spacing; r < a.size(); r += spacing) wanted.push_back(r);
      wanted.push_back(a.size());
      std::vector<long long> h_expected, i_expected;
      reference_rows(a, b, dna, dna.gap_open(), wanted, h_expected, i_expected);
      std::vector<std::int32_t> h, ins;
      aligner.global_rows(a, b, dna.gap_open(), spacing, h, ins, &*band);
      INFO("rows " << a.size() << ", columns " << b.size() << ", spacing " << spacing << ", band " << band->low << ".."
                   << band->high);
      REQUIRE(h.size() == h_expected.size());
      REQUIRE(ins.size() == i_expected.size());
      std::size_t above_exact = 0, outside_not_minus_infinity = 0, inside = 0;
      for (std::size_t q = 0; q < wanted.size(); ++q) {
        for (std::size_t c = 0; c <= b.size(); ++c) {
          const std::size_t k = q * (b.size() + 1) + c;
          above_exact += h[k] > h_expected[k] || ins[k] > i_expected[k] ? 1 : 0;
          const auto diagonal = static_cast<std::int64_t>(c) - static_cast<std::int64_t>(wanted[q]);
          if (c > 0 && (diagonal < band->low || diagonal > band->high))
            outside_not_minus_infinity += h[k] != kMinusInfinity || ins[k] != kMinusInfinity ? 1 : 0;
          else
            ++inside;
        }
      }
      CHECK(above_exact == 0);
      CHECK(outside_not_minus_infinity == 0);
      CHECK(inside < h.size() / 2);
      CHECK(h.back() == global.score);  // the corner lies on every optimal alignment
      CHECK(aligner.last_cells() < a.size() * b.size() / 2);
    }
  }
}

TEST_CASE("GPU long pair: the stripe timeline has every stripe of every launch, in order, and changes nothing",
          "[gpu][long_pair]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(37);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const auto [query, subject] = related_pair(rng, 20000, 3000, 4);
  LongPairAligner aligner(0, dna);
  aligner.set_rows_per_lane(16);
  const Span without = aligner.span(query, subject, AlignmentMode::local);
  check_same_span(without, warpsearch::cpu::pair_span(query, subject, dna, AlignmentMode::local));
  CHECK(aligner.last_stripe_timelines().empty());
  for (const bool packed : {true, false}) {
    aligner.set_packed_passes(packed);
    aligner.set_stripe_timeline(true);
    const Span with = aligner.span(query, subject, AlignmentMode::local);
    check_same_span(with, without);
    const auto launches = aligner.last_stripe_timelines();
    INFO("packed " << packed);
    REQUIRE(launches.size() == aligner.last_pass_times().size());  // one a launch: the end pass, the start pass
    REQUIRE(launches.size() == 2);
    CHECK(launches[0].size() == (query.size() + 511) / 512);  // the end pass's stripes of 32 x 16 rows
    CHECK(launches[1].size() == (without.query_end + 511) / 512);
    std::size_t out_of_order = 0;
    for (const auto& launch : launches)
      for (const auto& clock : launch)
        out_of_order += clock.taken == 0 || clock.taken > clock.started || clock.started > clock.ended ? 1 : 0;
    CHECK(out_of_order == 0);
    aligner.set_stripe_timeline(false);
    aligner.span(query, subject, AlignmentMode::local);
    CHECK(aligner.last_stripe_timelines().empty());
  }
}
