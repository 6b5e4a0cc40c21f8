// GPU pair aligner vs the 64-bit references (kernels/reference/reference.hpp span()): every mode, scores, ends
// and starts with the project's tie-break, on random pairs with planted similarity, lengths around
// every shape and tile boundary, all built-in matrices, DNA, 16-bit profile elements, scores far beyond
// 16 bits, a 50,000 x 50,000 pair, empty batches and empty sequences. Tests skip (with a warning)
// where no GPU is usable, so that CI without a GPU stays green.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/alignment_mode.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/pair_aligner.hpp"
#include "kernels/gpu/pair_dispatch.hpp"
#include "kernels/reference/reference.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/gpu_test_support.hpp"
#include "tests/test_support.hpp"

namespace {

using warpsearch::AlignmentMode;
using warpsearch::GapExtend;
using warpsearch::GapOpen;
using warpsearch::ScoringScheme;
using warpsearch::Span;
using warpsearch::SubstitutionMatrix;
using warpsearch::gpu::GpuPairAligner;
using warpsearch::gpu::PairTask;
using warpsearch::gpu::usable_device_count;

constexpr AlignmentMode kModes[] = {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal};

bool have_gpu() { return warpsearch::test::gpu_usable("GPU pair aligner test"); }

struct Pair {
  std::string query;
  std::string target;
};

// Aligns every pair on the GPU in one call and checks each span against reference::span.
void check_pairs(const ScoringScheme& scoring, const std::vector<Pair>& pairs, AlignmentMode mode,
                 const GpuPairAligner::KernelOptions& options = {}) {
  GpuPairAligner aligner(0, scoring);
  aligner.set_kernel_options(options);
  std::vector<PairTask> tasks;
  for (const auto& pair : pairs) tasks.push_back({pair.query, pair.target});
  std::vector<Span> spans;
  aligner.align(tasks, mode, spans);
  REQUIRE(spans.size() == pairs.size());
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto expected = warpsearch::reference::span(pairs[k].query, pairs[k].target, scoring, mode);
    const Span& got = spans[k];
    const bool same = got.score == expected.score && got.query_begin == expected.query_begin &&
                      got.query_end == expected.query_end && got.subject_begin == expected.subject_begin &&
                      got.subject_end == expected.subject_end;
    if (!same && ++mismatches <= 10)
      UNSCOPED_INFO(alignment_mode_name(mode)
                    << (options.reverse_early_exit ? "" : " (no early exit)") << " pair " << k << " ("
                    << pairs[k].query.size() << " x " << pairs[k].target.size() << ", " << scoring.matrix().name()
                    << " " << scoring.gap_open() << "/" << scoring.gap_extend() << "): GPU " << got.score << " q["
                    << got.query_begin << "," << got.query_end << ") t[" << got.subject_begin << "," << got.subject_end
                    << "), reference " << expected.score << " q[" << expected.query_begin << "," << expected.query_end
                    << ") t[" << expected.subject_begin << "," << expected.subject_end << ")");
  }
  CHECK(mismatches == 0);
}

// A target of the given length; when the query is long enough it carries a mutated copy of a piece of
// the query (substitutions and indels) at a random place, so that alignments are long and gapped.
Pair planted_pair(std::mt19937_64& rng, std::size_t query_length, std::size_t target_length, int alphabet_size) {
  using warpsearch::test::mutated_codes;
  using warpsearch::test::random_codes;
  Pair pair{random_codes(rng, query_length, alphabet_size), random_codes(rng, target_length, alphabet_size)};
  if (query_length < 4 || target_length < 4) return pair;
  const std::size_t begin = std::uniform_int_distribution<std::size_t>(0, query_length / 2)(rng);
  const std::size_t length = std::uniform_int_distribution<std::size_t>(1, query_length - begin)(rng);
  std::string piece = mutated_codes(rng, pair.query.substr(begin, length), alphabet_size, 0.25, 3);
  piece.resize(std::min(piece.size(), target_length));
  const std::size_t at = std::uniform_int_distribution<std::size_t>(0, target_length - piece.size())(rng);
  pair.target.replace(at, piece.size(), piece);
  return pair;
}

// Lengths at every shape width and tile boundary (kPairShapes), -1/0/+1.
std::vector<std::size_t> boundary_lengths() {
  std::vector<std::size_t> lengths = {1, 2, 3, 5, 31, 32, 33, 1023, 1024, 1025, 1537};
  for (const auto& shape : warpsearch::gpu::detail::kPairShapes) {
    const std::size_t width = static_cast<std::size_t>(shape.group) * shape.regs * (shape.packed ? 2 : 1);
    for (const std::size_t limit : {width, 2 * width}) lengths.insert(lengths.end(), {limit - 1, limit, limit + 1});
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  return lengths;
}

ScoringScheme blosum62() { return ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1}); }

}  // namespace

TEST_CASE("GpuPairAligner rejects a device that does not exist", "[gpu][pairs][small]") {
  CHECK_THROWS_AS(GpuPairAligner(usable_device_count() + 3, blosum62()), std::invalid_argument);
}

TEST_CASE("GpuPairAligner: empty batches, empty sequences and bad codes", "[gpu][pairs][small]") {
  if (!have_gpu()) return;
  const ScoringScheme scoring = blosum62();
  GpuPairAligner aligner(0, scoring);
  std::vector<Span> spans(3);
  aligner.align({}, AlignmentMode::local, spans);
  CHECK(spans.empty());

  std::mt19937_64 rng(7);
  const std::vector<Pair> pairs = {
      {"", ""},
      {"", warpsearch::test::random_codes(rng, 7, 27)},
      {warpsearch::test::random_codes(rng, 9, 27), ""},
      {warpsearch::test::random_codes(rng, 1, 27), warpsearch::test::random_codes(rng, 1, 27)},
      {warpsearch::test::random_codes(rng, 40, 27), warpsearch::test::random_codes(rng, 50, 27)}};
  for (const AlignmentMode mode : kModes) check_pairs(scoring, pairs, mode);

  // Residue codes, not letters: code 28 is beyond the protein alphabet and its padding code (27).
  const std::string good(2, '\0');
  const std::string bad = std::string{'\0', '\1', static_cast<char>(28)};
  const std::vector<PairTask> tasks = {{good, good}, {good, bad}};
  try {
    aligner.align(tasks, AlignmentMode::local, spans);
    FAIL("a code outside the alphabet was accepted");
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    CHECK(message.find("pair 1") != std::string::npos);
    CHECK(message.find("target residue 3") != std::string::npos);
  }
}

// Few pairs, every shape (single-pass and tiled, several tiles, packed and 32-bit) and both profile
// element widths, the early exit on and off: the subset compute-sanitizer runs (memcheck, racecheck)
// on the device.
TEST_CASE("GpuPairAligner: every shape once, both element widths", "[gpu][pairs][tiny]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(31);
  std::vector<Pair> pairs;
  for (const std::size_t n : {3, 16, 30, 60, 120, 180, 250, 380, 500, 700, 1100})
    pairs.push_back(planted_pair(rng, n, 40 + n / 3, 25));
  const ScoringScheme narrow = blosum62();
  const ScoringScheme wide(SubstitutionMatrix::nucleotide(100, -90), GapOpen{50}, GapExtend{20});
  std::vector<Pair> dna;
  for (const std::size_t n : {5, 100, 600}) dna.push_back(planted_pair(rng, n, n + 9, 4));
  for (const AlignmentMode mode : kModes) {
    check_pairs(narrow, pairs, mode);
    check_pairs(wide, dna, mode);
  }
  // The reverse early exit checked at every step with packed (16-bit) shapes limited so that one call
  // mixes packed and 32-bit passes; then neither the early exit nor packed shapes.
  GpuPairAligner::KernelOptions every_step_mixed;
  every_step_mixed.early_exit_check_steps = 1;
  every_step_mixed.packed_lanes = true;
  every_step_mixed.packed_length_limit = 200;
  GpuPairAligner::KernelOptions off;
  off.reverse_early_exit = false;
  off.packed_lanes = false;
  for (const auto& options : {every_step_mixed, off}) {
    check_pairs(narrow, pairs, AlignmentMode::local, options);
    check_pairs(wide, dna, AlignmentMode::local, options);
  }
  check_pairs(ScoringScheme(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1}), dna,
              AlignmentMode::local);
}

// The reverse early exit (local mode): on at every check interval and off, on unrelated protein pairs
// (short alignments: the exit comes early, in the first tile), planted ones (long alignments, starts in
// later tiles) and tie-heavy DNA (many cells reach the score), with every shape.
TEST_CASE("GpuPairAligner: the reverse early exit gives the reference's starts", "[gpu][pairs][small]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(77);
  std::vector<Pair> protein;
  std::uniform_int_distribution<std::size_t> length(1, 1200);
  for (int k = 0; k < 200; ++k) protein.push_back(planted_pair(rng, length(rng), length(rng), 25));
  for (int k = 0; k < 200; ++k)
    protein.push_back(
        {warpsearch::test::random_codes(rng, length(rng), 25), warpsearch::test::random_codes(rng, length(rng), 25)});
  std::vector<Pair> dna;
  for (int k = 0; k < 300; ++k)
    dna.push_back({warpsearch::test::random_codes(rng, length(rng) / 4 + 1, 2),
                   warpsearch::test::random_codes(rng, length(rng) / 4 + 1, 2)});
  for (const std::size_t n : boundary_lengths()) dna.push_back(planted_pair(rng, n, n + 5, 4));
  const ScoringScheme ties(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  for (const int steps : {0, 1, 2, 8, 32}) {  // 0: off
    GpuPairAligner::KernelOptions options;
    options.reverse_early_exit = steps > 0;
    options.early_exit_check_steps = std::max(steps, 1);
    check_pairs(blosum62(), protein, AlignmentMode::local, options);
    check_pairs(ties, dna, AlignmentMode::local, options);
  }
  GpuPairAligner aligner(0, blosum62());
  GpuPairAligner::KernelOptions bad;
  bad.early_exit_check_steps = 3;
  CHECK_THROWS_AS(aligner.set_kernel_options(bad), std::invalid_argument);
  bad = {};
  bad.packed_length_limit = -1;
  CHECK_THROWS_AS(aligner.set_kernel_options(bad), std::invalid_argument);
}

// Packed (s16x2) shapes: local passes whose min(query, target length) x the largest score fits 16 bits
// with a margin (pair_pack_limit) run packed, the others 32-bit, chosen per pass in one call. Every span
// against the reference: packed on, off, and limited to short pairs (mixing both kinds in each shape),
// with the early exit on and off, on protein and tie-heavy DNA, lengths at every packed tile boundary.
TEST_CASE("GpuPairAligner: packed 16-bit and 32-bit passes give the reference's spans", "[gpu][pairs][small]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(1616);
  std::vector<Pair> protein;
  std::uniform_int_distribution<std::size_t> length(150, 1300);
  for (int k = 0; k < 250; ++k) protein.push_back(planted_pair(rng, length(rng), length(rng), 25));
  for (const std::size_t n : boundary_lengths())
    if (n > 192) protein.push_back(planted_pair(rng, n, 193 + n % 500, 25));
  std::vector<Pair> dna;
  for (int k = 0; k < 150; ++k) dna.push_back(planted_pair(rng, length(rng), length(rng), 4));
  const ScoringScheme dna_scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const ScoringScheme ties(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  for (const int limit : {0, 400, -1}) {  // -1: packing off
    for (const bool early_exit : {true, false}) {
      GpuPairAligner::KernelOptions options;
      options.packed_lanes = limit >= 0;
      options.packed_length_limit = std::max(limit, 0);
      options.reverse_early_exit = early_exit;
      check_pairs(blosum62(), protein, AlignmentMode::local, options);
      check_pairs(dna_scoring, dna, AlignmentMode::local, options);
      check_pairs(ties, dna, AlignmentMode::local, options);
    }
  }
}

// The 16-bit bound itself: an identical pair of tryptophans (the largest BLOSUM62 score, 11) at the
// bound, (32767 - 23) / 11 = 2,976 residues, scores 32,736 in packed shapes; one residue more runs
// 32-bit (32,747); both exact.
TEST_CASE("GpuPairAligner: packed passes at the 16-bit bound", "[gpu][pairs][small]") {
  if (!have_gpu()) return;
  const ScoringScheme scoring = blosum62();
  int w = 0;
  for (int c = 0; c < scoring.matrix().alphabet().size(); ++c)
    if (scoring.score(static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(c)) == 11) w = c;
  std::mt19937_64 rng(2976);
  std::vector<Pair> pairs;
  for (const std::size_t n : {2975, 2976, 2977}) {
    const std::string s(n, static_cast<char>(w));
    pairs.push_back({s, s});
    pairs.push_back({s, warpsearch::test::random_codes(rng, 300, 25) + s});  // reverse pass from far right
  }
  GpuPairAligner::KernelOptions packed;
  packed.packed_lanes = true;
  check_pairs(scoring, pairs, AlignmentMode::local, packed);
  GpuPairAligner aligner(0, scoring);
  aligner.set_kernel_options(packed);
  std::vector<Span> spans;
  aligner.align({{pairs[2].query, pairs[2].target}, {pairs[4].query, pairs[4].target}}, AlignmentMode::local, spans);
  CHECK(spans[0].score == 2976 * 11);
  CHECK(spans[1].score == 2977 * 11);
}

TEST_CASE("GpuPairAligner equals the reference on random protein pairs, every mode", "[gpu][pairs][small]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(2026);
  std::vector<Pair> pairs;
  std::uniform_int_distribution<std::size_t> length(1, 700);
  for (int k = 0; k < 300; ++k) pairs.push_back(planted_pair(rng, length(rng), length(rng), 25));
  // Identical and unrelated pairs, and the 27 codes (U, O included).
  for (int k = 0; k < 10; ++k) {
    const std::string s = warpsearch::test::random_codes(rng, length(rng), 27);
    pairs.push_back({s, s});
    pairs.push_back(
        {warpsearch::test::random_codes(rng, length(rng), 27), warpsearch::test::random_codes(rng, length(rng), 27)});
  }
  for (const AlignmentMode mode : kModes) check_pairs(blosum62(), pairs, mode);
}

TEST_CASE("GpuPairAligner equals the reference at every shape and tile boundary", "[gpu][pairs]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(11);
  const std::vector<std::size_t> lengths = boundary_lengths();
  std::vector<Pair> pairs;
  for (const std::size_t q : lengths) {
    pairs.push_back(planted_pair(rng, q, 1 + q % 97, 25));  // short targets: many rows of few cells
    pairs.push_back(planted_pair(rng, q, q + 3, 25));
    pairs.push_back(planted_pair(rng, 1 + q % 89, q, 25));  // long targets, short queries
  }
  for (const AlignmentMode mode : kModes) check_pairs(blosum62(), pairs, mode);
}

TEST_CASE("GpuPairAligner equals the reference for every built-in matrix and several gap costs", "[gpu][pairs]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::size_t> length(1, 400);
  const std::vector<std::pair<int, int>> gaps = {{11, 1}, {10, 2}, {0, 3}, {14, 2}};
  int g = 0;
  for (const std::string& name : SubstitutionMatrix::builtin_names()) {
    const auto [open, extend] = gaps[static_cast<std::size_t>(g++) % gaps.size()];
    const ScoringScheme scoring(SubstitutionMatrix::builtin(name), GapOpen{open}, GapExtend{extend});
    std::vector<Pair> pairs;
    for (int k = 0; k < 40; ++k) pairs.push_back(planted_pair(rng, length(rng), length(rng), 27));
    for (const AlignmentMode mode : kModes) check_pairs(scoring, pairs, mode);
  }
}

TEST_CASE("GpuPairAligner equals the reference on DNA, with ties and 16-bit profile elements", "[gpu][pairs][small]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::size_t> length(1, 600);
  // 2/-3 with 5/2: many equal scores (tie-breaks); 100/-90 with 50/20: s + open + extend = 170 does
  // not fit 8 bits (16-bit profile elements), and scores far beyond 16 bits.
  const std::vector<ScoringScheme> schemes = {
      ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2}),
      ScoringScheme(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::nucleotide(100, -90), GapOpen{50}, GapExtend{20})};
  for (const ScoringScheme& scoring : schemes) {
    std::vector<Pair> pairs;
    for (int k = 0; k < 120; ++k) pairs.push_back(planted_pair(rng, length(rng), length(rng), 5));
    for (const std::size_t n : {1, 2, 4, 16, 17, 64, 257, 513}) pairs.push_back(planted_pair(rng, n, n, 4));
    for (const AlignmentMode mode : kModes) check_pairs(scoring, pairs, mode);
  }
}

TEST_CASE("GpuPairAligner: long identical pairs score beyond 16 bits", "[gpu][pairs]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(17);
  const ScoringScheme protein = blosum62();
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const std::string p = warpsearch::test::random_codes(rng, 6000, 20);
  const std::string d = warpsearch::test::random_codes(rng, 20000, 4);
  for (const AlignmentMode mode : kModes) {
    check_pairs(protein, {{p, p}, {p.substr(100), p}}, mode);
    check_pairs(dna, {{d, d}, {d, d.substr(0, 19000)}}, mode);
  }
  // A score the reference gives without running the reference: the whole DNA diagonal.
  GpuPairAligner aligner(0, dna);
  std::vector<Span> spans;
  aligner.align({{d, d}}, AlignmentMode::local, spans);
  CHECK(spans[0].score == 40000);
  CHECK(spans[0].query_begin == 0);
  CHECK(spans[0].subject_end == 20000);
}

TEST_CASE("GpuPairAligner: very long pairs (100,000 rows, 50,000 x 50,000)", "[gpu][pairs][long]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(23);
  const ScoringScheme scoring = blosum62();
  // 100,000 rows of one tile (local: rows are the target) and many tiles of few rows.
  const Pair tall = planted_pair(rng, 300, 100000, 25);
  const Pair wide = planted_pair(rng, 100000, 300, 25);
  for (const AlignmentMode mode : kModes) check_pairs(scoring, {tall, wide}, mode);
  Pair big{warpsearch::test::random_codes(rng, 50000, 25), {}};
  big.target = warpsearch::test::mutated_codes(rng, big.query, 25, 0.3, 4);
  big.target.resize(std::min<std::size_t>(big.target.size(), 50000));
  check_pairs(scoring, {big}, AlignmentMode::local);
  check_pairs(scoring, {big}, AlignmentMode::global);
}

// Enough pairs for several sub-batches (the pipelined path: reverse jobs built on the device, several
// sub-batches in flight): every span equals the one from small calls (250 pairs each), a sample equals
// the reference, in every mode; a bad code in the last sub-batch is reported for its pair, and the
// aligner still works after it.
namespace {
void check_sub_batches(std::size_t count, const GpuPairAligner::SubBatchLimits& limits, std::uint32_t min_sub_batches,
                       const GpuPairAligner::KernelOptions& options = {}, bool trace = false) {
  std::mt19937_64 rng(404);
  std::uniform_int_distribution<std::size_t> length(100, 600);
  std::vector<Pair> pairs;
  for (std::size_t k = 0; k < count; ++k) pairs.push_back(planted_pair(rng, length(rng), length(rng), 25));
  pairs[77].query.clear();  // an empty sequence among them
  std::vector<PairTask> tasks;
  for (const auto& pair : pairs) tasks.push_back({pair.query, pair.target});
  const ScoringScheme scoring = blosum62();
  GpuPairAligner aligner(0, scoring);
  aligner.set_sub_batch_limits(limits);
  aligner.set_kernel_options(options);
  aligner.set_trace(trace);
  for (const AlignmentMode mode : kModes) {
    std::vector<Span> spans;
    aligner.align(tasks, mode, spans);
    CHECK(aligner.last_timings().sub_batches >= min_sub_batches);
    if (trace) {  // every sub-batch's upload, forward launches and spans back are in the timeline
      const auto& timeline = aligner.last_trace();
      for (const char* what : {"upload", "forward", "download", "pack", "enqueue", "wait"}) {
        std::set<int> parts;
        for (const auto& entry : timeline)
          if (entry.what == what) {
            parts.insert(entry.sub_batch);
            CHECK(entry.end >= entry.begin);
          }
        INFO(what);
        CHECK(parts.size() == aligner.last_timings().sub_batches);
      }
    }
    REQUIRE(spans.size() == pairs.size());
    std::size_t mismatches = 0;
    std::vector<Span> small;
    for (std::size_t first = 0; first < tasks.size(); first += 250) {
      const std::vector<PairTask> part(
          tasks.begin() + static_cast<std::ptrdiff_t>(first),
          tasks.begin() + static_cast<std::ptrdiff_t>(std::min(tasks.size(), first + 250)));
      aligner.align(part, mode, small);
      for (std::size_t k = 0; k < part.size(); ++k) {
        const Span& a = spans[first + k];
        const Span& b = small[k];
        const bool same = a.score == b.score && a.query_begin == b.query_begin && a.query_end == b.query_end &&
                          a.subject_begin == b.subject_begin && a.subject_end == b.subject_end;
        if (!same && ++mismatches <= 10)
          UNSCOPED_INFO(alignment_mode_name(mode) << " pair " << first + k << " differs");
      }
    }
    CHECK(mismatches == 0);
    for (std::size_t k = 0; k < pairs.size(); k += 97) {
      const auto e = warpsearch::reference::span(pairs[k].query, pairs[k].target, scoring, mode);
      const Span& g = spans[k];
      const bool same = g.score == e.score && g.query_begin == e.query_begin && g.query_end == e.query_end &&
                        g.subject_begin == e.subject_begin && g.subject_end == e.subject_end;
      if (!same) UNSCOPED_INFO(alignment_mode_name(mode) << " pair " << k << " differs from the reference");
      CHECK(same);
    }
  }
  const std::size_t bad = count - 10;
  pairs[bad].target[5] = static_cast<char>(30);
  tasks[bad] = {pairs[bad].query, pairs[bad].target};
  std::vector<Span> spans;
  try {
    aligner.align(tasks, AlignmentMode::local, spans);
    FAIL("a code outside the alphabet was accepted");
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    CHECK(message.find("pair " + std::to_string(bad)) != std::string::npos);
    CHECK(message.find("target residue 6") != std::string::npos);
  }
  tasks[bad] = tasks[0];
  aligner.align(tasks, AlignmentMode::local, spans);
  CHECK(spans[bad].score == spans[0].score);
}
}  // namespace

// The default limits: 20,000 pairs of 100..600 residues make at least 2 sub-batches.
TEST_CASE("GpuPairAligner: sub-batches in flight give the same spans as small calls", "[gpu][pairs]") {
  if (!have_gpu()) return;
  check_sub_batches(20000, {}, 2);
}

// The same path at a size compute-sanitizer can check (racecheck of the 20,000 pairs did not finish in
// 380 s): small sub-batch limits put 8 sub-batches of about 150 pairs in flight.
TEST_CASE("GpuPairAligner: small sub-batches in flight give the same spans as small calls", "[gpu][pairs][small]") {
  if (!have_gpu()) return;
  GpuPairAligner::SubBatchLimits limits;
  limits.residues = std::uint64_t{1} << 14;
  limits.min_pairs = 100;
  check_sub_batches(1200, limits, 8);
}

// Scheduling choices change no span: pairs batched in input order, smaller first and last sub-batches,
// more of them, the reverse passes' streams not first; traced.
TEST_CASE("GpuPairAligner: scheduling options and tracing give the same spans", "[gpu][pairs][small]") {
  if (!have_gpu()) return;
  GpuPairAligner::SubBatchLimits limits;
  limits.residues = std::uint64_t{1} << 14;
  limits.min_pairs = 60;
  limits.first_percent = 25;
  limits.last_percent = 30;
  limits.max_parts = 12;
  limits.largest_first = false;
  GpuPairAligner::KernelOptions options;
  options.reverse_first = false;
  check_sub_batches(1200, limits, 12, options, true);
}
