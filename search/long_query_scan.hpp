// Which GPU kernel scores a long query against long subjects: the scan's segments or the long-pair kernel.
//
// The scan cuts a long subject into segments, each scanned from reach - 1 positions before the part it
// owns (search/subject_segments.hpp), and a segment is one team's job. The reach grows with the query
// (about 2 m for DNA at blastn's scoring), and a segment owns at least half a reach, so a query of
// hundreds of kilobases against subjects of a few megabases makes a dozen or so segments, each at least
// 1.5 reaches long: most of the device idles while each team sweeps its segment. The long-pair kernel
// (kernels/gpu/long_pair.hpp) runs a pair across the device instead, one local pass with the subject's
// residues as its rows, a warp per stripe of them: the pass's best is the subject's best score exactly,
// and the stripes whose best reaches the threshold are the HSP search's hot columns, as the scan's hot
// tiles are (search/subject_segments.hpp, SubjectRegions).
//
// pair_scan_pays() weighs the two for one query (one strand) against a chunk's long subjects:
//   scan: nothing unless its segments, cut as finely as the plan allows, are fewer than the teams the
//     device runs at once (else the scan fills the device, and stays); then its widest segment,
//     min(n, owned + reach) columns of m rows, at one team's rate;
//   pairs: the passes of all the pairs in one launch (half of long_pair_cost, locate_split.hpp: its
//     last stripe's sweep, or its warps' time over the device's slots).
// The HSP search after either locates its hits in windows around the regions found, alike. Scores and
// HSPs do not depend on the choice (both are exact); only the time does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "search/locate_split.hpp"

namespace warpsearch {

struct LongQueryScanRates {
  double team_cells = 0;        // a scan team's cells a second, sweeping one segment
  std::uint64_t teams = 1;      // segments the device scans at once, for one query
  std::uint64_t min_owned = 1;  // the least a segment owns, besides half a reach (SubjectSegments)
  LocateRates pairs;            // the long-pair kernel's terms (long_*)
};

// Whether the long-pair kernel scores a query of query_length residues and reach `reach`
// (cpu::alignment_reach) against subjects of these lengths sooner than the scan's segments.
inline bool pair_scan_pays(std::size_t query_length, std::uint64_t reach, const std::vector<std::uint64_t>& subjects,
                           const LongQueryScanRates& rates) {
  if (reach == 0 || subjects.empty() || rates.team_cells <= 0) return false;
  const double m = static_cast<double>(query_length);
  const double owned = static_cast<double>(std::max<std::uint64_t>(rates.min_owned, reach / 2));
  double segments = 0, widest = 0, last_sweep = 0, warp_seconds = 0;
  for (const std::uint64_t length : subjects) {
    const double n = static_cast<double>(length);
    segments += std::ceil(n / owned);
    widest = std::max(widest, std::min(n, owned + static_cast<double>(reach)));
    const LongPairCost cost = long_pair_cost(m, n, rates.pairs);  // two passes: the end pass is half
    last_sweep = std::max(last_sweep, cost.seconds / 2);
    warp_seconds += cost.warp_seconds / 2;
  }
  if (segments >= static_cast<double>(rates.teams)) return false;
  const double scan = widest * m / rates.team_cells;
  const double pairs = std::max(last_sweep, warp_seconds / rates.pairs.long_warp_slots);
  return pairs < scan;
}

}  // namespace warpsearch
