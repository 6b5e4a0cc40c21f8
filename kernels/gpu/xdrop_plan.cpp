#include "kernels/gpu/xdrop_plan.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "base/usable_cpus.hpp"

namespace warpsearch::gpu::detail {

std::array<std::int8_t, kXdropTableBytes> xdrop_table(const ScoringScheme& scoring) {
  std::array<std::int8_t, kXdropTableBytes> table{};
  for (int a = 0; a < kMaxCodes; ++a)
    for (int b = 0; b < kMaxCodes; ++b)
      table[static_cast<std::size_t>(a * kMaxCodes + b)] =
          static_cast<std::int8_t>(scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
  return table;
}

XdropScoring xdrop_scoring(const ScoringScheme& scoring, XDrop x) {
  if (x.value < 0) throw std::invalid_argument("the X-drop must be at least 0, not " + std::to_string(x.value));
  XdropScoring constants;
  constants.open_extend = scoring.gap_open() + scoring.gap_extend();
  constants.extend = scoring.gap_extend();
  constants.x = x.value;
  return constants;
}

std::uint32_t xdrop_global_rows(const XdropJob& job, std::uint32_t at_least) {
  const std::uint64_t needed = std::uint64_t{std::min(job.query_length, job.target_length)} + 3;
  std::uint64_t rows = std::max<std::uint64_t>(at_least, 1);
  while (rows < needed && rows < (std::uint64_t{1} << 31)) rows *= 2;
  return static_cast<std::uint32_t>(rows);
}

void order_xdrop_jobs(std::vector<XdropJob>& jobs) {
  std::sort(jobs.begin(), jobs.end(), [](const XdropJob& a, const XdropJob& b) {
    const std::uint32_t short_a = std::min(a.query_length, a.target_length);
    const std::uint32_t short_b = std::min(b.query_length, b.target_length);
    if (short_a != short_b) return short_a > short_b;
    const std::uint64_t sum_a = std::uint64_t{a.query_length} + a.target_length;
    const std::uint64_t sum_b = std::uint64_t{b.query_length} + b.target_length;
    if (sum_a != sum_b) return sum_a > sum_b;
    return a.slot < b.slot;
  });
}

namespace {

// The largest code (0 for none), after copying the codes to `to` when it is not null.
unsigned char largest_code(std::uint8_t* to, std::string_view codes) {
  if (codes.empty()) return 0;
  const auto* from = reinterpret_cast<const std::uint8_t*>(codes.data());
  if (to != nullptr) {
    std::memcpy(to, from, codes.size());
    from = to;  // read the copy while it is in cache
  }
  return *std::max_element(from, from + codes.size());
}

[[noreturn]] void throw_bad_code(std::size_t task, const char* side, std::string_view codes) {
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const auto code = static_cast<unsigned char>(codes[i]);
    if (code >= kMaxCodes)
      throw std::invalid_argument("pair " + std::to_string(task) + ": " + side + " residue " + std::to_string(i + 1) +
                                  " has code " + std::to_string(code) + ", not a residue code (below " +
                                  std::to_string(kMaxCodes) + ")");
  }
  throw std::logic_error("throw_bad_code: no bad code");
}

// Copies the residues of tasks[first, first + count) to `staged` (when not null) at their offsets and
// returns the smallest index (relative to first) of a task with a code >= kMaxCodes, count if none.
std::size_t stage_and_check(const std::vector<XdropTask>& tasks, std::size_t first, std::size_t count,
                            const std::vector<std::uint64_t>& query_offsets, std::uint8_t* staged,
                            std::uint64_t residues) {
  constexpr std::uint64_t kBytesPerThread = std::uint64_t{16} << 20;
  // The first bad task of [begin, end), or end.
  const auto range = [&](std::size_t begin, std::size_t end) {
    for (std::size_t local = begin; local < end; ++local) {
      const XdropTask& task = tasks[first + local];
      const std::uint64_t query = query_offsets[local];
      const bool bad_query = largest_code(staged ? staged + query : nullptr, task.query) >= kMaxCodes;
      const bool bad_target =
          largest_code(staged ? staged + query + task.query.size() : nullptr, task.target) >= kMaxCodes;
      if (bad_query || bad_target) return local;
    }
    return end;
  };
  // The CPU limits (files of /proc and /sys) are read only where the residues would take several threads.
  const std::uint64_t wanted = std::min<std::uint64_t>({8, residues / kBytesPerThread + 1, count});
  const std::uint64_t threads = wanted > 1 ? std::min<std::uint64_t>(wanted, usable_cpus()) : 1;
  if (threads <= 1) return range(0, count);
  // Contiguous shares of about equal residues, the calling thread taking the first.
  std::vector<std::size_t> bounds{0};
  for (std::size_t local = 0; local < count && bounds.size() < threads; ++local)
    if (query_offsets[local] >= residues / threads * bounds.size()) bounds.push_back(local);
  bounds.push_back(count);
  std::vector<std::size_t> bad(bounds.size() - 1, count);
  const auto share = [&](std::size_t t) {
    const std::size_t found = range(bounds[t], bounds[t + 1]);
    if (found < bounds[t + 1]) bad[t] = found;
  };
  std::vector<std::thread> pool;
  std::size_t next = 1;
  try {
    for (; next < bad.size(); ++next) pool.emplace_back(share, next);
  } catch (const std::system_error&) {
    // No more threads: the calling thread takes the shares left.
  }
  share(0);
  for (; next < bad.size(); ++next) share(next);
  for (auto& thread : pool) thread.join();
  return *std::min_element(bad.begin(), bad.end());
}

// A batch's extensions, sorted by where they run: device jobs, and host slots (2 * (task - first) left,
// + 1 right); query_offsets: where each task's residues start in the staged residues.
struct BatchJobs {
  std::vector<XdropJob> device;
  std::vector<std::uint32_t> host_slots;
  std::vector<std::uint64_t> query_offsets;
};

// The two extensions of each task of tasks[first, first + count), left and right of its seed; an empty
// one (the origin alone) is counted and needs no job.
BatchJobs plan_batch_jobs(const std::vector<XdropTask>& tasks, std::size_t first, std::size_t count,
                          const ScoringScheme& scoring, XdropRunStats& stats) {
  BatchJobs jobs;
  jobs.device.reserve(2 * count);
  jobs.query_offsets.resize(count);
  std::uint64_t at = 0;
  for (std::size_t local = 0; local < count; ++local) {
    const XdropTask& task = tasks[first + local];
    const Seed& seed = task.seed;
    const std::uint64_t query = at;
    const std::uint64_t target = at + task.query.size();
    jobs.query_offsets[local] = query;
    at += task.query.size() + task.target.size();
    XdropJob left;
    left.query_length = seed.query_begin;
    left.target_length = seed.target_begin;
    left.query = left.query_length > 0 ? query + seed.query_begin - 1 : 0;
    left.target = left.target_length > 0 ? target + seed.target_begin - 1 : 0;
    left.step = -1;
    left.slot = static_cast<std::uint32_t>(2 * local);
    XdropJob right;
    right.query_length = static_cast<std::uint32_t>(task.query.size() - seed.query_begin - seed.length);
    right.target_length = static_cast<std::uint32_t>(task.target.size() - seed.target_begin - seed.length);
    right.query = right.query_length > 0 ? query + seed.query_begin + seed.length : 0;
    right.target = right.target_length > 0 ? target + seed.target_begin + seed.length : 0;
    right.step = 1;
    right.slot = static_cast<std::uint32_t>(2 * local + 1);
    for (const XdropJob& job : {left, right}) {
      if (job.query_length == 0 && job.target_length == 0) {
        stats.cells += 1;  // the origin alone
      } else if (!xdrop_fits_int32(job.query_length, job.target_length, scoring)) {
        jobs.host_slots.push_back(job.slot);
      } else {
        jobs.device.push_back(job);
      }
    }
  }
  return jobs;
}

// The device jobs, their extensions filed by slot; those the device cannot hold go to host_slots.
void run_device_jobs(std::vector<XdropJob> jobs, XdropJobRunner& runner, std::vector<Extension>& extensions,
                     std::vector<std::uint32_t>& host_slots, XdropRunStats& stats) {
  order_xdrop_jobs(jobs);
  // Rings in shared memory, tier by tier: every job with the first, those whose band outgrew a tier
  // with the next.
  std::vector<XdropJobResult> results;
  std::vector<XdropJob> pending = std::move(jobs), rerun;
  stats.device_jobs += pending.size();
  const auto file = [&](const std::vector<XdropJob>& ran, std::vector<XdropJob>& overflowed) {
    overflowed.clear();
    for (std::size_t k = 0; k < ran.size(); ++k) {
      const XdropJobResult& result = results[k];
      if (result.status == kXdropDone) {
        extensions[ran[k].slot] = Extension{result.score, result.query_length, result.target_length};
        stats.cells += result.cells;
      } else {
        overflowed.push_back(ran[k]);
        stats.wasted_cells += result.cells;
      }
    }
  };
  const std::vector<std::uint32_t> tiers = runner.shared_tiers();
  for (std::size_t tier = 0; tier < tiers.size() && !pending.empty(); ++tier) {
    if (tier > 0) stats.rerun_jobs += pending.size();
    runner.run(pending, true, tiers[tier], results);
    file(pending, rerun);
    std::swap(pending, rerun);
  }
  // Bands that outgrew them: rings in global memory, by size (the jobs are in launch order, so their
  // sizes do not increase), each size in one run; when the device cannot hold one warp's rings, the CPU.
  stats.rerun_jobs += pending.size();
  const std::uint32_t at_least = 2 * tiers.back();
  for (std::size_t begin = 0; begin < pending.size();) {
    const std::uint32_t rows = xdrop_global_rows(pending[begin], at_least);
    std::size_t end = begin + 1;
    while (end < pending.size() && xdrop_global_rows(pending[end], at_least) == rows) ++end;
    const std::vector<XdropJob> group(pending.begin() + static_cast<std::ptrdiff_t>(begin),
                                      pending.begin() + static_cast<std::ptrdiff_t>(end));
    if (runner.run(group, false, rows, results)) {
      file(group, rerun);
      // Cannot happen (the rings hold any band of the job), but never a wrong result: the CPU.
      for (const XdropJob& job : rerun) host_slots.push_back(job.slot);
    } else {
      for (const XdropJob& job : group) host_slots.push_back(job.slot);
    }
    begin = end;
  }
}

// On the CPU: extensions too long for 32-bit scores, or whose band has no room on the device.
void run_host_jobs(const std::vector<XdropTask>& tasks, std::size_t first, const std::vector<std::uint32_t>& host_slots,
                   XdropAligner& host, std::vector<Extension>& extensions, XdropRunStats& stats) {
  stats.host_jobs += host_slots.size();
  std::string left_query, left_target;
  for (const std::uint32_t slot : host_slots) {
    const XdropTask& task = tasks[first + slot / 2];
    const Seed& seed = task.seed;
    const std::uint64_t before = host.cells();
    if (slot % 2 == 0) {
      left_query.assign(task.query.rend() - seed.query_begin, task.query.rend());
      left_target.assign(task.target.rend() - seed.target_begin, task.target.rend());
      extensions[slot] = host.extend(left_query, left_target);
    } else {
      extensions[slot] = host.extend(task.query.substr(seed.query_begin + seed.length),
                                     task.target.substr(seed.target_begin + seed.length));
    }
    stats.cells += host.cells() - before;
  }
}

// One batch: tasks[first, last), whose residues (`residues` bytes) are staged together.
void align_batch(const std::vector<XdropTask>& tasks, std::size_t first, std::size_t last, std::uint64_t residues,
                 const std::vector<std::int64_t>& seed_scores, const ScoringScheme& scoring, XdropJobRunner& runner,
                 XdropAligner& host, std::vector<XdropSpan>& out, XdropRunStats& stats) {
  const std::size_t count = last - first;
  // Extensions by slot: 2 * (task - first) left, + 1 right.
  std::vector<Extension> extensions(2 * count);
  BatchJobs jobs = plan_batch_jobs(tasks, first, count, scoring, stats);

  // The residues staged for the device (checked on the way; without device jobs only checked: the CPU
  // engine indexes its table with them too), on several threads for a large batch: copying 100 MB into
  // pinned memory takes about as long as the kernels.
  std::uint8_t* staged = jobs.device.empty() ? nullptr : runner.stage_residues(residues);
  const std::size_t bad = stage_and_check(tasks, first, count, jobs.query_offsets, staged, residues);
  if (bad < count) {
    const XdropTask& task = tasks[first + bad];
    if (largest_code(nullptr, task.query) >= kMaxCodes) throw_bad_code(first + bad, "query", task.query);
    throw_bad_code(first + bad, "target", task.target);
  }

  if (!jobs.device.empty()) run_device_jobs(std::move(jobs.device), runner, extensions, jobs.host_slots, stats);
  run_host_jobs(tasks, first, jobs.host_slots, host, extensions, stats);

  // The spans, as reference::xdrop_reference assembles them.
  for (std::size_t local = 0; local < count; ++local) {
    const Seed& seed = tasks[first + local].seed;
    XdropSpan& span = out[first + local];
    span.seed_score = seed_scores[first + local];
    span.left = extensions[2 * local];
    span.right = extensions[2 * local + 1];
    span.score = span.seed_score + span.left.score + span.right.score;
    span.query_begin = seed.query_begin - span.left.query_length;
    span.subject_begin = seed.target_begin - span.left.target_length;
    span.query_end = seed.query_begin + seed.length + span.right.query_length;
    span.subject_end = seed.target_begin + seed.length + span.right.target_length;
  }
}

}  // namespace

void align_xdrop_tasks(const std::vector<XdropTask>& tasks, const ScoringScheme& scoring, XdropJobRunner& runner,
                       XdropAligner& host, std::uint64_t batch_residues, std::vector<XdropSpan>& out,
                       XdropRunStats& stats) {
  out.assign(tasks.size(), XdropSpan{});
  // Every seed first, in order, so that nothing is aligned when one is bad.
  std::vector<std::int64_t> seed_scores(tasks.size());
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    try {
      seed_scores[k] = seed_score(tasks[k].query, tasks[k].target, tasks[k].seed, scoring);
    } catch (const std::out_of_range& e) {
      throw std::out_of_range("pair " + std::to_string(k) + ": " + e.what());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("pair " + std::to_string(k) + ": " + e.what());
    }
  }
  for (std::size_t first = 0; first < tasks.size();) {
    std::size_t last = first;
    std::uint64_t residues = 0;
    while (last < tasks.size()) {
      const std::uint64_t size = tasks[last].query.size() + tasks[last].target.size();
      if (last > first && residues + size > batch_residues) break;
      residues += size;
      ++last;
    }
    align_batch(tasks, first, last, residues, seed_scores, scoring, runner, host, out, stats);
    first = last;
  }
}

}  // namespace warpsearch::gpu::detail
