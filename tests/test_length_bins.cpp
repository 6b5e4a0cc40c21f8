// The GPU length-bin table (kernels/gpu/length_bins.hpp) on the CPU: which bin each subject length takes,
// and the padding that choice costs. The kernels themselves are tested in tests/gpu_test_scorer.cu.
#include <cstdint>

#include "kernels/gpu/length_bins.hpp"
#include "kernels/gpu/profile_shapes.hpp"
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
    const std::uint64_t columns = bin < d::kFirstTiledBin ? d::kLengthBins[bin].max_length : d::tiled_columns(bin, length);
    INFO("length " << length << " bin " << bin << " columns " << columns);
    CHECK(columns * 7 <= std::uint64_t{length} * 8);
  }
}

// The query-profile kernels (kernels/gpu/profile_shapes.hpp): the plan covers the query with whole tiles,
// its profile rows are 128-byte aligned and fit the shared memory given, and no other shape that fits
// costs less by the same measure; a query whose profile fits nowhere gets no plan.
TEST_CASE("Each query length gets the cheapest query-profile shape that fits", "[gpu-bins]") {
  const int protein_codes = 26;
  const std::size_t shared = 227 * 1024;
  const auto cost = [](const d::ProfilePlan& plan) {
    const d::ProfileShape s = d::kProfileShapes[plan.shape];
    return static_cast<long long>(plan.tiles) * s.group * s.regs * (d::kTypicalRows + s.group - 1 + d::kTileOverheadRows);
  };
  for (int m = 1; m <= 9000; m += (m < 1100 ? 1 : 37)) {
    const d::ProfilePlan plan = d::choose_profile_plan(m, protein_codes, shared);
    if (static_cast<std::size_t>(d::profile_plan_for_shape(d::kProfileShapeCount - 1, m).stride) * protein_codes > shared) {
      // wider tiles never pad less than 32 columns: if the widest does not fit, check that none was chosen
      // only when every shape overflows
      bool any_fits = false;
      for (int shape = 0; shape < d::kProfileShapeCount; ++shape)
        any_fits = any_fits || static_cast<std::size_t>(d::profile_plan_for_shape(shape, m).stride) * protein_codes <= shared;
      if (!any_fits) {
        CHECK(plan.shape == -1);
        continue;
      }
    }
    REQUIRE(plan.shape >= 0);
    const d::ProfileShape s = d::kProfileShapes[plan.shape];
    CHECK(plan.tiles * s.group * s.regs >= m);
    CHECK((plan.tiles - 1) * s.group * s.regs < m);
    CHECK(plan.stride % d::kProfileRowAlign == 0);
    CHECK(plan.stride >= plan.tiles * s.group * s.regs);
    CHECK(static_cast<std::size_t>(plan.stride) * protein_codes <= shared);
    for (int other = 0; other < d::kProfileShapeCount; ++other) {
      const d::ProfilePlan alternative = d::profile_plan_for_shape(other, m);
      if (static_cast<std::size_t>(alternative.stride) * protein_codes <= shared) CHECK(cost(plan) <= cost(alternative));
    }
  }
  CHECK(d::choose_profile_plan(20000, protein_codes, shared).shape == -1);
  CHECK(d::choose_profile_plan(20000, 6, shared).shape >= 0);  // DNA: six profile rows
}
