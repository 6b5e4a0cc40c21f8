// GPU scorer vs a plain 64-bit Gotoh on the CPU: every length bin and its edges, several matrices and
// gap pairs, DNA, forced 16-bit saturation, and a 100,000-residue subject. Tests skip (with a warning)
// where no GPU is usable, so that CI without a GPU stays green.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/subject_batch.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/length_bins.hpp"
#include "kernels/gpu/table_copies.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/gpu_test_support.hpp"
#include "tests/packed_subjects.hpp"
#include "tests/test_support.hpp"

namespace {

using warpsearch::GapExtend;
using warpsearch::GapOpen;
using warpsearch::ScoringScheme;
using warpsearch::SubstitutionMatrix;
using warpsearch::gpu::GpuScorer;
using warpsearch::gpu::ScoreHit;
using warpsearch::gpu::usable_device_count;
using warpsearch::test::PackedSubjects;

// The oracle: O(mn) Gotoh in 64-bit integers; a gap of length k costs open + k * extend.
long long reference_score(const std::string& query, const std::string& subject, const ScoringScheme& scoring) {
  constexpr long long kMinusInfinity = -(1LL << 60);
  const long long first = scoring.gap_open() + scoring.gap_extend();
  const long long extend = scoring.gap_extend();
  std::vector<long long> h(subject.size() + 1, 0);
  std::vector<long long> f(subject.size() + 1, kMinusInfinity);
  long long best = 0;
  for (std::size_t i = 1; i <= query.size(); ++i) {
    long long diag = 0;
    long long left = 0;
    long long e = kMinusInfinity;
    for (std::size_t j = 1; j <= subject.size(); ++j) {
      e = std::max(e - extend, left - first);
      f[j] = std::max(f[j] - extend, h[j] - first);
      const long long sub =
          scoring.score(static_cast<std::uint8_t>(query[i - 1]), static_cast<std::uint8_t>(subject[j - 1]));
      const long long value = std::max({0LL, diag + sub, e, f[j]});
      diag = h[j];
      h[j] = value;
      left = value;
      best = std::max(best, value);
    }
  }
  return best;
}

// A subject of the given length; with `relative` set, it carries a mutated copy (substitutions and
// short indels) of a piece of `relative` at a random place, so that scores and gaps are non-trivial.
std::string make_subject(std::mt19937_64& rng, std::size_t length, int alphabet_size, const std::string& relative) {
  std::string s = warpsearch::test::random_codes(rng, length, alphabet_size);
  if (relative.empty() || length < 4) return s;
  std::uniform_int_distribution<int> percent(0, 99);
  std::string piece;
  for (std::size_t i = 0; i < relative.size() && piece.size() < length; ++i) {
    const int roll = percent(rng);
    if (roll < 6) continue;                                                                    // deletion
    if (roll < 12) piece += warpsearch::test::random_codes(rng, 1 + roll % 3, alphabet_size);  // insertion
    piece += roll < 30 ? warpsearch::test::random_codes(rng, 1, alphabet_size) : std::string(1, relative[i]);
  }
  piece.resize(std::min(piece.size(), length));
  const std::size_t at = std::uniform_int_distribution<std::size_t>(0, length - piece.size())(rng);
  s.replace(at, piece.size(), piece);
  return s;
}

bool have_gpu() { return warpsearch::test::gpu_usable("GPU scorer test"); }

// Scores every query against every subject on the GPU, with each number of substitution-table copies
// (kernels/gpu/table_copies.hpp: the copies and their plan change only which shared-memory words are
// read; every bin that can reads them, whatever its size) and each team size of the cooperative bin (the
// pipeline's handoffs change, not the cells), and checks each score against the oracle.
void check_against_reference(const ScoringScheme& scoring, const std::vector<std::string>& queries,
                             const std::vector<std::string>& subjects) {
  std::vector<long long> expected;
  for (const auto& query : queries)
    for (const auto& subject : subjects) expected.push_back(reference_score(query, subject, scoring));
  const PackedSubjects packed(subjects, scoring.matrix().alphabet().pad_code());
  // Each number of table copies, each team of warps per pair in the cooperative bin (1, 2, 4, 8, or
  // chosen by the scorer: 0), and the streamed kernel for subjects longer than 4096 wherever it can take
  // the query (up to 1,024 residues; with copies, read by its stream plan) or the scorer's choice.
  using Kernel = GpuScorer::LongSubjectKernel;
  struct Setting {
    int copies;
    int team;
    Kernel kernel;
  };
  for (const Setting setting :
       {Setting{1, 1, Kernel::cooperative}, Setting{2, 2, Kernel::cooperative}, Setting{3, 4, Kernel::cooperative},
        Setting{2, 8, Kernel::cooperative}, Setting{2, 0, Kernel::automatic}, Setting{1, 0, Kernel::streamed},
        Setting{2, 0, Kernel::streamed}, Setting{3, 0, Kernel::streamed}}) {
    const int copies = setting.copies;
    const int team = setting.team;
    GpuScorer scorer(0, scoring, copies);
    scorer.set_table_copies_min_waves(0);
    scorer.set_cooperative_team_warps(team);
    scorer.set_long_subject_kernel(setting.kernel);
    scorer.set_subjects(packed.batch());
    std::vector<std::int32_t> scores(queries.size() * subjects.size(), -12345);
    scorer.score(queries, scores.data());
    std::size_t mismatches = 0;
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::size_t s = 0; s < subjects.size(); ++s) {
        const long long want = expected[q * subjects.size() + s];
        const long long got = scores[q * subjects.size() + s];
        if (got != want && ++mismatches <= 10)
          UNSCOPED_INFO("table copies " << copies << ", team " << team << ", kernel "
                                        << static_cast<int>(setting.kernel) << ": query " << q << " (length "
                                        << queries[q].size() << ") subject " << s << " (length " << subjects[s].size()
                                        << "): GPU " << got << ", reference " << want);
      }
    CHECK(mismatches == 0);
  }
}

// Lengths at every bin edge: 1, 31, 32, 33, each one-pass bin's limit -1/0/+1, every multiple of each
// tile width -1/0/+1 in the tiled range, and past it.
std::vector<std::size_t> edge_lengths() {
  namespace d = warpsearch::gpu::detail;
  // Past the one-pass bins: the tiled bins up to 4096, then the cooperative bin (a block of 8 warps per
  // pair, 512 columns a tile: 4609 wraps warp 0 to a second tile, 8193 every warp).
  std::vector<std::size_t> lengths = {1, 2, 3, 5, 31, 32, 33, 1536, 2047, 2049, 3000, 4095, 4096, 4097, 4609, 8193};
  for (int b = 0; b < d::kFirstTiledBin; ++b) {
    const std::size_t limit = d::kLengthBins[b].max_length;
    lengths.insert(lengths.end(), {limit - 1, limit, limit + 1});
  }
  for (int b = d::kFirstTiledBin; b < d::kHugeBin; ++b) {
    const std::size_t width = static_cast<std::size_t>(d::kLengthBins[b].group) * d::kLengthBins[b].regs;
    for (std::size_t at = width; at <= d::kLengthBins[b].max_length; at += width)
      if (at > d::kLengthBins[d::kFirstTiledBin - 1].max_length) lengths.insert(lengths.end(), {at - 1, at, at + 1});
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  return lengths;
}

}  // namespace

TEST_CASE("GpuScorer rejects a device that does not exist", "[gpu][small]") {
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{10}, GapExtend{1});
  CHECK_THROWS_AS(GpuScorer(usable_device_count() + 3, scoring), std::invalid_argument);
  CHECK_THROWS_AS(GpuScorer(0, scoring, 0), std::invalid_argument);
  CHECK_THROWS_AS(GpuScorer(0, scoring, warpsearch::gpu::detail::kMaxTableCopies + 1), std::invalid_argument);
  if (!have_gpu()) return;
  GpuScorer scorer(0, scoring);
  CHECK_THROWS_AS(scorer.set_cooperative_team_warps(3), std::invalid_argument);
}

TEST_CASE("GPU scores match the 64-bit reference at every length bin edge", "[gpu]") {
  if (!have_gpu()) return;
  struct Scheme {
    const char* matrix;
    int open;
    int extend;
  };
  const Scheme schemes[] = {{"BLOSUM62", 10, 1}, {"BLOSUM45", 14, 2}, {"PAM30", 9, 1}, {"BLOSUM80", 0, 3}};
  std::mt19937_64 rng(20261121);
  for (const Scheme& scheme : schemes) {
    SECTION(std::string(scheme.matrix) + " " + std::to_string(scheme.open) + "/" + std::to_string(scheme.extend)) {
      const ScoringScheme scoring(SubstitutionMatrix::builtin(scheme.matrix), GapOpen{scheme.open},
                                  GapExtend{scheme.extend});
      const int letters = scoring.matrix().alphabet().size();  // all 27 protein codes, U and O included
      const std::vector<std::string> queries = {
          warpsearch::test::random_codes(rng, 1, letters), warpsearch::test::random_codes(rng, 37, letters),
          warpsearch::test::random_codes(rng, 275, letters),  // 9 rows a lane in the streamed kernel
          warpsearch::test::random_codes(rng, 301, letters)};
      std::vector<std::string> subjects;
      for (std::size_t length : edge_lengths()) {
        // An odd number per length: some bins end with an unpaired subject.
        for (int copy = 0; copy < 3; ++copy)
          subjects.push_back(make_subject(rng, length, letters, copy == 0 ? "" : queries[std::size_t(copy)]));
      }
      std::shuffle(subjects.begin(), subjects.end(), rng);  // the scorer sorts by itself
      check_against_reference(scoring, queries, subjects);
    }
  }
}

// A tiled bin with more pairs than the device has warps for it (132 multiprocessors x 16): past the first
// round each warp takes its next pair from a counter (sw_kernel.cuh); every subject is scored, once.
TEST_CASE("GPU scores of a tiled bin with more pairs than warps match the reference", "[gpu]") {
  if (!have_gpu()) return;
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{10}, GapExtend{1});
  const int letters = scoring.matrix().alphabet().size();
  std::mt19937_64 rng(20261126);
  const std::vector<std::string> queries = {warpsearch::test::random_codes(rng, 21, letters),
                                            warpsearch::test::random_codes(rng, 46, letters)};
  std::vector<std::string> subjects;
  // 1,025-1,100 residues: three 384-column tiles pad them least, so they share one tiled bin.
  for (int s = 0; s < 6000; ++s)
    subjects.push_back(make_subject(rng, 1025 + static_cast<std::size_t>(s % 76), letters, queries[s % 2]));
  REQUIRE(warpsearch::gpu::detail::bin_of_length(1025) == warpsearch::gpu::detail::bin_of_length(1100));
  check_against_reference(scoring, queries, subjects);
}

TEST_CASE("GPU scores of small random sets match the reference", "[gpu][small]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(7);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{10}, GapExtend{1});
  const int letters = scoring.matrix().alphabet().size();
  const std::vector<std::string> queries = {warpsearch::test::random_codes(rng, 64, letters),
                                            warpsearch::test::random_codes(rng, 5, letters)};
  std::vector<std::string> subjects;
  for (std::size_t length : {1, 7, 16, 33, 100, 250, 513, 1025, 1300})
    subjects.push_back(make_subject(rng, length, letters, queries[0]));
  check_against_reference(scoring, queries, subjects);
  // An empty query scores 0 against everything.
  const PackedSubjects packed(subjects, scoring.matrix().alphabet().pad_code());
  GpuScorer scorer(0, scoring);
  scorer.set_subjects(packed.batch());
  std::vector<std::int32_t> scores(subjects.size(), -1);
  scorer.score({std::string()}, scores.data());
  CHECK(std::count(scores.begin(), scores.end(), 0) == static_cast<long>(subjects.size()));
}

TEST_CASE("GPU scores DNA exactly", "[gpu]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(11);
  const ScoringScheme scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const int letters = scoring.matrix().alphabet().size();  // A C G T N
  const std::vector<std::string> queries = {warpsearch::test::random_codes(rng, 150, letters),
                                            warpsearch::test::random_codes(rng, 777, letters)};
  // Every bin: DNA reads the lane copies of the table (kernels/gpu/table_copies.hpp).
  std::vector<std::string> subjects;
  for (std::size_t length : edge_lengths())
    for (int copy = 0; copy < 2; ++copy)
      subjects.push_back(make_subject(rng, length, letters, queries[std::size_t(copy)]));
  check_against_reference(scoring, queries, subjects);
}

TEST_CASE("Saturated 16-bit scores are rescored exactly in 32 bits", "[gpu]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(13);
  SECTION("DNA with large scores saturates single-tile and tiled bins") {
    // match 100: 330 identical bases already pass 32767.
    const ScoringScheme scoring(SubstitutionMatrix::nucleotide(100, -90), GapOpen{50}, GapExtend{20});
    const std::string query = warpsearch::test::random_codes(rng, 1200, 4);
    std::vector<std::string> subjects;
    for (std::size_t length : {200, 320, 330, 340, 500, 640, 1024, 1025, 1200, 3000}) {
      std::string identical = length <= query.size()
                                  ? query.substr(0, length)
                                  : query + warpsearch::test::random_codes(rng, length - query.size(), 4);
      subjects.push_back(identical);                            // saturates from about 330
      subjects.push_back(make_subject(rng, length, 4, ""));     // its unsaturated partner
      subjects.push_back(make_subject(rng, length, 4, query));  // mutated: sometimes saturated
    }
    check_against_reference(scoring, {query}, subjects);
  }
  SECTION("long identical proteins under BLOSUM62") {
    const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{10}, GapExtend{1});
    const std::string query = warpsearch::test::random_codes(rng, 8000, 20);
    std::vector<std::string> subjects = {query, query.substr(0, 7000), query.substr(500, 6000),
                                         make_subject(rng, 7000, 20, "")};
    check_against_reference(scoring, {query}, subjects);
  }
}

TEST_CASE("A 100,000-residue subject is scored exactly", "[gpu]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(17);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{10}, GapExtend{1});
  const std::string query = warpsearch::test::random_codes(rng, 400, 20);
  std::string huge = make_subject(rng, 100000, 20, "");
  // A mutated copy of the query near the far end: the best alignment lies in the last tiles.
  huge.replace(98000, 500, make_subject(rng, 500, 20, query));
  std::vector<std::string> subjects = {huge, make_subject(rng, 60, 20, query), make_subject(rng, 99999, 20, query)};
  check_against_reference(scoring, {query}, subjects);
}

TEST_CASE("Subjects can be replaced and many queries scored in one call", "[gpu][small]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(19);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM50"), GapOpen{11}, GapExtend{1});
  const int letters = scoring.matrix().alphabet().size();
  GpuScorer scorer(0, scoring);
  scorer.set_table_copies_min_waves(0);  // every bin that can reads the table with copies
  for (int round = 0; round < 2; ++round) {
    std::vector<std::string> queries;
    for (int q = 0; q < 5; ++q) queries.push_back(warpsearch::test::random_codes(rng, 20 + 50 * q + round, letters));
    std::vector<std::string> subjects;
    for (int s = 0; s < 41; ++s) subjects.push_back(make_subject(rng, 10 + 37 * s + round, letters, queries[s % 5]));
    const PackedSubjects packed(subjects, scoring.matrix().alphabet().pad_code());
    scorer.set_subjects(packed.batch());
    CHECK(scorer.resident_subjects() == subjects.size());
    std::vector<std::int32_t> scores(queries.size() * subjects.size(), -1);
    scorer.score(queries, scores.data());
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::size_t s = 0; s < subjects.size(); ++s)
        REQUIRE(scores[q * subjects.size() + s] == reference_score(queries[q], subjects[s], scoring));
  }
}

// The search's path: only the scores at or above each query's threshold come back, selected on the
// device, sorted by query then subject; equal to the reference filtered on the host, through the device
// list and through the fallback when the list is too small (every score passes a threshold of 0).
TEST_CASE("GpuScorer::score_above returns exactly the reference scores at or above the thresholds", "[gpu][small]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(23);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{10}, GapExtend{1});
  const int letters = scoring.matrix().alphabet().size();
  std::vector<std::string> queries;
  for (int q = 0; q < 4; ++q) queries.push_back(warpsearch::test::random_codes(rng, 30 + 61 * q, letters));
  queries.push_back("");  // an empty query scores 0 against every subject
  // Small enough for compute-sanitizer racecheck; lengths reach the tiled bins.
  std::vector<std::string> subjects;
  for (int s = 0; s < 80; ++s) subjects.push_back(make_subject(rng, 5 + (s * 53) % 1300, letters, queries[s % 4]));
  const PackedSubjects packed(subjects, scoring.matrix().alphabet().pad_code());
  GpuScorer scorer(0, scoring);
  scorer.set_table_copies_min_waves(0);  // every bin that can reads the table with copies
  scorer.set_subjects(packed.batch());
  std::vector<std::vector<long long>> expected(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const auto& subject : subjects) expected[q].push_back(reference_score(queries[q], subject, scoring));

  const auto check = [&](const std::vector<int>& thresholds) {
    std::vector<ScoreHit> hits;
    scorer.score_above(queries, thresholds, hits);
    std::vector<ScoreHit> want;
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::size_t s = 0; s < subjects.size(); ++s)
        if (expected[q][s] >= thresholds[q])
          want.push_back(ScoreHit{static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(s),
                                  static_cast<std::int32_t>(expected[q][s])});
    REQUIRE(hits.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      INFO("hit " << k);
      CHECK(hits[k].query == want[k].query);
      CHECK(hits[k].subject == want[k].subject);
      CHECK(hits[k].score == want[k].score);
    }
    return want.size();
  };
  // Thresholds that keep some of each query's subjects: the median of its reference scores.
  std::vector<int> medians;
  for (const auto& row : expected) {
    std::vector<long long> sorted = row;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    medians.push_back(static_cast<int>(sorted[sorted.size() / 2]) + 1);
  }
  const std::size_t some = check(medians);
  CHECK(some > 0);
  CHECK(some < queries.size() * subjects.size());
  CHECK(check(std::vector<int>(queries.size(), 1 << 30)) == 0);
  CHECK(check(std::vector<int>(queries.size(), 0)) == queries.size() * subjects.size());
  scorer.set_hit_capacity(10);  // every later call overflows the device list and falls back
  CHECK(check(medians) == some);
  CHECK(check(std::vector<int>(queries.size(), 0)) == queries.size() * subjects.size());
  std::vector<ScoreHit> hits;
  CHECK_THROWS_AS(scorer.score_above(queries, {1, 2}, hits), std::invalid_argument);

  // Query by query (the search's path): each query once, in the order given (the empty one at once),
  // its hits sorted by subject and equal to the all-at-once call's; a capacity that only some queries
  // overflow.
  std::vector<std::size_t> passing(queries.size(), 0);
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const long long score : expected[q]) passing[q] += score >= medians[q] ? 1 : 0;
  const std::size_t most = *std::max_element(passing.begin(), passing.end());
  const std::size_t fewest = *std::min_element(passing.begin(), passing.begin() + 4);
  CHECK(fewest < most);  // else no capacity splits them
  scorer.set_hit_capacity(most - 1);
  std::vector<ScoreHit> at_once;
  scorer.score_above(queries, medians, at_once);
  std::vector<std::size_t> calls;
  std::vector<ScoreHit> streamed;
  scorer.score_above(queries, medians, [&](std::size_t q, const std::vector<ScoreHit>& of_query) {
    calls.push_back(q);
    for (std::size_t k = 0; k < of_query.size(); ++k) {
      CHECK(of_query[k].query == q);
      if (k > 0) CHECK(of_query[k - 1].subject < of_query[k].subject);
    }
    streamed.insert(streamed.end(), of_query.begin(), of_query.end());
  });
  CHECK(calls == std::vector<std::size_t>{0, 1, 4, 2, 3});  // two queries in flight
  std::sort(streamed.begin(), streamed.end(), [](const ScoreHit& a, const ScoreHit& b) {
    return a.query != b.query ? a.query < b.query : a.subject < b.subject;
  });
  REQUIRE(streamed.size() == at_once.size());
  for (std::size_t k = 0; k < at_once.size(); ++k) {
    CHECK(streamed[k].query == at_once[k].query);
    CHECK(streamed[k].subject == at_once[k].subject);
    CHECK(streamed[k].score == at_once[k].score);
  }
  CHECK(streamed.size() == some);
}
