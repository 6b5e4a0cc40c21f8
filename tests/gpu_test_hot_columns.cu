// GPU hot columns vs the column maxima of a plain 64-bit local DP on the CPU: DNA and protein, queries
// shorter and longer than one stripe of the kernel, stretches cut into several pieces, owned parts after
// a context, planted copies that make wide hot runs. Skips (with a warning) where no GPU is usable.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/long_subject.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/hot_columns.hpp"
#include "kernels/reference/reference.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/gpu_test_support.hpp"
#include "tests/packed_subjects.hpp"
#include "tests/random_sequences.hpp"

namespace {

using warpsearch::GapExtend;
using warpsearch::GapOpen;
using warpsearch::ScoringScheme;
using warpsearch::SubstitutionMatrix;
using warpsearch::gpu::HotColumnScanner;
using warpsearch::gpu::HotColumnTask;

bool have_gpu() { return warpsearch::test::gpu_usable("GPU hot-column test"); }

// A subject of `length` random residues with mutated copies of the query planted at `copies` places.
std::string subject_with_copies(std::mt19937_64& rng, const std::string& query, std::size_t length, int copies,
                                int alphabet_size) {
  std::string subject = warpsearch::test::random_codes(rng, length, alphabet_size);
  for (int c = 0; c < copies; ++c) {
    const std::string copy = warpsearch::test::mutated_codes(rng, query, alphabet_size, 0.1, 3);
    if (copy.size() >= length) continue;
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, length - copy.size())(rng);
    subject.replace(at, copy.size(), copy);
  }
  return subject;
}

void check(const ScoringScheme& scoring, int alphabet_size, const std::vector<std::size_t>& query_lengths,
           std::size_t subject_length, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> queries, subjects;
  std::vector<HotColumnTask> tasks;
  for (const std::size_t m : query_lengths) {
    queries.push_back(warpsearch::test::random_codes(rng, m, alphabet_size));
    subjects.push_back(subject_with_copies(rng, queries.back(), subject_length, 3, alphabet_size));
  }
  for (std::size_t k = 0; k < queries.size(); ++k) {
    // A threshold a planted copy passes and random sequence rarely does: a third of the self score.
    long long self = 0;
    for (const char c : queries[k]) self += scoring.score(static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(c));
    const std::int64_t threshold = std::max<long long>(1, self / 3);
    const std::uint64_t reach = warpsearch::cpu::alignment_reach(queries[k].size(), scoring, threshold);
    REQUIRE(reach > 0);
    tasks.push_back({queries[k], subjects[k], k % 2 == 0 ? 0 : std::min<std::uint64_t>(reach - 1, subject_length / 4),
                     reach, threshold});
  }
  HotColumnScanner scanner(0, scoring);
  std::vector<std::vector<std::uint8_t>> hot;
  scanner.scan(tasks, hot);
  REQUIRE(hot.size() == tasks.size());
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const std::vector<std::int64_t> maxima = warpsearch::reference::column_maxima(queries[k], subjects[k], scoring);
    REQUIRE(hot[k].size() == subjects[k].size() - tasks[k].owned_from);
    std::size_t flagged = 0, wrong = 0;
    for (std::size_t c = 0; c < hot[k].size(); ++c) {
      const bool expected = maxima[tasks[k].owned_from + c] >= tasks[k].threshold;
      flagged += expected ? 1 : 0;
      if ((hot[k][c] != 0) != expected) ++wrong;
    }
    INFO("task " << k << ": query " << queries[k].size() << ", subject " << subjects[k].size() << ", owned from "
                 << tasks[k].owned_from << ", threshold " << tasks[k].threshold);
    CHECK(wrong == 0);
    CHECK(flagged > 0);  // the planted copies make hot columns: the comparison tests something
  }
}

}  // namespace

TEST_CASE("GPU hot columns equal the 64-bit DP's column maxima", "[gpu][hot]") {
  if (!have_gpu()) return;
  SECTION("DNA, short and multi-stripe queries, several pieces") {
    const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
    check(dna, 4, {1, 37, 300, 512, 513, 1500}, 30000, 7);
  }
  SECTION("protein, BLOSUM62") {
    const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
    check(protein, 20, {50, 700}, 20000, 11);
  }
}

namespace {

// The scan's hot tiles (GpuScorer::score_above_with_hot_tiles) against the 64-bit DP's column maxima:
// every column with a cell at the threshold lies in a tile of its subject, every tile holds such a
// column, and subjects scored in one pass get none. Subjects of all the tiled kinds: tiled bins, the
// cooperative bin (or the streamed kernel, which takes its pairs for queries of up to 1,024 residues),
// and one that saturates 16 bits (rescored in 32).
void check_hot_tiles(const ScoringScheme& scoring, int alphabet_size, std::size_t query_length,
                     const std::vector<std::size_t>& subject_lengths, std::uint64_t seed,
                     warpsearch::gpu::GpuScorer::LongSubjectKernel kernel) {
  std::mt19937_64 rng(seed);
  const std::string query = warpsearch::test::random_codes(rng, query_length, alphabet_size);
  std::vector<std::string> subjects;
  for (const std::size_t length : subject_lengths) {
    subjects.push_back(subject_with_copies(rng, query, length, 2, alphabet_size));
    if (length > 2 * query_length) subjects.back().replace(length / 2, query.size(), query);  // a full-length copy
  }
  long long self = 0;
  for (const char c : query) self += scoring.score(static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(c));
  const int threshold = static_cast<int>(std::max<long long>(1, self / 3));
  warpsearch::gpu::GpuScorer scorer(0, scoring);
  scorer.set_long_subject_kernel(kernel);
  const warpsearch::test::PackedSubjects packed(subjects, scoring.matrix().alphabet().pad_code());
  scorer.set_subjects(packed.batch());
  std::vector<warpsearch::gpu::ScoreHit> hits;
  warpsearch::gpu::HotTiles hot;
  scorer.score_above_with_hot_tiles(
      {query}, {threshold},
      [&](std::size_t, const std::vector<warpsearch::gpu::ScoreHit>& of_query, const warpsearch::gpu::HotTiles& tiles) {
        hits = of_query;
        hot = tiles;
      });
  REQUIRE(hot.complete);
  std::size_t hot_columns = 0;
  for (std::size_t s = 0; s < subjects.size(); ++s) {
    const std::vector<std::int64_t> maxima = warpsearch::reference::column_maxima(query, subjects[s], scoring);
    std::vector<warpsearch::gpu::HotTile> tiles;
    for (const auto& tile : hot.tiles)
      if (tile.subject == s) tiles.push_back(tile);
    INFO("subject " << s << " of " << subjects[s].size() << " residues, threshold " << threshold);
    if (subjects[s].size() <= warpsearch::gpu::GpuScorer::kMaxOnePassLength) {
      CHECK(tiles.empty());
      continue;
    }
    std::vector<bool> covered(subjects[s].size(), false);
    for (const auto& tile : tiles) {
      REQUIRE(tile.begin < tile.end);
      REQUIRE(tile.end <= subjects[s].size());
      CHECK(tile.end - tile.begin <= 512);
      bool holds_hot = false;
      for (std::uint32_t c = tile.begin; c < tile.end; ++c) {
        covered[c] = true;
        holds_hot = holds_hot || maxima[c] >= threshold;
      }
      CHECK(holds_hot);
    }
    std::size_t uncovered = 0;
    for (std::size_t c = 0; c < maxima.size(); ++c) {
      hot_columns += maxima[c] >= threshold ? 1 : 0;
      uncovered += maxima[c] >= threshold && !covered[c] ? 1 : 0;
    }
    CHECK(uncovered == 0);
  }
  CHECK(hot_columns > 0);  // the planted copies make hot columns: the comparison tests something

  // A list too small for the tiles: none come back, and the call says so.
  scorer.set_hot_tile_capacity(1);
  scorer.score_above_with_hot_tiles(
      {query}, {threshold},
      [&](std::size_t, const std::vector<warpsearch::gpu::ScoreHit>& of_query, const warpsearch::gpu::HotTiles& tiles) {
        CHECK(of_query.size() == hits.size());
        CHECK_FALSE(tiles.complete);
        CHECK(tiles.tiles.empty());
      });
}

}  // namespace

TEST_CASE("GPU scan's hot tiles hold every column with a cell at the threshold, and only tiles that have one",
          "[gpu][hot]") {
  if (!have_gpu()) return;
  using Kernel = warpsearch::gpu::GpuScorer::LongSubjectKernel;
  for (const Kernel kernel : {Kernel::cooperative, Kernel::streamed}) {
    const char* name = kernel == Kernel::streamed ? "streamed" : "cooperative";
    DYNAMIC_SECTION("DNA: one-pass, tiled and long subjects, " << name) {
      const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
      check_hot_tiles(dna, 4, 300, {900, 1500, 3000, 4096, 4097, 4608, 5121, 20000, 70000}, 21, kernel);
    }
    DYNAMIC_SECTION("protein, subjects around the streamed kernel's windows, " << name) {
      const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
      check_hot_tiles(protein, 20, 777, {4097, 4607, 4608, 4609, 9000, 33000}, 25, kernel);
    }
    DYNAMIC_SECTION("protein, a full-length copy that saturates 16 bits (rescored in 32), " << name) {
      const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
      check_hot_tiles(protein, 20, 7000, {2000, 16000}, 23, kernel);
    }
  }
}
