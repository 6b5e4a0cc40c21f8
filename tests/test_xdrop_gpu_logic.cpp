// The GPU X-drop engine without a GPU: the kernel's per-warp functions (kernels/gpu/xdrop_lanes.hpp) run
// for 32 emulated lanes exactly as xdrop_kernel.cuh runs them (chunks of 32 rows, sentinels of lanes 0 and
// 1, the warp reduction of xdrop_warp_summary, the rings of the scratch layout, left with garbage from
// earlier jobs and never cleared), behind the host plan of the real engine (kernels/gpu/xdrop_plan.hpp:
// seeds, residue layout, reversed left extensions, longest-first order, shared-memory pass, reruns in
// global rings, the CPU fallback, batches). Every span is compared with XdropAligner and, for the
// shorter pairs, with reference::xdrop_reference; the computed cells must equal the CPU engine's.
// Runs in CI without a GPU; tests/gpu_test_xdrop.cu runs the same comparisons on the device.
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gpu/gpu_xdrop.hpp"
#include "kernels/gpu/xdrop_lanes.hpp"
#include "kernels/gpu/xdrop_plan.hpp"
#include "kernels/reference/banded_xdrop.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "tests/catch.hpp"
#include "tests/random_sequences.hpp"
#include "tests/xdrop_cases.hpp"

using namespace warpsearch;
using namespace warpsearch::gpu::detail;
using warpsearch::gpu::XdropTask;
using namespace warpsearch::test::xdrop_cases;

namespace {

// xdrop_warp_summary (kernels/gpu/xdrop_kernel.cuh), lane by lane: the largest best, the smallest row
// among the lanes holding it, the smallest first live row, the largest last live row.
XdropDiagonalSummary emulate_warp_summary(const std::array<XdropLaneTrack, kXdropLanes>& tracks) {
  XdropDiagonalSummary summary;
  for (const auto& track : tracks) summary.best = std::max(summary.best, track.best);
  for (const auto& track : tracks)
    summary.best_row = std::min(summary.best_row, track.best == summary.best ? track.best_row : kXdropNone);
  for (const auto& track : tracks) {
    summary.live_low = std::min(summary.live_low, track.first);
    summary.live_high = std::max(summary.live_high, track.last);
  }
  return summary;
}

// The kernel's warps on the CPU. Each "warp" keeps its scratch across jobs, filled with garbage at the
// start of every run (device memory is not cleared either).
class EmulatedRunner final : public XdropJobRunner {
 public:
  EmulatedRunner(const ScoringScheme& scoring, XDrop x, std::vector<std::uint32_t> tiers,
                 std::uint32_t max_global_rows = 1u << 31)
      : scoring_(xdrop_scoring(scoring, x)),
        table_(xdrop_table(scoring)),
        tiers_(std::move(tiers)),
        max_global_rows_(max_global_rows) {}

  std::uint8_t* stage_residues(std::uint64_t count) override {
    residues_.assign(static_cast<std::size_t>(count), std::uint8_t{0});
    return residues_.data();
  }

  std::vector<std::uint32_t> shared_tiers() const override { return tiers_; }

  bool run(const std::vector<XdropJob>& jobs, bool shared, std::uint32_t rows,
           std::vector<XdropJobResult>& results) override {
    if (!shared && rows > max_global_rows_) {
      ++refused_runs;
      return false;
    }
    REQUIRE((rows & (rows - 1)) == 0);
    if (shared) REQUIRE(std::find(tiers_.begin(), tiers_.end(), rows) != tiers_.end());
    ++(shared ? shared_runs : global_runs);
    constexpr int kWarps = 3;
    std::vector<std::vector<std::int32_t>> scratch(kWarps, std::vector<std::int32_t>(std::size_t{kXdropArrays} * rows));
    std::uniform_int_distribution<std::int32_t> garbage(-1000, 1000);
    for (auto& words : scratch)
      for (auto& word : words) word = garbage(rng_);
    results.resize(jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k)
      results[k] = emulate_job(jobs[k], XdropScratch{scratch[k % kWarps].data(), rows});
    return true;
  }

  std::size_t shared_runs = 0, global_runs = 0, refused_runs = 0;
  std::uint32_t widest_band_done = 0;  // the widest band of the jobs that finished in a run

 private:
  // xdrop_run_job of the kernel. The lanes' cells of an anti-diagonal are computed in a different order
  // every anti-diagonal (the lanes rotated, forwards or backwards): the results must not depend on it.
  XdropJobResult emulate_job(const XdropJob& job, const XdropScratch& scratch) {
    XdropWarpState state = xdrop_start(job.query_length, job.target_length);
    xdrop_start_scratch(scratch);  // lane 0
    bool overflow = false;
    std::uint32_t widest = 1;
    while (!state.done) {
      const XdropBand band = xdrop_band(state, scoring_);
      if (!xdrop_band_fits(band, scratch.rows)) {
        overflow = true;
        break;
      }
      widest = std::max(widest, band.count);
      const XdropRings rings = xdrop_rings(scratch, band);
      const XdropSequences sequences = xdrop_sequences(job, residues_.data());
      std::array<XdropLaneTrack, kXdropLanes> tracks{};
      const int rotation = static_cast<int>(state.d % kXdropLanes);
      const bool backwards = state.d % 2 == 1;
      for (int step = 0; step < kXdropLanes; ++step) {
        const int lane = (rotation + (backwards ? kXdropLanes - step : step)) % kXdropLanes;
        for (std::uint32_t k = static_cast<std::uint32_t>(lane); k < band.count; k += kXdropLanes) {
          const std::uint32_t i = band.low + k;
          const std::int32_t substitution = xdrop_substitution(sequences, table_.data(), state.d, i);
          tracks[static_cast<std::size_t>(lane)].add(i, xdrop_cell(rings, band.threshold, i, substitution, scoring_));
        }
      }
      for (int lane = 0; lane < kXdropLanes; ++lane) xdrop_sentinels(band, rings, lane);
      xdrop_finish(state, band, emulate_warp_summary(tracks));
    }
    if (!overflow) widest_band_done = std::max(widest_band_done, widest);
    return xdrop_result(state, overflow);
  }

  XdropScoring scoring_;
  std::array<std::int8_t, kXdropTableBytes> table_;
  std::vector<std::uint32_t> tiers_;
  std::uint32_t max_global_rows_;
  std::vector<std::uint8_t> residues_;
  std::mt19937_64 rng_{4242};
};

struct RunOptions {
  std::vector<std::uint32_t> tiers = {128, 512};  // the device's (kernels/gpu/xdrop_kernel.cuh)
  std::uint32_t max_global_rows = 1u << 31;
  std::uint64_t batch_residues = std::uint64_t{1} << 28;
  bool reference = true;  // also compare with reference::xdrop_reference (O(m (m + n)) per extension)
};

// The emulated engine against the CPU engine (and the reference), every field; cells equal.
XdropRunStats check_cases(const std::vector<Case>& cases, const ScoringScheme& scoring, XDrop x,
                          const RunOptions& options = {}, EmulatedRunner* runner_out = nullptr) {
  EmulatedRunner local_runner(scoring, x, options.tiers, options.max_global_rows);
  EmulatedRunner& runner = runner_out ? *runner_out : local_runner;
  XdropAligner host(scoring, x);
  std::vector<XdropTask> tasks;
  for (const auto& c : cases) tasks.push_back({c.query, c.target, c.seed});
  std::vector<XdropSpan> spans;
  XdropRunStats stats;
  align_xdrop_tasks(tasks, scoring, runner, host, options.batch_residues, spans, stats);
  REQUIRE(spans.size() == cases.size());
  XdropAligner cpu(scoring, x);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const XdropSpan expected = cpu.align(c.query, c.target, c.seed, false).span;
    const XdropSpan& got = spans[k];
    INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " X " << x.value
                                 << " case " << k << ": " << c.query.size() << " x " << c.target.size() << ", seed "
                                 << c.seed.query_begin << "," << c.seed.target_begin << "+" << c.seed.length
                                 << ", shared tiers " << options.tiers.front() << ".." << options.tiers.back());
    REQUIRE(got.score == expected.score);
    REQUIRE(got.seed_score == expected.seed_score);
    REQUIRE(got.left.score == expected.left.score);
    REQUIRE(got.left.query_length == expected.left.query_length);
    REQUIRE(got.left.target_length == expected.left.target_length);
    REQUIRE(got.right.score == expected.right.score);
    REQUIRE(got.right.query_length == expected.right.query_length);
    REQUIRE(got.right.target_length == expected.right.target_length);
    REQUIRE(got.query_begin == expected.query_begin);
    REQUIRE(got.query_end == expected.query_end);
    REQUIRE(got.subject_begin == expected.subject_begin);
    REQUIRE(got.subject_end == expected.subject_end);
    if (options.reference) {
      const XdropSpan reference = reference::xdrop_reference(c.query, c.target, c.seed, scoring, x);
      REQUIRE(got.score == reference.score);
      REQUIRE(got.query_begin == reference.query_begin);
      REQUIRE(got.query_end == reference.query_end);
      REQUIRE(got.subject_begin == reference.subject_begin);
      REQUIRE(got.subject_end == reference.subject_end);
    }
  }
  CHECK(stats.cells == cpu.cells());
  return stats;
}

}  // namespace

TEST_CASE("xdrop gpu logic: the host plan's helpers", "[xdrop][gpu-logic]") {
  XdropJob job;
  job.query_length = 100;
  job.target_length = 7;
  CHECK(xdrop_global_rows(job, 1) == 16);  // 7 + 3 -> 16
  CHECK(xdrop_global_rows(job, 512) == 512);
  job.target_length = 1021;
  CHECK(xdrop_global_rows(job, 1) == 128);
  job.query_length = 5000;
  CHECK(xdrop_global_rows(job, 1) == 1024);  // 1021 + 3 = 1024
  job.target_length = 1022;
  CHECK(xdrop_global_rows(job, 1) == 2048);

  std::mt19937_64 rng(11);
  std::vector<XdropJob> jobs(500);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    jobs[k].query_length = static_cast<std::uint32_t>(rng() % 50);
    jobs[k].target_length = static_cast<std::uint32_t>(rng() % 50);
    jobs[k].slot = static_cast<std::uint32_t>(k);
  }
  order_xdrop_jobs(jobs);
  for (std::size_t k = 1; k < jobs.size(); ++k) {
    const auto shortest = [](const XdropJob& j) { return std::min(j.query_length, j.target_length); };
    REQUIRE(shortest(jobs[k - 1]) >= shortest(jobs[k]));
  }
  const auto table = xdrop_table(protein("BLOSUM62", 11, 1));
  CHECK(table[static_cast<std::size_t>(3 * kMaxCodes + 3)] == protein("BLOSUM62", 11, 1).score(3, 3));
  CHECK_THROWS_AS(xdrop_scoring(dna(1, -1, 0, 1), XDrop{-1}), std::invalid_argument);
}

TEST_CASE("xdrop gpu logic: lane tracks and the warp reduction give the band's first best cell and live rows",
          "[xdrop][gpu-logic]") {
  // Bands of 1..150 rows with few distinct scores (ties between rows of one lane, 32 apart, and of
  // different lanes) and dead cells, scanned as the CPU engine scans them.
  std::mt19937_64 rng(2025);
  for (int round = 0; round < 3000; ++round) {
    const std::uint32_t low = static_cast<std::uint32_t>(rng() % 1000);
    const std::size_t count = 1 + rng() % 150;
    const int distinct = 1 + static_cast<int>(rng() % 4);
    const double dead = static_cast<double>(rng() % 4) / 4.0;
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::vector<std::int32_t> h(count);
    for (auto& value : h)
      value = coin(rng) < dead ? kXdropMinusInfinity
                               : static_cast<std::int32_t>(rng() % static_cast<unsigned>(distinct)) - 1;
    std::array<XdropLaneTrack, kXdropLanes> tracks{};
    for (std::size_t k = 0; k < count; ++k) tracks[k % kXdropLanes].add(low + static_cast<std::uint32_t>(k), h[k]);
    const XdropDiagonalSummary summary = emulate_warp_summary(tracks);
    XdropDiagonalSummary expected;
    for (std::size_t k = 0; k < count; ++k) {
      if (h[k] == kXdropMinusInfinity) continue;
      const auto row = low + static_cast<std::uint32_t>(k);
      if (expected.live_low == kXdropNone) expected.live_low = row;
      expected.live_high = row;
      if (h[k] > expected.best) {
        expected.best = h[k];
        expected.best_row = row;
      }
    }
    INFO("round " << round);
    REQUIRE(summary.live_low == expected.live_low);
    if (expected.live_low == kXdropNone) continue;  // all dead: the other fields are not read
    REQUIRE(summary.best == expected.best);
    REQUIRE(summary.best_row == expected.best_row);
    REQUIRE(summary.live_high == expected.live_high);
  }
}

TEST_CASE("xdrop gpu logic: random and planted pairs, every scheme and X, against the CPU engine and the reference",
          "[xdrop][gpu-logic]") {
  std::mt19937_64 rng(2027);
  for (const auto& scoring : schemes()) {
    const std::vector<Case> cases = make_cases(rng, letters_of(scoring), 60, 160);
    for (const int x : {0, 1, 5, 20, 50, 100, XDrop::kInfinite}) check_cases(cases, scoring, XDrop{x});
  }
}

TEST_CASE("xdrop gpu logic: low complexity (ties everywhere) and identical pairs", "[xdrop][gpu-logic]") {
  std::mt19937_64 rng(2029);
  std::vector<Case> cases;
  const std::string zeros(150, '\0'), two = test::random_codes(rng, 120, 2);
  cases.push_back({zeros, zeros.substr(0, 97), Seed{40, 30, 5}});
  cases.push_back({two, two + two, Seed{0, 0, 0}});
  cases.push_back({two, two, Seed{60, 60, 10}});
  cases.push_back({zeros.substr(0, 33), zeros.substr(0, 31), Seed{0, 0, 0}});
  for (const int x : {0, 2, 7, 30, XDrop::kInfinite}) {
    check_cases(cases, dna(1, -1, 0, 1), XDrop{x});
    check_cases(cases, dna(2, -3, 5, 2), XDrop{x});
  }
}

TEST_CASE("xdrop gpu logic: bands wider than the shared rings run again in larger rings, global ones, or on the CPU",
          "[xdrop][gpu-logic]") {
  std::mt19937_64 rng(2031);
  const ScoringScheme scoring = dna(1, -1, 0, 1);
  const std::vector<Case> cases = make_cases(rng, 4, 40, 200);
  for (const std::vector<std::uint32_t>& tiers :
       {std::vector<std::uint32_t>{4}, {8}, {8, 16}, {16, 64}, {32}, {64}, {4, 8, 16, 32}}) {
    for (const int x : {3, 20, XDrop::kInfinite}) {
      RunOptions options;
      options.tiers = tiers;
      EmulatedRunner runner(scoring, XDrop{x}, tiers);
      const XdropRunStats stats = check_cases(cases, scoring, XDrop{x}, options, &runner);
      if (x == XDrop::kInfinite) {
        CHECK(stats.rerun_jobs > 0);
        CHECK(runner.global_runs > 0);
        CHECK(runner.shared_runs == tiers.size());
      }
      CHECK(stats.host_jobs == 0);
    }
  }
  // No room for the global rings beyond 32 rows: those jobs run on the CPU.
  RunOptions options;
  options.tiers = {8};
  options.max_global_rows = 32;
  EmulatedRunner runner(scoring, XDrop::infinite(), {8}, 32);
  const XdropRunStats stats = check_cases(cases, scoring, XDrop::infinite(), options, &runner);
  CHECK(stats.host_jobs > 0);
  CHECK(runner.refused_runs > 0);
  CHECK(stats.rerun_jobs > stats.host_jobs);  // the narrower ones fit 16- and 32-row rings
}

TEST_CASE("xdrop gpu logic: a band exactly as wide as the ring allows", "[xdrop][gpu-logic]") {
  // With X infinite the band of anti-diagonal d is every row 0..min(m, d): a 40 x 40 extension reaches
  // bands of 41 rows, which need 43 words: not in 32, in 64.
  const ScoringScheme scoring = dna(1, -1, 0, 1);
  std::mt19937_64 rng(2033);
  const std::vector<Case> cases = {{test::random_codes(rng, 40, 4), test::random_codes(rng, 40, 4), Seed{0, 0, 0}},
                                   {test::random_codes(rng, 29, 4), test::random_codes(rng, 60, 4), Seed{0, 0, 0}},
                                   {test::random_codes(rng, 30, 4), test::random_codes(rng, 60, 4), Seed{0, 0, 0}}};
  RunOptions options;
  options.tiers = {32};
  EmulatedRunner runner(scoring, XDrop::infinite(), {32});
  const XdropRunStats stats = check_cases(cases, scoring, XDrop::infinite(), options, &runner);
  // 29 x 60: bands of at most 30 rows (+ 2 sentinels = 32) fit; 30 x 60 and 40 x 40 do not.
  CHECK(stats.device_jobs == 3);
  CHECK(stats.rerun_jobs == 2);
  CHECK(runner.widest_band_done == 41);
}

TEST_CASE("xdrop gpu logic: empty sequences, seeds at the ends, batches", "[xdrop][gpu-logic]") {
  const ScoringScheme scoring = dna(2, -3, 5, 2);
  std::mt19937_64 rng(2035);
  const std::string query = test::random_codes(rng, 30, 4);
  const std::string target = query.substr(3, 20) + test::random_codes(rng, 5, 4);
  std::vector<Case> cases = {{"", "", Seed{0, 0, 0}},          {query, "", Seed{0, 0, 0}},
                             {"", target, Seed{0, 0, 0}},      {query, "", Seed{30, 0, 0}},
                             {query, target, Seed{0, 0, 0}},   {query, target, Seed{30, 25, 0}},
                             {query, target, Seed{3, 0, 20}},  {query, target, Seed{0, 0, 25}},
                             {query, target, Seed{29, 24, 1}}, {query, target, Seed{10, 25, 0}},
                             {query, target, Seed{30, 7, 0}},  {query.substr(0, 1), query.substr(0, 1), Seed{0, 0, 1}}};
  const std::vector<Case> more = make_cases(rng, 4, 30, 60);
  cases.insert(cases.end(), more.begin(), more.end());
  for (const int x : {0, 10, XDrop::kInfinite}) {
    check_cases(cases, scoring, XDrop{x});
    RunOptions tiny_batches;
    tiny_batches.batch_residues = 40;  // many batches, and tasks larger than a batch
    check_cases(cases, scoring, XDrop{x}, tiny_batches);
  }
}

TEST_CASE("xdrop gpu logic: reads of 5..10 kb at 15% divergence, and 50 kb pairs", "[xdrop][gpu-logic]") {
  std::mt19937_64 rng(2037);
  std::vector<Case> reads;
  for (int k = 0; k < 4; ++k) reads.push_back(read_pair(rng, 5000 + rng() % 5001, 0.15));
  RunOptions options;
  options.reference = false;
  for (const auto& scoring : {dna(1, -1, 0, 1), dna(2, -3, 5, 2)})
    for (const int x : {50, 100}) check_cases(reads, scoring, XDrop{x}, options);

  std::vector<Case> long_pairs;
  long_pairs.push_back(read_pair(rng, 50'000, 0.15));
  const std::string identical = test::random_codes(rng, 50'000, 4);
  long_pairs.push_back({identical, identical, Seed{25'000, 25'000, 17}});
  long_pairs.push_back({identical, identical.substr(1000), Seed{0, 0, 0}});  // unrelated offsets: dies at once
  check_cases(long_pairs, dna(1, -1, 0, 1), XDrop{50}, options);
  // X = 300: bands beyond the first tier's 126 rows, rerun in the second tier, or in global rings.
  const std::vector<Case> wide = {long_pairs[0]};
  for (const std::vector<std::uint32_t>& tiers : {std::vector<std::uint32_t>{128, 512}, {128}}) {
    EmulatedRunner runner(dna(1, -1, 0, 1), XDrop{300}, tiers);
    options.tiers = tiers;
    const XdropRunStats stats = check_cases(wide, dna(1, -1, 0, 1), XDrop{300}, options, &runner);
    CHECK(stats.rerun_jobs == 2);
    CHECK(runner.global_runs == (tiers.size() == 1 ? 1 : 0));
  }
}

TEST_CASE("xdrop gpu logic: extensions too long for 32-bit scores run on the CPU", "[xdrop][gpu-logic]") {
  // open + extend = 127: 32-bit scores up to m + n + 2 = 2^27 / 127, about 1.06 M residues.
  const ScoringScheme scoring = dna(2, -3, 100, 27);
  std::mt19937_64 rng(2039);
  const std::string query = test::random_codes(rng, 600'000, 4);
  std::string target = test::random_codes(rng, 600'000, 4);
  std::copy(query.begin(), query.begin() + 200, target.begin());  // 200 matches, then unrelated
  std::vector<Case> cases = {{query, target, Seed{0, 0, 0}},
                             {query.substr(0, 5000), target.substr(0, 5000), Seed{0, 0, 0}}};
  RunOptions options;
  options.reference = false;
  const XdropRunStats stats = check_cases(cases, scoring, XDrop{20}, options);
  CHECK(stats.host_jobs == 1);
  CHECK(stats.device_jobs == 1);
}

TEST_CASE("xdrop gpu logic: bad seeds and codes name the task", "[xdrop][gpu-logic]") {
  const ScoringScheme scoring = dna(1, -1, 0, 1);
  EmulatedRunner runner(scoring, XDrop{10}, {128, 512});
  XdropAligner host(scoring, XDrop{10});
  std::vector<XdropSpan> spans;
  XdropRunStats stats;
  const std::string a(20, '\1'), b(15, '\2');
  const auto message = [&](const std::vector<XdropTask>& tasks) {
    try {
      align_xdrop_tasks(tasks, scoring, runner, host, 1 << 20, spans, stats);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THROWS_AS(
      align_xdrop_tasks({{a, b, Seed{0, 0, 0}}, {a, b, Seed{10, 14, 2}}}, scoring, runner, host, 1 << 20, spans, stats),
      std::out_of_range);
  CHECK(message({{a, b, Seed{0, 0, 0}}, {a, b, Seed{10, 14, 2}}}).rfind("pair 1: ", 0) == 0);
  CHECK_THROWS_AS(align_xdrop_tasks({{a, b, Seed{5, 5, 0}}}, scoring, runner, host, 1 << 20, spans, stats),
                  std::invalid_argument);
  std::string bad = a;
  bad[7] = static_cast<char>(kMaxCodes);
  CHECK_THROWS_AS(
      align_xdrop_tasks({{a, b, Seed{0, 0, 0}}, {a, bad, Seed{0, 0, 0}}}, scoring, runner, host, 1 << 20, spans, stats),
      std::invalid_argument);
  const std::string text = message({{a, b, Seed{0, 0, 0}}, {a, bad, Seed{0, 0, 0}}});
  CHECK(text.find("pair 1: target residue 8 has code 32") != std::string::npos);
}

TEST_CASE("xdrop gpu logic: a large batch is staged on several threads", "[xdrop][gpu-logic]") {
  // 48 MB of residues: shares of 16 MB staged (and checked) on their own threads.
  const ScoringScheme scoring = dna(1, -1, 0, 1);
  std::mt19937_64 rng(2041);
  std::vector<Case> cases;
  for (int k = 0; k < 24; ++k) {
    const std::string query = test::random_codes(rng, 1'000'000, 4);
    std::string target = test::random_codes(rng, 1'000'000, 4);
    std::copy(query.begin() + 500'000, query.begin() + 500'300, target.begin() + 400'000);
    cases.push_back({query, target, Seed{500'000, 400'000, 17}});
  }
  RunOptions options;
  options.reference = false;
  check_cases(cases, scoring, XDrop{8}, options);

  std::vector<XdropTask> tasks;
  for (const auto& c : cases) tasks.push_back({c.query, c.target, c.seed});
  std::string bad = cases[20].target;
  bad[999'999] = static_cast<char>(kMaxCodes + 3);
  tasks[20].target = bad;
  EmulatedRunner runner(scoring, XDrop{8}, {128, 512});
  XdropAligner host(scoring, XDrop{8});
  std::vector<XdropSpan> spans;
  XdropRunStats stats;
  try {
    align_xdrop_tasks(tasks, scoring, runner, host, std::uint64_t{1} << 28, spans, stats);
    FAIL("no error for a bad code");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "pair 20: target residue 1000000 has code 35, not a residue code (below 32)");
  }
}
