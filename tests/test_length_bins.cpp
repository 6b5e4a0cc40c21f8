// The GPU length-bin table (kernels/gpu/length_bins.hpp) on the CPU: which bin each subject length takes,
// and the padding that choice costs. The kernels themselves are tested in tests/gpu_test_scorer.cu.
#include <cstdint>

#include "kernels/gpu/length_bins.hpp"
#include "tests/catch.hpp"

namespace d = warpsearch::gpu::detail;

TEST_CASE("Every subject length takes the narrowest one-pass bin that holds it", "[gpu-bins]") {
  for (std::uint32_t length = 1; length <= d::kLengthBins[d::kFirstTiledBin - 1].max_length; ++length) {
    const int bin = d::bin_of_length(length);
    REQUIRE(bin < d::kFirstTiledBin);
    CHECK(length <= d::kLengthBins[bin].max_length);
    if (bin > 0) CHECK(length > d::kLengthBins[bin - 1].max_length);
  }
}

TEST_CASE("Tiled lengths take the tile width that pads them least, the widest on a tie", "[gpu-bins]") {
  const std::uint32_t first = d::kLengthBins[d::kFirstTiledBin - 1].max_length + 1;
  const std::uint32_t last = d::kLengthBins[d::kFirstTiledBin].max_length;
  for (std::uint32_t length = first; length <= last; ++length) {
    const int bin = d::bin_of_length(length);
    REQUIRE(bin >= d::kFirstTiledBin);
    REQUIRE(bin < d::kHugeBin);
    const std::uint64_t chosen = d::tiled_columns(bin, length);
    CHECK(chosen >= length);
    for (int other = d::kFirstTiledBin; other < d::kHugeBin; ++other) {
      const std::uint64_t columns = d::tiled_columns(other, length);
      CHECK(chosen <= columns);
      if (columns == chosen) CHECK(d::kLengthBins[other].regs <= d::kLengthBins[bin].regs);
    }
  }
  CHECK(d::bin_of_length(last + 1) == d::kHugeBin);
  CHECK(d::bin_of_length(0xFFFFFFFFu) == d::kHugeBin);
}

// The point of the fine bins: from 129 residues to the tiled limit, a subject computes at most 1/7 more
// columns than it has (one-pass bins 16 or 32 columns apart, tiles of 320..512; with the coarser bins
// before, up to 1/2 more: 1025 residues took 1,536 columns).
TEST_CASE("Padding stays under one seventh of a subject from 129 residues on", "[gpu-bins]") {
  for (std::uint32_t length = 129; length <= d::kLengthBins[d::kFirstTiledBin].max_length; ++length) {
    const int bin = d::bin_of_length(length);
    const std::uint64_t columns =
        bin < d::kFirstTiledBin ? d::kLengthBins[bin].max_length : d::tiled_columns(bin, length);
    INFO("length " << length << " bin " << bin << " columns " << columns);
    CHECK(columns * 7 <= std::uint64_t{length} * 8);
  }
}

TEST_CASE("The cooperative bin's team is the largest whose handoffs fit the query's rows", "[gpu-bins]") {
  namespace d = warpsearch::gpu::detail;
  constexpr int kBlockWarps = d::kBlockThreads / 32;
  int previous = 1;
  for (int m = 1; m <= 4000; ++m) {
    const int k = d::cooperative_team_warps(m);
    REQUIRE((k == 1 || k == 2 || k == 4 || k == 8));
    CHECK(k <= kBlockWarps);
    CHECK(k >= previous);  // longer queries never get smaller teams
    previous = k;
    // k warps turn once per k handoffs, which fit m; twice as many would not (unless the block is full).
    if (k > 1) CHECK(k * d::kHandoffRows <= m);
    if (k < kBlockWarps) CHECK(2 * k * d::kHandoffRows > m);
  }
  CHECK(d::cooperative_team_warps(100) == 1);
  CHECK(d::cooperative_team_warps(10000) == kBlockWarps);
}

TEST_CASE("The streamed kernel holds a query in the fewest rows a lane that cover it, of those it has", "[gpu-bins]") {
  int previous = d::kStreamedMinRegs;
  for (int m = 1; m <= d::kStreamedMaxQuery; ++m) {
    const int regs = d::streamed_regs(m);
    REQUIRE(regs >= d::kStreamedMinRegs);
    REQUIRE(regs <= d::kStreamedMaxRegs);
    CHECK(32 * regs >= m);                                       // the warp's lanes hold every row
    if (regs > d::kStreamedMinRegs) CHECK(32 * (regs - 1) < m);  // and no smaller instantiation would
    CHECK(regs >= previous);
    previous = regs;
  }
  CHECK(d::streamed_regs(257) == 9);  // odd counts have instantiations too
  CHECK(d::kStreamedRegCount == d::kStreamedMaxRegs - d::kStreamedMinRegs + 1);
}
