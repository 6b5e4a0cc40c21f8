// The GPU pair aligner's host plan (kernels/gpu/pair_plan.hpp), which runs without a GPU: the spans of
// empty pairs, the batch order (input order, or by size class, largest first, stable within a class) and
// the layout of each order (residue offsets packed in batch order, forward jobs, sub-batch bounds),
// against plain computations of the same.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/host_threads.hpp"
#include "core/alignment_mode.hpp"
#include "kernels/gpu/pair_plan.hpp"
#include "tests/catch.hpp"

namespace {

using warpsearch::AlignmentMode;
using warpsearch::HostThreads;
using warpsearch::gpu::PairTask;
namespace detail = warpsearch::gpu::detail;

// Pairs of random lengths (some empty), codes irrelevant to the plan. `count` above 4,096 makes the
// plan's passes run in chunks on several threads.
std::vector<std::string> make_pairs(std::size_t count, std::vector<PairTask>& pairs, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> length(0, 300);
  std::vector<std::string> storage;
  storage.reserve(2 * count);
  for (std::size_t k = 0; k < count; ++k) {
    storage.emplace_back(static_cast<std::size_t>(length(random) % 7 == 0 ? 0 : length(random)), '\1');
    storage.emplace_back(static_cast<std::size_t>(length(random) % 11 == 0 ? 0 : length(random)), '\2');
  }
  pairs.clear();
  for (std::size_t k = 0; k < count; ++k) pairs.push_back(PairTask{storage[2 * k], storage[2 * k + 1]});
  return storage;
}

std::vector<std::size_t> non_empty(const std::vector<PairTask>& pairs) {
  std::vector<std::size_t> listed;
  for (std::size_t k = 0; k < pairs.size(); ++k)
    if (!pairs[k].query.empty() && !pairs[k].target.empty()) listed.push_back(k);
  return listed;
}

// The layout's invariants: positions [0, count) of `work`, residues packed in that order from 0, each
// forward job the pair's (query first), bounds from 0 to count, increasing.
void check_layout(const detail::PairPlan& plan, const std::vector<PairTask>& pairs, bool local) {
  const std::size_t count = plan.work.size();
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const PairTask& task = pairs[plan.work[i]];
    INFO("position " << i);
    REQUIRE(plan.query_offset[i] == at);
    const auto m = static_cast<std::uint32_t>(task.query.size());
    const auto n = static_cast<std::uint32_t>(task.target.size());
    const detail::PairJob expected = detail::forward_job(at, m, n, local);
    CHECK(plan.jobs[i].row_offset == expected.row_offset);
    CHECK(plan.jobs[i].col_offset == expected.col_offset);
    CHECK(plan.jobs[i].rows == expected.rows);
    CHECK(plan.jobs[i].cols == expected.cols);
    at += std::uint64_t{m} + n;
  }
  REQUIRE(plan.bounds.size() >= 2);
  CHECK(plan.bounds.front() == 0);
  CHECK(plan.bounds.back() == count);
  CHECK(std::is_sorted(plan.bounds.begin(), plan.bounds.end()));
}

}  // namespace

TEST_CASE("pair plan: empty pairs get their spans, the others are listed in input order", "[pairs][plan]") {
  std::vector<PairTask> pairs;
  const auto storage = make_pairs(10'000, pairs, 7);
  HostThreads threads;
  for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::semiglobal, AlignmentMode::global}) {
    detail::PairPlan plan;
    plan.limits.largest_first = false;
    plan.limits.min_pairs = 100;
    plan.limits.residues = 1 << 16;
    std::vector<warpsearch::Span> out(pairs.size());
    const detail::PairCounts counts = plan.count_pairs(pairs, mode, 11, 1, out, threads);
    plan.list_in_input_order();
    const std::vector<std::size_t> listed = non_empty(pairs);
    CHECK(counts.listed == listed.size());
    CHECK(plan.work == listed);
    CHECK_FALSE(counts.too_long);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const std::size_t m = pairs[k].query.size(), n = pairs[k].target.size();
      if (m > 0 && n > 0) continue;
      // An empty side: local 0; semi-global with an empty query 0, else the query against one gap;
      // global one gap of the other's length.
      const int gap = static_cast<int>(m + n);
      const bool scored = mode == AlignmentMode::global || (mode == AlignmentMode::semiglobal && m > 0);
      INFO("pair " << k << ", mode " << static_cast<int>(mode));
      CHECK(out[k].score == (scored && gap > 0 ? -(11 + gap) : 0));
      CHECK(out[k].query_end == (scored ? m : 0));
      CHECK(out[k].subject_end == (mode == AlignmentMode::global ? n : 0));
    }
    plan.lay_out(pairs, plan.work.data(), plan.work.size(), mode == AlignmentMode::local, threads);
    check_layout(plan, pairs, mode == AlignmentMode::local);
    CHECK(plan.bounds.size() > 2);  // several sub-batches
  }
}

TEST_CASE("pair plan: the size-class sort is stable, largest first, and laid out sub-batch by sub-batch",
          "[pairs][plan]") {
  std::vector<PairTask> pairs;
  const auto storage = make_pairs(20'000, pairs, 11);
  HostThreads threads;
  for (const bool local : {true, false}) {
    detail::PairPlan plan;
    plan.limits.min_pairs = 100;
    plan.limits.residues = 1 << 16;
    std::vector<warpsearch::Span> out(pairs.size());
    const detail::PairCounts counts =
        plan.count_pairs(pairs, local ? AlignmentMode::local : AlignmentMode::global, 11, 1, out, threads);
    const detail::LayoutTotals totals = plan.sort_by_size_class(counts);
    CHECK(plan.batch_presorted);
    // The expected order: non-empty pairs by size class, largest first, input order within a class.
    std::vector<std::size_t> expected = non_empty(pairs);
    auto size_class = [&](std::size_t k) {
      return detail::pair_size_class(std::uint64_t{pairs[k].query.size()} * pairs[k].target.size());
    };
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::size_t a, std::size_t b) { return size_class(a) > size_class(b); });
    std::uint64_t residues = 0, cells = 0;
    for (const std::size_t k : expected) {
      residues += pairs[k].query.size() + pairs[k].target.size();
      cells += std::uint64_t{pairs[k].query.size()} * pairs[k].target.size();
    }
    CHECK(totals.residues == residues);
    CHECK(totals.cells == cells);
    REQUIRE(plan.bounds.size() > 2);
    for (std::size_t part = 0; part + 1 < plan.bounds.size(); ++part)
      plan.lay_out_sorted(pairs, plan.bounds[part], plan.bounds[part + 1], local, threads);
    CHECK(plan.work == expected);
    check_layout(plan, pairs, local);
  }
}
