// search/locate_split.hpp: which of a search's hits the CPU locates while the GPU locates the others.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "search/locate_split.hpp"
#include "tests/catch.hpp"

using namespace warpsearch;

namespace {

// The H100 figures of search/gpu_backend.cpp with an AVX-512 core.
LocateRates h100_rates() {
  LocateRates rates;
  rates.core = 5e9;
  rates.warp = 1e9;
  rates.device = 5e11;
  rates.device_overhead_seconds = 1e-3;
  return rates;
}

// The later finish of the two sides when the CPU takes the first k pairs, as the header defines it.
double finish_seconds(const std::vector<double>& cells, std::size_t k, unsigned threads, const LocateRates& r) {
  double cpu_total = 0, gpu_total = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) (i < k ? cpu_total : gpu_total) += cells[i];
  const double cpu = k == 0 ? 0.0 : std::max(cells[0], cpu_total / threads) / r.core;
  const double gpu =
      k == cells.size() ? 0.0 : std::max(cells[k] / r.warp, gpu_total / r.device) + r.device_overhead_seconds;
  return std::max(cpu, gpu);
}

// With the long-pair kernel's figures of search/gpu_backend.cpp (warp_slots: the device's warps).
LocateRates h100_long_rates(double warp_slots) {
  LocateRates rates = h100_rates();
  rates.long_stripe_rows = 256;
  rates.long_step_seconds = 0.4e-6;
  rates.long_lag_steps = 100;
  rates.long_overhead_seconds = 1e-3;
  rates.long_warp_slots = warp_slots;
  return rates;
}

// The estimated finish when the long-pair kernel takes the first `taken` candidates (descending cells)
// and the CPU/GPU split the rest with the others, as the header defines it: every pair re-sorted.
double long_kernel_finish(const std::vector<double>& candidates, const std::vector<LongPairCost>& costs,
                          const std::vector<double>& others, std::size_t taken, unsigned threads,
                          const LocateRates& rates) {
  double longest = 0, warp_seconds = 0;
  for (std::size_t i = 0; i < taken; ++i) {
    longest = std::max(longest, costs[i].seconds);
    warp_seconds += costs[i].warp_seconds;
  }
  std::vector<double> rest(candidates.begin() + static_cast<std::ptrdiff_t>(taken), candidates.end());
  rest.insert(rest.end(), others.begin(), others.end());
  std::sort(rest.begin(), rest.end(), std::greater<>());
  return std::max({longest, warp_seconds / rates.long_warp_slots, locate_split(rest, threads, rates).seconds});
}

}  // namespace

TEST_CASE("a search's longest hit goes to the CPU, the many short ones stay on the GPU", "[locate]") {
  // The 20 cudasw queries' top hits: one 5,478 x 22,152 pair, a few of ~25 M cells, many small ones.
  std::vector<double> cells{5478.0 * 22152, 25.6e6, 25.6e6, 23.6e6, 23.3e6};
  for (int i = 0; i < 195; ++i) cells.push_back(1e5 + 1e4 * i);
  std::sort(cells.begin(), cells.end(), std::greater<>());
  const std::size_t k = pairs_for_cpu(cells, 16, h100_rates());
  CHECK(k >= 1);            // the 121 M-cell pair: 0.12 s on its warp, 24 ms on a core
  CHECK(k < cells.size());  // the GPU keeps the short ones
  CHECK(finish_seconds(cells, k, 16, h100_rates()) < finish_seconds(cells, 0, 16, h100_rates()) / 3);
}

TEST_CASE("many short pairs stay mostly on the GPU; without CPU threads nothing moves", "[locate]") {
  std::vector<double> cells(100000, 300.0 * 300.0);
  CHECK(pairs_for_cpu(cells, 2, h100_rates()) < cells.size() / 40);  // 2 cores: about 2% of the speed
  CHECK(pairs_for_cpu(cells, 16, h100_rates()) < cells.size() / 4);
  CHECK(pairs_for_cpu(cells, 0, h100_rates()) == 0);
  LocateRates no_cpu = h100_rates();
  no_cpu.core = 0;
  CHECK(pairs_for_cpu({1e9, 1e8}, 16, no_cpu) == 0);
  CHECK(pairs_for_cpu({}, 16, h100_rates()) == 0);
}

TEST_CASE("the split minimises the estimated finish over every choice", "[locate]") {
  std::mt19937_64 random(20261122);
  std::uniform_real_distribution<double> log_cells(3.0, 8.5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> cells(1 + random() % 60);
    for (auto& c : cells) c = std::pow(10.0, log_cells(random));
    std::sort(cells.begin(), cells.end(), std::greater<>());
    const unsigned threads = 1 + static_cast<unsigned>(random() % 32);
    const std::size_t k = pairs_for_cpu(cells, threads, h100_rates());
    REQUIRE(k <= cells.size());
    const double chosen = finish_seconds(cells, k, threads, h100_rates());
    for (std::size_t other = 0; other <= cells.size(); ++other) {
      INFO("trial " << trial << ", k " << k << ", other " << other);
      CHECK(chosen <= finish_seconds(cells, other, threads, h100_rates()) * (1 + 1e-12));
    }
  }
}

TEST_CASE("a pair that fills the GPU by itself goes to the long-pair kernel, the others stay", "[locate]") {
  LocateRates rates = h100_long_rates(4000);
  // A 31,921-residue query's self-hit and its next largest hits, with 700 small ones.
  const std::vector<double> candidates{31921.0 * 31921, 31921.0 * 9000, 31921.0 * 2500};
  std::vector<LongPairCost> costs;
  for (const double cells : candidates) costs.push_back(long_pair_cost(31921, cells / 31921, rates));
  std::vector<double> others;
  for (int i = 0; i < 700; ++i) others.push_back(31921.0 * (100 + i));
  std::sort(others.begin(), others.end(), std::greater<>());
  // The self-hit: 125 stripes of 256 rows, about 36 ms on the kernel, 0.2 s on one core. The shorter
  // sequence gives the rows, whichever it is.
  CHECK(long_pair_cost(31921, 31921, rates).seconds == Approx(2 * (31921 + 100 * 125) * 0.4e-6 + 1e-3));
  CHECK(long_pair_cost(31921, 31921, rates).warp_seconds == Approx(125 * long_pair_cost(31921, 31921, rates).seconds));
  CHECK(long_pair_cost(31921, 2500, rates).seconds == long_pair_cost(2500, 31921, rates).seconds);
  const std::size_t k = pairs_for_long_kernel(candidates, costs, others, 16, rates);
  CHECK(k >= 1);
  // Each choice's estimated finish, as the header defines it: k is the earliest.
  const auto finish = [&](std::size_t taken) {
    return long_kernel_finish(candidates, costs, others, taken, 16, rates);
  };
  for (std::size_t other = 0; other <= candidates.size(); ++other) CHECK(finish(k) <= finish(other));
  // A kernel slower than the CPU gets nothing; no candidates, nothing.
  rates.long_step_seconds = 1e-3;
  costs.clear();
  for (const double cells : candidates) costs.push_back(long_pair_cost(31921, cells / 31921, rates));
  CHECK(pairs_for_long_kernel(candidates, costs, others, 16, rates) == 0);
  CHECK(pairs_for_long_kernel({}, {}, others, 16, rates) == 0);
}

TEST_CASE("the long-pair kernel's share: the bisection finds what trying every count finds", "[locate]") {
  LocateRates rates = h100_long_rates(4224);
  std::mt19937_64 random(20261127);
  std::uniform_real_distribution<double> log_length(2.0, 4.7);
  for (int trial = 0; trial < 300; ++trial) {
    // Candidates and others of random shapes; every third trial of equal shapes (ties).
    const auto pair_cells = [&](std::vector<double>& cells, std::vector<LongPairCost>* costs, std::size_t count) {
      for (std::size_t i = 0; i < count; ++i) {
        const double query = trial % 3 == 0 ? 31921 : std::round(std::pow(10.0, log_length(random)));
        const double subject = trial % 3 == 0 ? 2000 : std::round(std::pow(10.0, log_length(random)));
        cells.push_back(query * subject);
        if (costs) costs->push_back(long_pair_cost(query, subject, rates));
      }
    };
    std::vector<double> candidates, others;
    std::vector<LongPairCost> costs;
    pair_cells(candidates, &costs, random() % 80);
    pair_cells(others, nullptr, random() % 300);
    // Candidates in descending cells, their costs with them.
    std::vector<std::size_t> order(candidates.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return candidates[a] > candidates[b]; });
    std::vector<double> sorted_cells;
    std::vector<LongPairCost> sorted_costs;
    for (const std::size_t i : order) {
      sorted_cells.push_back(candidates[i]);
      sorted_costs.push_back(costs[i]);
    }
    std::sort(others.begin(), others.end(), std::greater<>());
    const unsigned threads = static_cast<unsigned>(random() % 33);
    // Every count tried, the rest sorted each time: the definition.
    const auto finish = [&](std::size_t taken) {
      return long_kernel_finish(sorted_cells, sorted_costs, others, taken, threads, rates);
    };
    std::size_t best = 0;
    for (std::size_t k = 1; k <= sorted_cells.size(); ++k)
      if (finish(k) < finish(best)) best = k;
    const std::size_t k = pairs_for_long_kernel(sorted_cells, sorted_costs, others, threads, rates);
    INFO("trial " << trial << ": " << sorted_cells.size() << " candidates, " << others.size() << " others, " << threads
                  << " threads");
    REQUIRE(k <= sorted_cells.size());
    CHECK(finish(k) <= finish(best) * (1 + 1e-12));
    // The smallest of the best: no smaller count finishes as early.
    for (std::size_t smaller = 0; smaller < k; ++smaller) CHECK(finish(smaller) > finish(k) * (1 - 1e-12));
  }
}
