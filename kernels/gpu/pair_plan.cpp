#include "kernels/gpu/pair_plan.hpp"

#include <algorithm>
#include <array>

namespace warpsearch::gpu::detail {

PairCounts PairPlan::count_pairs(const std::vector<PairTask>& pairs, AlignmentMode mode, int gap_open, int gap_extend,
                                 std::vector<Span>& out, HostThreads& threads) {
  const bool largest_first = limits.largest_first;
  const bool local = mode == AlignmentMode::local;
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(64, pairs.size() / 2048));
  auto chunk_begin = [&](std::size_t c) { return pairs.size() * c / chunks; };
  listed_pairs_.resize(pairs.size());
  size_class_of_.resize(pairs.size());
  sort_chunks_ = chunks;
  sort_pairs_ = pairs.size();
  chunk_counts_.assign(chunks, ChunkCount{});
  // Tallies [size class][chunk], so that the offsets' serial pass reads them in order; each chunk counts
  // in its own array and writes out its classes' range (the other entries are stale, never read).
  if (largest_first) class_tallies_.resize(chunks * kSizeClasses);
  constexpr std::size_t kMaxLength = GpuPairAligner::kMaxSequenceLength;
  threads.run(chunks, 1, chunks > 1 ? HostThreads::kParallelBytes : 0,
              [&](std::size_t first_chunk, std::size_t end_chunk) {
                for (std::size_t c = first_chunk; c < end_chunk; ++c) {
                  ChunkCount count;
                  std::array<ClassTally, kSizeClasses> tally{};
                  for (std::size_t k = chunk_begin(c); k < chunk_begin(c + 1); ++k) {
                    const std::size_t m = pairs[k].query.size();
                    const std::size_t n = pairs[k].target.size();
                    count.too_long = count.too_long || m > kMaxLength || n > kMaxLength;
                    if (m > 0 && n > 0) {
                      const std::size_t at = chunk_begin(c) + count.listed++;
                      listed_pairs_[at] = k;
                      if (largest_first) {
                        const std::uint64_t cells = std::uint64_t{m} * n;
                        const std::uint16_t size_class = pair_size_class(cells);
                        size_class_of_[at] = size_class;
                        ClassTally& t = tally[size_class];
                        ++t.pairs;
                        t.residues += m + n;
                        t.cells += cells;
                        count.smallest_class = std::min(count.smallest_class, size_class);
                        count.largest_class = std::max(count.largest_class, size_class);
                      }
                      count.residues += m + n;
                      const std::size_t rows = local ? n : m;  // forward_job's
                      if ((local ? m : n) > kSinglePassColumns)
                        count.stride = std::max<std::uint64_t>(count.stride, rows);
                      continue;
                    }
                    Span& span = out[k];
                    span = Span{};
                    if (local || (mode == AlignmentMode::semiglobal && m == 0)) continue;
                    const auto gap = static_cast<std::uint32_t>(m + n);  // one of them is 0
                    span.score = gap == 0 ? 0 : -(gap_open + static_cast<int>(gap) * gap_extend);
                    span.query_end = static_cast<std::uint32_t>(m);
                    span.subject_end = mode == AlignmentMode::global ? static_cast<std::uint32_t>(n) : 0;
                  }
                  for (std::size_t size_class = count.smallest_class; size_class <= count.largest_class; ++size_class)
                    class_tallies_[size_class * chunks + c] = tally[size_class];
                  chunk_counts_[c] = count;
                }
              });
  PairCounts totals;
  for (const ChunkCount& count : chunk_counts_) {
    totals.listed += count.listed;
    totals.residues += count.residues;
    totals.too_long = totals.too_long || count.too_long;
    if (count.listed == 0) continue;
    totals.smallest_class = std::min<std::size_t>(totals.smallest_class, count.smallest_class);
    totals.largest_class = std::max<std::size_t>(totals.largest_class, count.largest_class);
  }
  work.resize(totals.listed);
  return totals;
}

void PairPlan::list_in_input_order() {
  batch_presorted = false;
  const std::size_t chunks = sort_chunks_;
  std::size_t to = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t chunk_begin = sort_pairs_ * c / chunks;
    for (std::size_t i = chunk_begin; i < chunk_begin + chunk_counts_[c].listed; ++i) work[to++] = listed_pairs_[i];
  }
}

// Where each chunk's pairs of each size class go: classes from the largest, chunks in order (a stable
// counting sort); the runs of positions per class cut the sub-batches, and each sub-batch is laid out
// just before it is packed (lay_out_sorted).
LayoutTotals PairPlan::sort_by_size_class(const PairCounts& counts) {
  batch_presorted = true;
  const std::size_t chunks = sort_chunks_;
  ClassTally next;
  std::uint64_t stride = 0;
  class_runs_.clear();
  for (std::size_t size_class = counts.largest_class + 1; size_class-- > counts.smallest_class;) {
    SizeClassRun run;
    run.size_class = static_cast<std::uint16_t>(size_class);
    run.first_position = next.pairs;
    run.first_cells = next.cells;
    for (std::size_t c = 0; c < chunks; ++c) {
      if (size_class < chunk_counts_[c].smallest_class || size_class > chunk_counts_[c].largest_class) continue;
      ClassTally& t = class_tallies_[size_class * chunks + c];
      const ClassTally here = t;
      t = next;
      next.pairs += here.pairs;
      next.residues += here.residues;
      next.cells += here.cells;
    }
    run.pairs = next.pairs - run.first_position;
    run.cells = next.cells - run.first_cells;
    if (run.pairs > 0) class_runs_.push_back(run);
  }
  for (std::size_t c = 0; c < chunks; ++c) stride = std::max(stride, chunk_counts_[c].stride);
  query_offset.resize(counts.listed);
  jobs.resize(counts.listed);
  split_runs_by_weight(class_runs_, sub_batch_parts(counts.residues, counts.listed), bounds, first_percent(),
                       last_percent());
  return LayoutTotals{counts.residues, next.cells, stride};
}

// In chunks on the pool's threads (this loop over every pair delays the first upload: 1.2 ms for
// 100,000 pairs on one core of the H100 machine), residues and cells per chunk first, then each chunk
// from its offsets.
LayoutTotals PairPlan::lay_out(const std::vector<PairTask>& pairs, const std::size_t* members, std::size_t count,
                               bool local, HostThreads& threads) {
  query_offset.resize(count);
  cell_prefix.resize(count + 1);
  jobs.resize(count);
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(64, count / 2048));
  const std::uint64_t layout_bytes = chunks > 1 ? HostThreads::kParallelBytes : 0;  // in parallel from 4,096 pairs
  chunk_sums_.assign(2 * (chunks + 1), 0);  // residues, then cells, before each chunk (after the scan)
  chunk_strides_.assign(chunks, 0);         // the rows of each chunk's longest multi-tile job
  auto chunk_begin = [&](std::size_t c) { return count * c / chunks; };
  threads.run(chunks, 1, layout_bytes, [&](std::size_t first_chunk, std::size_t end_chunk) {
    for (std::size_t c = first_chunk; c < end_chunk; ++c) {
      std::uint64_t chunk_residues = 0, chunk_cells = 0;
      for (std::size_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) {
        const PairTask& task = pairs[members[i]];
        chunk_residues += task.query.size() + task.target.size();
        chunk_cells += std::uint64_t{task.query.size()} * task.target.size();
      }
      chunk_sums_[c + 1] = chunk_residues;
      chunk_sums_[chunks + 1 + c + 1] = chunk_cells;
    }
  });
  for (std::size_t c = 0; c < chunks; ++c) {
    chunk_sums_[c + 1] += chunk_sums_[c];
    chunk_sums_[chunks + 1 + c + 1] += chunk_sums_[chunks + 1 + c];
  }
  threads.run(chunks, 1, layout_bytes, [&](std::size_t first_chunk, std::size_t end_chunk) {
    for (std::size_t c = first_chunk; c < end_chunk; ++c) {
      std::uint64_t at = chunk_sums_[c];
      std::uint64_t cells = chunk_sums_[chunks + 1 + c];
      std::uint64_t stride = 0;
      for (std::size_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) {
        const auto m = static_cast<std::uint32_t>(pairs[members[i]].query.size());
        const auto n = static_cast<std::uint32_t>(pairs[members[i]].target.size());
        query_offset[i] = at;
        jobs[i] = forward_job(at, m, n, local);
        at += std::uint64_t{m} + n;
        cell_prefix[i] = cells;
        cells += std::uint64_t{m} * n;
        if (jobs[i].cols > kSinglePassColumns) stride = std::max<std::uint64_t>(stride, jobs[i].rows);
      }
      chunk_strides_[c] = stride;
    }
  });
  cell_prefix[count] = chunk_sums_[2 * chunks + 1];
  const LayoutTotals totals{chunk_sums_[chunks], cell_prefix[count],
                            *std::max_element(chunk_strides_.begin(), chunk_strides_.end())};
  split_by_weight(cell_prefix, sub_batch_parts(totals.residues, count), bounds, first_percent(), last_percent());
  return totals;
}

// From the offsets the sort left in the class tallies. Each chunk walks its pairs of the classes those
// positions hold and keeps those that land inside. Laid out sub-batch by sub-batch, just before
// packing: only the first one's layout precedes the first upload (the whole batch's, scattered by size
// class, took 0.3-0.5 ms of 16 threads on the H100 machine).
void PairPlan::lay_out_sorted(const std::vector<PairTask>& pairs, std::size_t begin, std::size_t end, bool local,
                              HostThreads& threads) {
  auto run_of = [&](std::size_t position) {
    return std::upper_bound(class_runs_.begin(), class_runs_.end(), position,
                            [](std::size_t p, const SizeClassRun& run) { return p < run.first_position; }) -
           1;
  };
  const std::size_t largest = run_of(begin)->size_class;
  const std::size_t smallest = run_of(end - 1)->size_class;
  const std::size_t chunks = sort_chunks_;
  threads.run(chunks, 1, chunks > 1 ? HostThreads::kParallelBytes : 0,
              [&](std::size_t first_chunk, std::size_t end_chunk) {
                for (std::size_t c = first_chunk; c < end_chunk; ++c) {
                  const ChunkCount& count = chunk_counts_[c];
                  const std::size_t low = std::max<std::size_t>(smallest, count.smallest_class);
                  const std::size_t high = std::min<std::size_t>(largest, count.largest_class);
                  if (count.listed == 0 || low > high) continue;
                  std::array<ClassTally, kSizeClasses> cursor;  // this chunk's, here (no false sharing)
                  for (std::size_t size_class = low; size_class <= high; ++size_class)
                    cursor[size_class] = class_tallies_[size_class * chunks + c];
                  const std::size_t chunk_begin = sort_pairs_ * c / chunks;
                  for (std::size_t i = chunk_begin; i < chunk_begin + count.listed; ++i) {
                    const std::size_t size_class = size_class_of_[i];
                    if (size_class < low || size_class > high) continue;
                    const std::size_t k = listed_pairs_[i];
                    const auto m = static_cast<std::uint32_t>(pairs[k].query.size());
                    const auto n = static_cast<std::uint32_t>(pairs[k].target.size());
                    ClassTally& t = cursor[size_class];
                    const std::uint64_t to = t.pairs++;
                    if (to >= begin && to < end) {
                      work[to] = k;
                      query_offset[to] = t.residues;
                      jobs[to] = forward_job(t.residues, m, n, local);
                    }
                    t.residues += std::uint64_t{m} + n;
                  }
                }
              });
}

std::size_t PairPlan::sub_batch_parts(std::uint64_t residues, std::size_t count) const {
  return std::max<std::size_t>(
      1, std::min({std::max<std::size_t>(1, std::min<std::size_t>(64, limits.max_parts)),
                   static_cast<std::size_t>(residues / std::max<std::uint64_t>(1, limits.residues)),
                   count / std::max<std::size_t>(1, limits.min_pairs)}));
}

std::uint32_t PairPlan::first_percent() const {
  return std::max<std::uint32_t>(1, std::min<std::uint32_t>(100, limits.first_percent));
}

std::uint32_t PairPlan::last_percent() const {
  return std::max<std::uint32_t>(1, std::min<std::uint32_t>(100, limits.last_percent));
}

}  // namespace warpsearch::gpu::detail
