// Where a GPU search locates its hits (score, start and end of each kept candidate): on the GPU's pair
// aligner or on the CPU's striped kernels (cpu::pair_span), both at once. The pair aligner runs a pair
// on one warp: thousands of pairs together at high throughput, but a single long pair at one warp's
// speed. A search keeps few hits, and the longest of them decide the time: on the H100, a 5,478-residue
// query against a 22,152-residue subject took 0.1 s on its warp, against about 20 ms on one CPU core.
// So the longest pairs go to the CPU cores and the GPU takes the rest. A pair long enough to fill the
// GPU by itself goes to the long-pair kernel instead (search/gpu_long_pairs.hpp): the 31,921-residue
// self-hit of a titin query takes 24 ms there, about 1.3 s on a CPU core.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

namespace warpsearch {

// Locating speeds in cells (query length x subject length) per second, forward and reverse pass
// together.
struct LocateRates {
  double core = 0;                     // one pair on one CPU core
  double warp = 0;                     // one pair on the GPU (its warp)
  double device = 0;                   // the GPU over many pairs at once
  double device_overhead_seconds = 0;  // a GPU call's fixed cost (launches, copies)
  // The long-pair kernel (kernels/gpu/long_pair.hpp: one pair across the GPU, a warp per stripe of
  // `long_stripe_rows` rows of the shorter sequence, sweeping the longer one; the stripes of all the
  // pairs in one launch, search/gpu_long_pairs.hpp): seconds per column step of a stripe, the steps a
  // stripe runs behind the one above, a call's fixed cost, and the warps the device runs at once at
  // that step's speed.
  double long_stripe_rows = 256;
  double long_step_seconds = 0;
  double long_lag_steps = 0;
  double long_overhead_seconds = 0;
  double long_warp_slots = 1;
};

// The long-pair kernel on one pair: its seconds alone on the device (two passes, end then start, each
// as long as its last stripe's sweep, which starts behind the others) and its warps x seconds.
struct LongPairCost {
  double seconds = 0;
  double warp_seconds = 0;
};

inline LongPairCost long_pair_cost(double query_length, double subject_length, const LocateRates& rates) {
  const double rows = std::min(query_length, subject_length), columns = std::max(query_length, subject_length);
  const double stripes = std::ceil(rows / rates.long_stripe_rows);
  const double seconds =
      2 * (columns + rates.long_lag_steps * stripes) * rates.long_step_seconds + rates.long_overhead_seconds;
  return {seconds, seconds * stripes};
}

// The number k of leading pairs (cells sorted in descending order) the CPU takes, the others going to
// the GPU: the k with the earliest estimated finish of both sides, the smallest on ties.
//   CPU (longest first on `threads` cores): max(its largest pair, its total / threads) / rates.core;
//   GPU: max(its largest pair / rates.warp, its total / rates.device) + rates.device_overhead_seconds.
struct LocateSplit {
  std::size_t to_cpu = 0;  // k
  double seconds = 0;      // the estimated finish of both sides
};

inline LocateSplit locate_split(const std::vector<double>& cells_descending, unsigned threads,
                                const LocateRates& rates) {
  const std::size_t n = cells_descending.size();
  if (threads == 0 || rates.core <= 0) {
    double gpu = 0;
    for (const double cells : cells_descending) gpu += cells;
    return {0, n == 0 ? 0.0
                      : std::max(cells_descending[0] / rates.warp, gpu / rates.device) + rates.device_overhead_seconds};
  }
  std::vector<double> suffix(n + 1, 0.0);  // suffix[k]: cells of pairs k..n-1
  for (std::size_t k = n; k-- > 0;) suffix[k] = suffix[k + 1] + cells_descending[k];
  std::size_t best = 0;
  double best_seconds = 0;
  for (std::size_t k = 0; k <= n; ++k) {
    const double cpu_cells = suffix[0] - suffix[k];
    const double cpu = k == 0 ? 0.0 : std::max(cells_descending[0], cpu_cells / threads) / rates.core;
    const double gpu =
        k == n ? 0.0
               : std::max(cells_descending[k] / rates.warp, suffix[k] / rates.device) + rates.device_overhead_seconds;
    const double seconds = std::max(cpu, gpu);
    if (k == 0 || seconds < best_seconds) {
      best = k;
      best_seconds = seconds;
    }
  }
  return {best, best_seconds};
}

inline std::size_t pairs_for_cpu(const std::vector<double>& cells_descending, unsigned threads,
                                 const LocateRates& rates) {
  return locate_split(cells_descending, threads, rates).to_cpu;
}

// The number k of leading candidates for the long-pair kernel (their cells in descending order, with
// their costs) that it should take, all in one launch (the longest of them, or their warp-seconds over
// the device's warp slots, whichever is longer), beside the CPU/GPU split of the others
// (`others_descending`, the remaining candidates joining them): the k of the earliest estimated finish
// of both, the smallest on ties.
//
// The kernel's estimate never decreases with k and the split's never increases (a pair taken away
// leaves a split at least as fast), so the best k lies where they cross, found by bisection: a few
// splits of O(pairs) each. Trying every k, each with a sort of the rest, took seconds on a call of
// thousands of candidates among 20,000 pairs.
inline std::size_t pairs_for_long_kernel(const std::vector<double>& candidate_cells,
                                         const std::vector<LongPairCost>& candidate_costs,
                                         const std::vector<double>& others_descending, unsigned threads,
                                         const LocateRates& rates) {
  const std::size_t count = candidate_cells.size();
  std::vector<double> kernel(count + 1, 0.0);  // kernel[k]: the first k candidates' launch
  double longest = 0, warp_seconds = 0;
  for (std::size_t k = 1; k <= count; ++k) {
    longest = std::max(longest, candidate_costs[k - 1].seconds);
    warp_seconds += candidate_costs[k - 1].warp_seconds;
    kernel[k] = std::max(longest, warp_seconds / rates.long_warp_slots);
  }
  std::vector<double> rest;
  const auto split = [&](std::size_t k) {  // the others' split, the first k candidates taken away
    rest.resize(count - k + others_descending.size());
    std::merge(candidate_cells.begin() + static_cast<std::ptrdiff_t>(k), candidate_cells.end(),
               others_descending.begin(), others_descending.end(), rest.begin(), std::greater<>());
    return locate_split(rest, threads, rates).seconds;
  };
  // The first k whose kernel estimate reaches the split's (count + 1 if none).
  std::size_t low = 0, high = count + 1;
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (kernel[middle] >= split(middle))
      high = middle;
    else
      low = middle + 1;
  }
  const std::size_t crossing = low;
  // Left of the crossing the finish is the split's, from the crossing on the kernel's: the best is at
  // the crossing or just before it, and before it, the first k whose split is as fast.
  if (crossing == 0) return 0;
  const double before = split(crossing - 1);
  if (crossing <= count && kernel[crossing] < before) return crossing;
  std::size_t first = 0, last = crossing - 1;
  while (first < last) {
    const std::size_t middle = first + (last - first) / 2;
    if (split(middle) <= before)
      last = middle;
    else
      first = middle + 1;
  }
  return first;
}

}  // namespace warpsearch
