// The pair aligner's sub-batches (kernels/gpu/pair_dispatch.hpp: split_by_weight).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/gpu/pair_dispatch.hpp"
#include "tests/catch.hpp"

namespace detail = warpsearch::gpu::detail;

// The aligner's first and last sub-batches are smaller (SubBatchLimits::first_percent, last_percent):
// split_by_weight gives part 0 and the last part those shares of a middle part's weight, the middle
// parts equal, all contiguous and non-empty.
TEST_CASE("Pair plan: smaller first and last sub-batches", "[pairs][plan]") {
  std::mt19937_64 rng(12);
  std::vector<std::size_t> bounds;
  for (const std::size_t n : {1, 2, 9, 1000, 100000}) {
    std::vector<std::uint64_t> prefix(n + 1, 0);
    std::uniform_int_distribution<std::uint64_t> weight(1, 1000);
    for (std::size_t k = 0; k < n; ++k) prefix[k + 1] = prefix[k] + weight(rng);
    for (const std::size_t parts : {1, 2, 3, 8}) {
      for (const std::uint32_t first : {1u, 25u, 50u, 100u}) {
        for (const std::uint32_t last : {10u, 50u, 100u}) {
          detail::split_by_weight(prefix, parts, bounds, first, last);
          INFO(n << " items, " << parts << " parts, first " << first << "%, last " << last << "%");
          REQUIRE(bounds.front() == 0);
          REQUIRE(bounds.back() == n);
          CHECK(bounds.size() - 1 == std::min(parts, n));
          for (std::size_t i = 0; i + 1 < bounds.size(); ++i) CHECK(bounds[i] < bounds[i + 1]);
          if (n >= 1000 && parts > 1) {
            auto weight_of = [&](std::size_t part) {
              return static_cast<double>(prefix[bounds[part + 1]] - prefix[bounds[part]]);
            };
            const std::size_t p = bounds.size() - 1;
            // Shares against a middle part (with two parts, against each other); items weigh up to 1,000.
            const double middle = p > 2 ? weight_of(1) : 0;
            if (p > 2) {
              CHECK(std::abs(weight_of(0) / middle - first / 100.0) < 0.05 + 2000.0 / middle);
              CHECK(std::abs(weight_of(p - 1) / middle - last / 100.0) < 0.05 + 2000.0 / middle);
              for (std::size_t i = 2; i + 1 < p; ++i)
                CHECK(std::abs(weight_of(i) / middle - 1.0) < 0.05 + 2000.0 / middle);
            } else {
              CHECK(std::abs(weight_of(0) / weight_of(1) - static_cast<double>(first) / last) <
                    0.05 + 2000.0 / weight_of(1) * static_cast<double>(first) / last);
            }
          }
        }
      }
    }
  }
}
