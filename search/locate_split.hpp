// Where a GPU search locates its hits (score, start and end of each kept candidate): on the GPU's pair
// aligner or on the CPU's striped kernels (cpu::pair_span), both at once. The pair aligner runs a pair
// on one warp: thousands of pairs together at high throughput, but a single long pair at one warp's
// speed. A search keeps few hits, and the longest of them decide the time: on the H100, a 5,478-residue
// query against a 22,152-residue subject took 0.1 s on its warp, against about 20 ms on one CPU core.
// So the longest pairs go to the CPU cores and the GPU takes the rest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace warpsearch {

// Locating speeds in cells (query length x subject length) per second, forward and reverse pass
// together.
struct LocateRates {
  double core = 0;                     // one pair on one CPU core
  double warp = 0;                     // one pair on the GPU (its warp)
  double device = 0;                   // the GPU over many pairs at once
  double device_overhead_seconds = 0;  // a GPU call's fixed cost (launches, copies)
};

// The number k of leading pairs (cells sorted in descending order) the CPU takes, the others going to
// the GPU: the k with the earliest estimated finish of both sides, the smallest on ties.
//   CPU (longest first on `threads` cores): max(its largest pair, its total / threads) / rates.core;
//   GPU: max(its largest pair / rates.warp, its total / rates.device) + rates.device_overhead_seconds.
inline std::size_t pairs_for_cpu(const std::vector<double>& cells_descending, unsigned threads,
                                 const LocateRates& rates) {
  const std::size_t n = cells_descending.size();
  if (threads == 0 || rates.core <= 0) return 0;
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
  return best;
}

}  // namespace warpsearch
