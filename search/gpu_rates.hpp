// The GPU backend's cost models' rates (search/locate_split.hpp, search/long_query_scan.hpp), measured
// on one H100.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/alignment.hpp"
#include "kernels/gpu/long_pair.hpp"
#include "search/locate_split.hpp"
#include "search/long_query_scan.hpp"
#include "search/subject_segments.hpp"

namespace warpsearch {

// Locating speeds (locate_split.hpp). CPU: one core's cpu::pair_span on long real proteins, about half
// the forward kernel's speed (bench/striped_bench: local 16-bit forward 10 G cells/s with AVX-512BW,
// 6 with AVX2, 2.7 with SSE4.1, 0.3 scalar), the reverse pass over the prefix costing up to as much
// again. GPU (H100): 0.13 s for a 5,478 x 22,152 search hit on its warp, both passes; about 0.9 T
// cells/s over 100,000 pairs (bench/results, gpu_pair_bench); a call's launches and copies about 1 ms.
inline LocateRates locate_rates() {
  LocateRates rates;
  switch (cpu::best_isa()) {
    case cpu::Isa::avx512bw: rates.core = 5e9; break;
    case cpu::Isa::avx2: rates.core = 3e9; break;
    case cpu::Isa::sse41: rates.core = 1.3e9; break;
    case cpu::Isa::scalar: rates.core = 0.15e9; break;
  }
  rates.warp = 1e9;
  rates.device = 5e11;
  rates.device_overhead_seconds = 1e-3;
  // The long-pair kernel (one H100): a 31,921 x 31,921 pair's forward pass in 6.6 ms, 31,921
  // columns plus 125 stripes about 100 steps apart (bench/gpu_long_pair_bench); 32 warps per
  // multiprocessor of 132. Local spans of many pairs share its launches: 40 pairs of 10,000 x 37,000
  // in 21 ms (--side-by-side). On the genome benchmark 2,000 and 8,000 warps gave the same times; the
  // searches that use the kernel took the same time with this step as with 0.4 us
  // (bench/results/genome_gpu_h100.tsv).
  rates.long_stripe_rows = static_cast<double>(gpu::LongPairAligner::kRowSpacing);
  rates.long_step_seconds = 0.15e-6;
  rates.long_lag_steps = 100;
  rates.long_overhead_seconds = 1e-3;
  rates.long_warp_slots = 32 * 132;
  return rates;
}

// The scan's segments against the long-pair kernel (one H100). A team: a 180 kb DNA query's segments of
// about 540,000 columns (1.5 reaches), about a dozen a strand, took 13.6-14.0 s to scan, about 7 G cells
// a second each (bench/results/contig_gpu_h100.tsv). teams: the segments the cooperative kernel runs at
// once for each of the queries in flight (SubjectSegments::gpu_wave's wave).
inline LongQueryScanRates long_query_scan_rates(const SubjectSegments::GpuKernels& kernels) {
  LongQueryScanRates rates;
  rates.team_cells = 7e9;
  rates.teams =
      std::max<std::uint64_t>(2 * kernels.cooperative_pairs / std::max<std::uint64_t>(kernels.queries_in_flight, 1), 1);
  rates.min_owned = SubjectSegments::kMinWaveLength;
  rates.pairs = locate_rates();
  return rates;
}

}  // namespace warpsearch
