// search/gpu_start.hpp: the CUDA_VISIBLE_DEVICES value that shows CUDA only the GPUs of a --gpus list,
// and their ordinals under it; nothing where the list cannot be mapped (the search then reports it).
#include <optional>
#include <string>
#include <vector>

#include "search/gpu_start.hpp"
#include "tests/catch.hpp"

using warpsearch::visible_gpus;

TEST_CASE("visible_gpus: the listed GPUs, in the list's order, renumbered from 0", "[gpu_start]") {
  // The variable unset: ordinals are the driver's.
  auto shown = visible_gpus({2}, nullptr, 4);
  REQUIRE(shown);
  CHECK(shown->variable == "2");
  CHECK(shown->gpus == std::vector<int>{0});
  shown = visible_gpus({3, 1}, nullptr, 4);
  REQUIRE(shown);
  CHECK(shown->variable == "3,1");
  CHECK(shown->gpus == std::vector<int>{0, 1});
  // The variable set (a scheduler's, with UUIDs): ordinals index its entries.
  shown = visible_gpus({2, 0}, "GPU-aa,GPU-bb,MIG-cc", std::nullopt);
  REQUIRE(shown);
  CHECK(shown->variable == "MIG-cc,GPU-aa");
  CHECK(shown->gpus == std::vector<int>{0, 1});
  shown = visible_gpus({1}, "5,7", 8);
  REQUIRE(shown);
  CHECK(shown->variable == "7");
}

TEST_CASE("visible_gpus: nothing to change where the list cannot be mapped", "[gpu_start]") {
  CHECK_FALSE(visible_gpus({}, nullptr, 4));              // every GPU
  CHECK_FALSE(visible_gpus({4}, nullptr, 4));             // not installed: the search says so
  CHECK_FALSE(visible_gpus({0}, nullptr, std::nullopt));  // no driver count
  CHECK_FALSE(visible_gpus({2}, "0,1", 4));               // beyond the visible ones
  CHECK_FALSE(visible_gpus({0}, "", 4));                  // none visible
  CHECK_FALSE(visible_gpus({1}, "0,,2", 4));              // an empty entry
  CHECK_FALSE(visible_gpus({0, 1, 0}, nullptr, 4));       // a GPU twice
}
