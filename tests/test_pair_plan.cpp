// The host-side plan of the GPU pair aligner (kernels/gpu/pair_dispatch.hpp), which runs without a
// GPU: launch order of the jobs (radix sort) against std::sort with the plain comparator, sub-batch
// splitting, the shapes a reverse pass can take, and the pass-to-pass bookkeeping (the device runs it)
// against the host code it replaced.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "core/alignment_mode.hpp"
#include "kernels/gpu/pair_dispatch.hpp"
#include "tests/catch.hpp"

namespace {

using warpsearch::AlignmentMode;
using warpsearch::gpu::detail::PairEnd;
using warpsearch::gpu::detail::PairJob;
namespace detail = warpsearch::gpu::detail;

// The straightforward order: shape descending, cells descending, index ascending.
std::vector<std::uint32_t> sorted_order(const std::vector<PairJob>& jobs) {
  std::vector<std::uint32_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int shape_a = detail::pair_shape_for(jobs[a].cols);
    const int shape_b = detail::pair_shape_for(jobs[b].cols);
    if (shape_a != shape_b) return shape_a > shape_b;
    const std::uint64_t cells_a = std::uint64_t{jobs[a].rows} * jobs[a].cols;
    const std::uint64_t cells_b = std::uint64_t{jobs[b].rows} * jobs[b].cols;
    if (cells_a != cells_b) return cells_a > cells_b;
    return a < b;
  });
  return order;
}

}  // namespace

TEST_CASE("Pair plan: radix job order equals the comparator sort", "[pairs][plan]") {
  std::mt19937_64 rng(99);
  detail::JobOrderScratch scratch;
  std::vector<std::uint32_t> order;
  std::vector<std::uint8_t> shapes;
  for (const std::size_t count : {0, 1, 2, 7, 1000, 30000}) {
    for (const std::uint32_t max_length : {1u, 40u, 1000u, 70000u, 2000000u}) {
      std::uniform_int_distribution<std::uint32_t> length(1, max_length);
      std::vector<PairJob> jobs(count);
      for (auto& job : jobs) job = PairJob{0, 0, length(rng), length(rng)};
      if (count > 10) jobs[3] = jobs[9];  // ties
      detail::order_pair_jobs(jobs.data(), jobs.size(), order, shapes, scratch);
      INFO(count << " jobs up to " << max_length);
      CHECK(order == sorted_order(jobs));
      for (std::size_t k = 0; k < count; ++k) CHECK(shapes[k] == detail::pair_shape_for(jobs[order[k]].cols));
      // Jobs already largest first: the stable partition by shape keeps them by cells within a shape.
      std::vector<PairJob> by_cells = jobs;
      std::stable_sort(by_cells.begin(), by_cells.end(), [](const PairJob& a, const PairJob& b) {
        return std::uint64_t{a.rows} * a.cols > std::uint64_t{b.rows} * b.cols;
      });
      detail::order_pair_jobs(by_cells.data(), by_cells.size(), order, shapes, scratch, 0, true);
      CHECK(order == sorted_order(by_cells));
      for (std::size_t k = 0; k < count; ++k) CHECK(shapes[k] == detail::pair_shape_for(by_cells[order[k]].cols));
    }
  }
  // Very large cells (2 M x 2 M) keep their place.
  std::vector<PairJob> big = {{0, 0, 2000000, 2000000}, {0, 0, 1999999, 2000000}, {0, 0, 5, 2000000}};
  detail::order_pair_jobs(big.data(), big.size(), order, shapes, scratch);
  CHECK(order == sorted_order(big));
}

TEST_CASE("Pair plan: sub-batches are contiguous, non-empty and balanced", "[pairs][plan]") {
  std::mt19937_64 rng(5);
  std::vector<std::size_t> bounds;
  for (const std::size_t n : {0, 1, 3, 8, 100, 100000}) {
    for (const std::size_t parts : {1, 2, 4, 8, 200}) {
      std::vector<std::uint64_t> prefix(n + 1, 0);
      std::uniform_int_distribution<std::uint64_t> weight(0, 1000000);
      std::uint64_t largest = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint64_t w = k % 17 == 0 ? 0 : weight(rng);
        largest = std::max(largest, w);
        prefix[k + 1] = prefix[k] + w;
      }
      detail::split_by_weight(prefix, parts, bounds);
      INFO(n << " items in " << parts << " parts");
      REQUIRE(bounds.front() == 0);
      REQUIRE(bounds.back() == n);
      CHECK(bounds.size() - 1 <= std::max<std::size_t>(1, std::min(parts, n)));
      if (n > 0 && parts <= n) CHECK(bounds.size() - 1 == parts);
      for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
        CHECK((bounds[i] < bounds[i + 1] || n == 0));
        if (n >= parts * 100) CHECK(prefix[bounds[i + 1]] - prefix[bounds[i]] <= prefix[n] / parts + 2 * largest);
      }
    }
  }
}

// A batch sorted by size class is cut from its runs' weights alone (split_runs_by_weight): with equal
// cells within each run that is split_by_weight of the exact prefix; with cells varying inside a run
// (a class spans 1/16), still contiguous, non-empty parts of about the asked weights.
TEST_CASE("Pair plan: sub-batches of pairs sorted by size class", "[pairs][plan]") {
  std::mt19937_64 rng(17);
  std::vector<std::size_t> exact, from_runs;
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t run_count = trial == 0 ? 0 : rng() % (trial < 100 ? 4 : 120) + 1;
    const bool uniform = trial % 2 == 0;
    std::vector<detail::SizeClassRun> runs;
    std::vector<std::uint64_t> prefix(1, 0);
    std::uint64_t base = std::uint64_t{1} << (rng() % 20 + 20);
    for (std::size_t r = 0; r < run_count; ++r, base -= base / 16) {
      detail::SizeClassRun run;
      run.size_class = static_cast<std::uint16_t>(1000 - r);
      run.first_position = prefix.size() - 1;
      run.first_cells = prefix.back();
      run.pairs = rng() % (trial % 3 == 0 ? 3 : 2000) + 1;
      for (std::uint64_t k = 0; k < run.pairs; ++k) {
        const std::uint64_t cells = uniform ? base : base - rng() % (base / 16 + 1);
        run.cells += cells;
        prefix.push_back(prefix.back() + cells);
      }
      runs.push_back(run);
    }
    const std::size_t n = prefix.size() - 1;
    for (const std::size_t parts : {1, 2, 3, 8, 64}) {
      for (const std::uint32_t first : {50u, 100u}) {
        detail::split_runs_by_weight(runs, parts, from_runs, first, 100);
        INFO("trial " << trial << ": " << run_count << " runs, " << n << " pairs, " << parts << " parts, first "
                      << first);
        REQUIRE(from_runs.front() == 0);
        REQUIRE(from_runs.back() == n);
        CHECK(from_runs.size() - 1 == (n == 0 ? 0 : std::min(parts, n)));
        for (std::size_t i = 0; i + 1 < from_runs.size(); ++i) CHECK(from_runs[i] < from_runs[i + 1]);
        detail::split_by_weight(prefix, parts, exact, first, 100);
        if (uniform) CHECK(from_runs == exact);
        // Each boundary off the exact one's by at most what interpolation can miss: a class's spread
        // (1/16 of its run) and a pair.
        std::uint64_t allowance = 0;
        for (const auto& run : runs) allowance = std::max(allowance, run.cells / 16 + run.cells / run.pairs + 1);
        REQUIRE(exact.size() == from_runs.size());
        for (std::size_t i = 0; i < exact.size(); ++i) {
          const std::uint64_t a = prefix[from_runs[i]], b = prefix[exact[i]];
          CHECK((a > b ? a - b : b - a) <= allowance);
        }
      }
    }
  }
}

TEST_CASE("Pair plan: the shapes of passes up to a column count", "[pairs][plan]") {
  for (const std::uint32_t max_cols :
       {1u, 16u, 17u, 100u, 192u, 193u, 256u, 257u, 500u, 700u, 1000u, 1536u, 2000u, 4096u, 5000u, 100000u}) {
    unsigned expected = 0;
    for (std::uint32_t c = 1; c <= max_cols; ++c) expected |= 1u << detail::pair_shape_for(c);
    INFO(max_cols);
    CHECK(detail::pair_shapes_up_to(max_cols) == expected);
  }
}

TEST_CASE("Pair plan: spans and reverse jobs from the ends, as the host computed them", "[pairs][plan]") {
  std::mt19937_64 rng(8);
  std::uniform_int_distribution<std::uint32_t> length(1, 3000);
  for (int trial = 0; trial < 20000; ++trial) {
    const AlignmentMode mode = trial % 3 == 0   ? AlignmentMode::local
                               : trial % 3 == 1 ? AlignmentMode::semiglobal
                                                : AlignmentMode::global;
    const std::uint32_t m = length(rng), n = length(rng);
    const std::uint64_t q_off = rng() % 1000000, t_off = rng() % 1000000;
    const bool local = mode == AlignmentMode::local;
    const PairJob forward = local ? PairJob{t_off, q_off, n, m} : PairJob{q_off, t_off, m, n};
    PairEnd end{};
    end.score = static_cast<int>(rng() % 200) - (trial % 7 == 0 ? 200 : 20);
    end.row_end = local ? 1 + static_cast<std::uint32_t>(rng() % n) : m;
    end.col_end = static_cast<std::uint32_t>(rng() % ((local ? m : n) + 1));
    if (local && end.col_end == 0) end.col_end = 1;
    if (local && end.score <= 0) end = PairEnd{0, 0, 0};
    // The host code this replaces (pair_aligner.cu before the device-side reverse jobs).
    detail::DeviceSpan expected{};
    expected.score = end.score;
    bool has_reverse = false;
    PairJob expected_reverse{};
    if (local) {
      if (expected.score <= 0) {
        expected.score = 0;
      } else {
        expected.query_end = end.col_end;
        expected.subject_end = end.row_end;
        expected_reverse = {t_off, q_off, expected.subject_end, expected.query_end};
        has_reverse = true;
      }
    } else if (mode == AlignmentMode::semiglobal) {
      expected.query_end = m;
      expected.subject_end = end.col_end;
      expected.subject_begin = expected.subject_end;
      if (expected.subject_end != 0) {
        expected_reverse = {q_off, t_off, m, expected.subject_end};
        has_reverse = true;
      }
    } else {
      expected.query_end = m;
      expected.subject_end = n;
    }
    PairEnd reverse_end{expected.score, 0, 0};
    if (has_reverse) {
      reverse_end.row_end = 1 + static_cast<std::uint32_t>(rng() % expected_reverse.rows);
      reverse_end.col_end = 1 + static_cast<std::uint32_t>(rng() % expected_reverse.cols);
      if (local) {
        expected.subject_begin = expected.subject_end - reverse_end.row_end;
        expected.query_begin = expected.query_end - reverse_end.col_end;
      } else {
        expected.subject_begin = expected.subject_end - reverse_end.col_end;
      }
    }

    detail::DeviceSpan got = detail::forward_span(mode, forward, end);
    PairJob reverse{};
    const bool got_reverse = detail::reverse_job_of(mode, forward, end, reverse);
    REQUIRE(got_reverse == has_reverse);
    if (got_reverse) {
      CHECK(reverse.row_offset == expected_reverse.row_offset);
      CHECK(reverse.col_offset == expected_reverse.col_offset);
      CHECK(reverse.rows == expected_reverse.rows);
      CHECK(reverse.cols == expected_reverse.cols);
      CHECK(reverse.cols <= forward.cols);  // the forward pass's shape choice bounds the reverse pass's
      CHECK(reverse.rows <= forward.rows);
      detail::apply_reverse_end(mode, reverse_end, got);
    }
    INFO("trial " << trial);
    CHECK(got.score == expected.score);
    CHECK(got.query_begin == expected.query_begin);
    CHECK(got.query_end == expected.query_end);
    CHECK(got.subject_begin == expected.subject_begin);
    CHECK(got.subject_end == expected.subject_end);
  }
}

// Size classes order pairs largest first: monotonic in cells, below kSizeClasses, and a class spans at
// most 1/16 of its lower bound.
TEST_CASE("Pair plan: size classes are monotonic and fine", "[pairs][plan]") {
  std::mt19937_64 rng(5);
  std::uint16_t previous = 0;
  for (std::uint64_t cells = 0; cells < 5000; ++cells) {
    const std::uint16_t size_class = detail::pair_size_class(cells);
    CHECK(size_class >= previous);
    previous = size_class;
  }
  for (int k = 0; k < 100000; ++k) {
    const std::uint64_t a = rng() >> (rng() % 62 + 2);                      // below 2^62: b does not wrap
    const std::uint64_t b = a + (rng() >> (rng() % 63 + 1)) % (a / 8 + 1);  // b in [a, 1.125 a]
    CHECK(detail::pair_size_class(a) <= detail::pair_size_class(b));
    CHECK(detail::pair_size_class(b) < detail::kSizeClasses);
    if (a >= 16 && b >= a + a / 16 + 1) CHECK(detail::pair_size_class(a) < detail::pair_size_class(b));
  }
  CHECK(detail::pair_size_class(~std::uint64_t{0}) == detail::kSizeClasses - 1);
}
