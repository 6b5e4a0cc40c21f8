// search/long_query_scan.hpp: whether a long query's scan against long subjects takes the long-pair
// kernel instead of the scan's segments.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "search/long_query_scan.hpp"
#include "tests/catch.hpp"

using namespace warpsearch;

namespace {

// The figures of search/gpu_rates.hpp for one H100.
LongQueryScanRates h100_rates() {
  LongQueryScanRates rates;
  rates.team_cells = 7e9;
  rates.teams = 264;
  rates.min_owned = 4096;
  rates.pairs.long_stripe_rows = 256;
  rates.pairs.long_step_seconds = 0.15e-6;
  rates.pairs.long_lag_steps = 100;
  rates.pairs.long_overhead_seconds = 1e-3;
  rates.pairs.long_warp_slots = 32 * 132;
  return rates;
}

// The two estimates as the header states them, written out apart from it: whether the scan's segments
// fill the device (then it stays), and the seconds of the scan and of the pairs.
struct Estimates {
  bool fills = false;
  double scan = 0, pairs = 0;
};
Estimates estimates(double m, double reach, const std::vector<std::uint64_t>& subjects, const LongQueryScanRates& r) {
  const double owned = std::max(static_cast<double>(r.min_owned), std::floor(reach / 2));
  double segments = 0, widest = 0, sweep = 0, warps = 0;
  for (const std::uint64_t length : subjects) {
    const double n = static_cast<double>(length);
    segments += std::ceil(n / owned);
    widest = std::max(widest, std::min(n, owned + reach));
    const double stripes = std::ceil(std::min(m, n) / r.pairs.long_stripe_rows);
    const double one_pass = (std::max(m, n) + r.pairs.long_lag_steps * stripes) * r.pairs.long_step_seconds +
                            r.pairs.long_overhead_seconds / 2;
    sweep = std::max(sweep, one_pass);
    warps += one_pass * stripes;
  }
  return {segments >= static_cast<double>(r.teams), widest * m / r.team_cells,
          std::max(sweep, warps / r.pairs.long_warp_slots)};
}

}  // namespace

TEST_CASE("long query scan: a query as long as its subjects takes the long-pair kernel", "[long_query_scan]") {
  const LongQueryScanRates rates = h100_rates();
  // A 180 kb DNA query (reach about 360 k) against 1.4 and 0.84 Mb: 13 segments of 180 k owned, a team's
  // sweep of 540 k columns (about 14 s) against the pairs' sweep of 1.4 M rows.
  const std::vector<std::uint64_t> two{1'400'000, 840'000};
  const Estimates e = estimates(180'000, 360'000, two, rates);
  CHECK_FALSE(e.fills);
  CHECK(e.scan > 13);
  CHECK(e.pairs < 2);
  CHECK(pair_scan_pays(180'000, 360'000, two, rates));
  // A 10 kb query against 20 chromosomes of 5 Mb: thousands of segments fill the device.
  CHECK_FALSE(pair_scan_pays(10'000, 20'000, std::vector<std::uint64_t>(20, 5'000'000), rates));
  // Against 300 subjects of 100 kb: 300 segments fill the device.
  CHECK_FALSE(pair_scan_pays(180'000, 360'000, std::vector<std::uint64_t>(300, 100'000), rates));
  // Nothing reaches the threshold, or no subject.
  CHECK_FALSE(pair_scan_pays(180'000, 0, two, rates));
  CHECK_FALSE(pair_scan_pays(180'000, 360'000, {}, rates));
}

TEST_CASE("long query scan: the choice is the faster estimate", "[long_query_scan]") {
  const LongQueryScanRates rates = h100_rates();
  std::mt19937_64 random(19);
  int paired = 0, segmented = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const double m = std::exp(std::uniform_real_distribution<double>(std::log(1e3), std::log(1e6))(random));
    const std::uint64_t reach = static_cast<std::uint64_t>(m * std::uniform_real_distribution<double>(1, 6)(random));
    std::vector<std::uint64_t> subjects(std::uniform_int_distribution<int>(1, 40)(random));
    for (std::uint64_t& n : subjects)
      n = static_cast<std::uint64_t>(
          std::exp(std::uniform_real_distribution<double>(std::log(65536.0), std::log(5e7))(random)));
    const Estimates e = estimates(std::floor(m), static_cast<double>(reach), subjects, rates);
    const bool pays = pair_scan_pays(static_cast<std::size_t>(m), reach, subjects, rates);
    INFO("trial " << trial << ": query " << m << ", reach " << reach << ", segments fill the device " << e.fills
                  << ", scan " << e.scan << " s, pairs " << e.pairs << " s");
    // Where the two estimates are within rounding of each other either answer is right.
    if (e.fills)
      CHECK_FALSE(pays);
    else if (std::abs(e.scan - e.pairs) > 1e-9 * e.pairs)
      CHECK(pays == (e.pairs < e.scan));
    (pays ? paired : segmented) += 1;
  }
  CHECK(paired > 20);  // both answers occur
  CHECK(segmented > 20);
}
