// GPU X-drop aligner vs the CPU engine (XdropAligner, itself checked against the reference in
// tests/test_align_xdrop.cpp) and, for short pairs, reference::xdrop_reference: every field of every span
// and the count of computed cells, over random and planted pairs of every scheme and X, ties, seeds at the
// ends, empty sequences, bands that outgrow each shared-memory tier (global rings), reads of 5..10 kb at
// 15% divergence, 50 kb pairs, an extension too long for 32-bit scores (the CPU inside the call), and the
// errors. Tests skip (with a warning) where no GPU is usable, so that CI without a GPU stays green; the
// same logic runs without a GPU in tests/test_xdrop_gpu_logic.cpp. "[small]" is the compute-sanitizer
// subset.
#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/gpu_xdrop.hpp"
#include "kernels/reference/banded_xdrop.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "tests/catch.hpp"
#include "tests/gpu_test_support.hpp"
#include "tests/random_sequences.hpp"
#include "tests/xdrop_cases.hpp"

using namespace warpsearch;
using namespace warpsearch::test::xdrop_cases;
using warpsearch::gpu::GpuXdropAligner;
using warpsearch::gpu::XdropTask;

namespace {

bool have_gpu() { return warpsearch::test::gpu_usable("GPU X-drop test"); }

// Aligns every case on the GPU in one call and compares each span with the CPU engine's (and the
// reference's when asked), and the cells; returns the call's timings.
GpuXdropAligner::Timings check_cases(const std::vector<Case>& cases, const ScoringScheme& scoring, XDrop x,
                                     bool reference = true) {
  GpuXdropAligner aligner(0, scoring, x);
  std::vector<XdropTask> tasks;
  for (const auto& c : cases) tasks.push_back({c.query, c.target, c.seed});
  std::vector<XdropSpan> spans;
  aligner.align(tasks, spans);
  REQUIRE(spans.size() == cases.size());
  XdropAligner cpu(scoring, x);
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const XdropSpan expected = cpu.align(c.query, c.target, c.seed, false).span;
    const XdropSpan& got = spans[k];
    bool same = got.score == expected.score && got.seed_score == expected.seed_score &&
                got.left.score == expected.left.score && got.left.query_length == expected.left.query_length &&
                got.left.target_length == expected.left.target_length && got.right.score == expected.right.score &&
                got.right.query_length == expected.right.query_length &&
                got.right.target_length == expected.right.target_length && got.query_begin == expected.query_begin &&
                got.query_end == expected.query_end && got.subject_begin == expected.subject_begin &&
                got.subject_end == expected.subject_end;
    if (reference && same) {
      const XdropSpan ref = reference::xdrop_reference(c.query, c.target, c.seed, scoring, x);
      same = ref.score == got.score && ref.query_begin == got.query_begin && ref.query_end == got.query_end &&
             ref.subject_begin == got.subject_begin && ref.subject_end == got.subject_end;
    }
    if (!same && ++mismatches <= 10)
      UNSCOPED_INFO(scoring.matrix().name()
                    << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " X " << x.value << " case " << k
                    << " (" << c.query.size() << " x " << c.target.size() << ", seed " << c.seed.query_begin << ","
                    << c.seed.target_begin << "+" << c.seed.length << "): GPU " << got.score << " q[" << got.query_begin
                    << "," << got.query_end << ") t[" << got.subject_begin << "," << got.subject_end << "), CPU "
                    << expected.score << " q[" << expected.query_begin << "," << expected.query_end << ") t["
                    << expected.subject_begin << "," << expected.subject_end << ")");
  }
  CHECK(mismatches == 0);
  CHECK(aligner.cells() == cpu.cells());
  CHECK(aligner.last_timings().cells == cpu.cells());
  return aligner.last_timings();
}

}  // namespace

TEST_CASE("gpu xdrop: small pairs, empty ones, seeds at the ends, every shared tier and the global rings",
          "[gpu][xdrop][small]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(3001);
  const ScoringScheme scoring = dna(2, -3, 5, 2);
  std::vector<Case> cases = make_cases(rng, 4, 40, 80);
  const std::string query = test::random_codes(rng, 30, 4);
  const std::string target = query.substr(3, 20) + test::random_codes(rng, 5, 4);
  const std::vector<Case> edges = {
      {"", "", Seed{0, 0, 0}},          {query, "", Seed{0, 0, 0}},
      {"", target, Seed{0, 0, 0}},      {query, target, Seed{30, 25, 0}},
      {query, target, Seed{3, 0, 20}},  {query, target, Seed{29, 24, 1}},
      {query, target, Seed{10, 25, 0}}, {query.substr(0, 1), query.substr(0, 1), Seed{0, 0, 1}}};
  cases.insert(cases.end(), edges.begin(), edges.end());
  for (const int x : {0, 20}) check_cases(cases, scoring, XDrop{x});
  // X infinite: the band is the whole anti-diagonal. 100 x 100 fits the first tier (128 rows), 300 x 300
  // the second (512), 600 x 600 only global rings.
  std::vector<Case> wide;
  for (const std::size_t length : {100, 300, 600}) {
    const std::string a = test::random_codes(rng, length, 4);
    wide.push_back({a, test::mutated_codes(rng, a, 4, 0.2, 3), Seed{0, 0, 0}});
  }
  const auto timings = check_cases(wide, dna(1, -1, 0, 1), XDrop::infinite(), false);
  CHECK(timings.device_jobs == 3);
  CHECK(timings.rerun_jobs == 3);  // 300: once; 600: twice
  CHECK(timings.host_jobs == 0);
}

TEST_CASE("gpu xdrop: random and planted pairs, every scheme and X, and ties", "[gpu][xdrop]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(3003);
  for (const auto& scoring : schemes()) {
    const std::vector<Case> cases = make_cases(rng, letters_of(scoring), 150, 200);
    for (const int x : {0, 1, 5, 20, 50, 100, XDrop::kInfinite}) check_cases(cases, scoring, XDrop{x});
  }
  std::vector<Case> ties;
  const std::string zeros(300, '\0'), two = test::random_codes(rng, 250, 2);
  ties.push_back({zeros, zeros.substr(0, 197), Seed{40, 30, 5}});
  ties.push_back({two, two + two, Seed{0, 0, 0}});
  ties.push_back({two, two, Seed{60, 60, 10}});
  for (const int x : {0, 2, 7, 30, XDrop::kInfinite}) {
    check_cases(ties, dna(1, -1, 0, 1), XDrop{x});
    check_cases(ties, dna(2, -3, 5, 2), XDrop{x});
  }
}

TEST_CASE("gpu xdrop: reads of 5..10 kb at 15% divergence, 50 kb pairs, wide bands", "[gpu][xdrop][long]") {
  if (!have_gpu()) return;
  std::mt19937_64 rng(3005);
  std::vector<Case> reads;
  for (int k = 0; k < 300; ++k) reads.push_back(read_pair(rng, 5000 + rng() % 5001, 0.15));
  for (const auto& scoring : {dna(1, -1, 0, 1), dna(2, -3, 5, 2)})
    for (const int x : {50, 100}) {
      const auto timings = check_cases(reads, scoring, XDrop{x}, false);
      CHECK(timings.host_jobs == 0);
    }
  std::vector<Case> long_pairs;
  long_pairs.push_back(read_pair(rng, 50'000, 0.15));
  const std::string identical = test::random_codes(rng, 50'000, 4);
  long_pairs.push_back({identical, identical, Seed{25'000, 25'000, 17}});
  long_pairs.push_back({identical, identical.substr(1000), Seed{0, 0, 0}});
  check_cases(long_pairs, dna(1, -1, 0, 1), XDrop{50}, false);
  check_cases({long_pairs[0]}, dna(1, -1, 0, 1), XDrop{300}, false);  // bands beyond the first tier
  // X infinite on a 3,000 x 20,000 pair: bands of 3,001 rows, global rings.
  const std::string a = test::random_codes(rng, 3000, 4);
  const Case wide{a, test::mutated_codes(rng, a, 4, 0.1, 3) + test::random_codes(rng, 17'000, 4), Seed{0, 0, 0}};
  const auto timings = check_cases({wide}, dna(1, -1, 0, 1), XDrop::infinite(), false);
  CHECK(timings.rerun_jobs == 2);
}

TEST_CASE("gpu xdrop: an extension too long for 32-bit scores runs on the CPU in the same call", "[gpu][xdrop]") {
  if (!have_gpu()) return;
  const ScoringScheme scoring = dna(2, -3, 100, 27);  // open + extend = 127: 32-bit up to ~1.06 M residues
  std::mt19937_64 rng(3007);
  const std::string query = test::random_codes(rng, 600'000, 4);
  std::string target = test::random_codes(rng, 600'000, 4);
  std::copy(query.begin(), query.begin() + 200, target.begin());
  const auto timings =
      check_cases({{query, target, Seed{0, 0, 0}}, {query.substr(0, 5000), target.substr(0, 5000), Seed{0, 0, 0}}},
                  scoring, XDrop{20}, false);
  CHECK(timings.host_jobs == 1);
  CHECK(timings.device_jobs == 1);
}

TEST_CASE("gpu xdrop: empty calls, warm calls, errors", "[gpu][xdrop][small]") {
  if (!have_gpu()) return;
  const ScoringScheme scoring = dna(1, -1, 0, 1);
  GpuXdropAligner aligner(0, scoring, XDrop{10});
  std::vector<XdropSpan> spans(3);
  aligner.align({}, spans);
  CHECK(spans.empty());
  const std::string a(20, '\1'), b(15, '\1');
  for (int call = 0; call < 3; ++call) {  // warm calls reuse the buffers
    aligner.align({{a, b, Seed{0, 0, 0}}, {a, b, Seed{5, 5, 3}}}, spans);
    REQUIRE(spans.size() == 2);
    CHECK(spans[0].score == 15);
    CHECK(spans[1].score == 15);
    CHECK(spans[1].query_begin == 0);
  }
  CHECK_THROWS_AS(aligner.align({{a, b, Seed{0, 0, 0}}, {a, b, Seed{10, 14, 2}}}, spans), std::out_of_range);
  try {
    aligner.align({{a, b, Seed{0, 0, 0}}, {a, b, Seed{10, 14, 2}}}, spans);
  } catch (const std::out_of_range& e) {
    CHECK(std::string(e.what()).rfind("pair 1: ", 0) == 0);
  }
  CHECK_THROWS_AS(aligner.align({{a, b, Seed{5, 5, 0}}}, spans), std::invalid_argument);
  std::string bad = b;
  bad[3] = static_cast<char>(kMaxCodes);
  CHECK_THROWS_AS(aligner.align({{a, bad, Seed{0, 0, 0}}}, spans), std::invalid_argument);
  // Still usable after the errors.
  aligner.align({{a, b, Seed{0, 0, 0}}}, spans);
  CHECK(spans[0].score == 15);
  CHECK_THROWS_AS(GpuXdropAligner(gpu::usable_device_count(), scoring, XDrop{10}), std::invalid_argument);
  CHECK_THROWS_AS(GpuXdropAligner(0, scoring, XDrop{-1}), std::invalid_argument);
}
