// Several HSPs (high-scoring local alignments) per subject, as BLAST reports them, exactly.
//
// Which alignments count as distinct: the region partition of reference::local_hsps
// (kernels/reference/reference.hpp). The best local alignment of the whole subject is the first HSP; the subject
// regions left and right of it are searched the same way, recursively, and every alignment found that
// scores at least the cutoff is an HSP. HSPs never share a subject position; each is the best alignment
// (the project's tie-break) of the region it was found in. docs/long_sequences.md says more.
//
// How: rounds of the backend's locate() (exact spans, the reference's tie-break), one span per open
// window per round. Without column information a window is a whole region. For long subjects the scan
// (kernels/cpu/long_subject.hpp) gives the hot columns, where some alignment scoring at least the query's
// threshold ends; an alignment of a region scoring at least the cutoff ends in a hot column c and starts
// after c - reach, so a region is searched only in windows around its clusters of hot columns, each window
// starting reach - 1 positions before its cluster (clipped to the region). Windows of one region are
// disjoint and ordered, and an alignment scoring at least the cutoff lies inside one of them, so the
// region's best alignment is the best of its windows', and the recursion can go on window by window.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "kernels/cpu/column_range.hpp"
#include "search/scan_backend.hpp"

namespace warpsearch {

struct HspRequest {
  std::string_view query;    // residue codes of the searched strand
  std::string_view subject;  // residue codes
  std::int64_t cutoff = 1;   // the lowest score an HSP may have (>= 1)
  std::size_t max_hsps = 0;  // keep the best max_hsps (0: all)
  // Long subjects: the hot columns of the whole subject (ascending, disjoint) for a threshold <= cutoff,
  // or any superset of them (the same HSPs, in larger windows), and the reach of an alignment scoring at
  // least that threshold (cpu::alignment_reach). nullptr: none known, each region is located whole.
  const std::vector<cpu::ColumnRange>* hot = nullptr;
  std::uint64_t reach = 0;
};

using LocateFunction = std::function<void(const std::vector<HitPair>&, std::vector<Span>&)>;

// hsps[r]: request r's HSPs, best first (score, then subject start), at most max_hsps. The first is the
// best local alignment of the whole subject whenever that scores at least the cutoff.
std::vector<std::vector<Span>> find_hsps(const std::vector<HspRequest>& requests, const LocateFunction& locate,
                                         int max_substitution);

}  // namespace warpsearch
