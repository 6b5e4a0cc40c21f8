// GpuPairAligner's pipeline: a batch of pairs, laid out by the plan (kernels/gpu/pair_plan.hpp), through
// the streams, and the small kernels between its passes (see kernels/gpu/pair_kernel.cuh for the pass
// kernel itself).
//
// Per batch of pairs (at most 2^28 residues and 4 M pairs; 100,000 protein pairs are one batch):
//   forward pass: one job per pair; local: rows = target, columns = query (the query's profile);
//                 semi-global and global: rows = query, columns = target (the end is read in the
//                 last row). Gives the score and the end.
//   reverse pass: local pairs of positive score and semi-global pairs with a non-empty target part:
//                 the same kernel on the prefixes ending at the end, read backwards; its end is the
//                 start. Global spans are the whole pair: no reverse pass.
//
// Pipeline. A batch's pairs are ordered by size, largest first (one warp aligns a pair, so the long
// ones must start early), and cut into up to 8 sub-batches of contiguous pairs and about equal cells. The
// calling thread (with a pool of host threads) lays out and packs sub-batch k + 1 into pinned memory,
// checks its codes and orders its forward jobs while the device works on sub-batch k; nothing of a sub-batch
// waits for the host once it is enqueued:
//   copy stream:      residues and forward jobs up, residue codes -> compact codes;
//   forward streams:  (4) the forward jobs, grouped by kernel shape (by column count, pair_shape_for),
//                     each group by cells, largest first (grid-stride loops end with short jobs);
//   reverse streams:  (3) a small kernel turns the forward ends into spans and reverse jobs, compacted
//                     by shape (atomic counters); the reverse launches read their job range on the
//                     device; a last small kernel adds the starts to the spans (and checks that the
//                     reverse score equals the forward score); the spans go back to pinned memory.
// Forward streams move on to the next sub-batch while the reverse streams finish this one. Every
// stream has its own tile-edge buffer. The host waits once per batch, at the end, and writes the spans
// into `out`. Warm calls allocate nothing (buffers, events and threads are kept).
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gpu/pair_aligner_impl.cuh"

namespace warpsearch::gpu {
namespace {

// Residue codes -> compact codes (the profile's rows), in place.
__global__ void compact_codes_kernel(std::uint8_t* residues, std::uint64_t count, CompactMap map) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride)
    residues[k] = map.code[residues[k]];
}

// The reverse jobs of a sub-batch, step 1: how many per shape (counters[0..S-1], zeroed before).
__global__ void count_reverse_jobs_kernel(const PairJob* jobs, const PairEnd* ends, std::uint32_t count,
                                          AlignmentMode mode, PairShapeWidths widths, std::uint32_t pack_limit,
                                          std::uint32_t* counters) {
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    PairJob reverse;
    if (detail::reverse_job_of(mode, jobs[k], ends[k], reverse))
      atomicAdd(&counters[detail::pair_shape_for(reverse.cols, widths, reverse.rows, pack_limit)], 1u);
  }
}

// Step 2: every job's span as far as the forward pass gives it, and the reverse jobs, shape by shape
// (in any order within a shape) at reverse_jobs[range of the shape]; source[slot] = the forward job,
// reverse_scores[slot] its score (the reverse pass's best: its early exit, pair_kernel.cuh).
// ranges[2 s], ranges[2 s + 1] = first slot and count of shape s.
__global__ void build_reverse_jobs_kernel(const PairJob* jobs, const PairEnd* ends, std::uint32_t count,
                                          AlignmentMode mode, PairShapeWidths widths, std::uint32_t pack_limit,
                                          std::uint32_t* counters, std::uint32_t* ranges, PairJob* reverse_jobs,
                                          std::uint32_t* source, std::int32_t* reverse_scores,
                                          detail::DeviceSpan* spans) {
  std::uint32_t first[kPairShapeCount];
  std::uint32_t total = 0;
  for (int s = 0; s < kPairShapeCount; ++s) {
    first[s] = total;
    total += counters[s];
  }
  if (blockIdx.x == 0 && threadIdx.x < kPairShapeCount) {
    ranges[2 * threadIdx.x] = first[threadIdx.x];
    ranges[2 * threadIdx.x + 1] = counters[threadIdx.x];
  }
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const PairJob job = jobs[k];
    const PairEnd end = ends[k];
    spans[k] = detail::forward_span(mode, job, end);
    PairJob reverse;
    if (detail::reverse_job_of(mode, job, end, reverse)) {
      const int shape = detail::pair_shape_for(reverse.cols, widths, reverse.rows, pack_limit);
      const std::uint32_t slot = first[shape] + atomicAdd(&counters[kPairShapeCount + shape], 1u);
      reverse_jobs[slot] = reverse;
      source[slot] = k;
      reverse_scores[slot] = end.score;
    }
  }
}

// Step 3, after the reverse pass: the starts. A reverse score other than the forward score (an
// internal error) records the smallest such job, with the reverse score, in *error.
__global__ void apply_reverse_ends_kernel(const std::uint32_t* counters, const PairEnd* reverse_ends,
                                          const std::uint32_t* source, AlignmentMode mode, detail::DeviceSpan* spans,
                                          unsigned long long* error) {
  std::uint32_t total = 0;
  for (int s = 0; s < kPairShapeCount; ++s) total += counters[s];
  for (std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < total; r += gridDim.x * blockDim.x) {
    const std::uint32_t k = source[r];
    const PairEnd end = reverse_ends[r];
    detail::DeviceSpan span = spans[k];
    if (end.score != span.score)
      atomicMin(error, (static_cast<unsigned long long>(k) << 32) | static_cast<std::uint32_t>(end.score));
    detail::apply_reverse_end(mode, end, span);
    spans[k] = span;
  }
}

int small_kernel_grid(std::size_t count) {
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>((count + 255) / 256, 1024)));
}

// Copies codes to `to` and returns their largest code (0 for none): one pass over the source, the
// check reading the copy while it is in cache.
unsigned char copy_codes(std::uint8_t* to, std::string_view codes) {
  std::memcpy(to, codes.data(), codes.size());
  unsigned char largest = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) largest = std::max(largest, to[i]);
  return largest;
}

}  // namespace

// Aligns the pairs members[0..count) (non-empty sequences, valid lengths), whose residues fit one batch,
// cut into sub-batches (plan.bounds) and laid out (plan.query_offset, plan.jobs; a batch sorted by size
// class one sub-batch at a time, here), and writes their spans into `out`.
void GpuPairAligner::Impl::align_batch(const std::vector<PairTask>& pairs, const std::size_t* members,
                                       std::size_t count, AlignmentMode mode, const detail::LayoutTotals& layout,
                                       std::vector<Span>& out) {
  auto clock = std::chrono::steady_clock::now();
  const bool local = mode == AlignmentMode::local;
  timings.forward_cells += layout.cells;
  const std::size_t sub_batches = plan.bounds.size() - 1;
  timings.sub_batches += static_cast<std::uint32_t>(sub_batches);
  const std::size_t edge_words = edge_words_for(layout.stride);
  reserve_batch(count, layout.residues, sub_batches, edge_words);
  const std::uint32_t pack = pass_pack_limit(local);
  const PairKernelParams params = pass_params(mode);
  timings.pack += seconds_since(clock);
  trace_host("plan", 0, clock);

  // Launches go round robin over the streams, continuing from sub-batch to sub-batch: pairs batched
  // largest first make sub-batches of one or two kernel shapes.
  std::size_t forward_launches = 0;
  std::size_t reverse_launches = 0;
  for (std::size_t part = 0; part < sub_batches; ++part) {
    clock = std::chrono::steady_clock::now();
    const detail::StagedSubBatch sub = pack_sub_batch(pairs, members, part, local, pack);
    timings.pack += seconds_since(clock);
    trace_host("pack", part, clock, threads.last_participants());

    clock = std::chrono::steady_clock::now();
    if (part == 0 && timings.host_first_upload == 0) timings.host_first_upload = seconds_since(call_start);
    enqueue_upload(sub, part);
    enqueue_forward(sub, part, params, edge_words, forward_launches);
    enqueue_reverse(sub, part, params, edge_words, reverse_launches);
    timings.host_enqueue += seconds_since(clock);
    trace_host("enqueue", part, clock);
  }

  // Results, sub-batch by sub-batch as they arrive.
  for (std::size_t part = 0; part < sub_batches; ++part) collect_sub_batch(members, part, mode, out);
  timings.passes += elapsed_seconds(events[0]->forward_begin, events[sub_batches - 1]->reverse_end);
}

// Buffers and edges for the whole batch, before anything is enqueued (growing keeps the old one: OutgrownBuffers).
void GpuPairAligner::Impl::reserve_batch(std::size_t count, std::uint64_t residues, std::size_t sub_batches,
                                         std::size_t edge_words) {
  for (auto& edge : edges) outgrown.grow(edge, edge_words, device);
  outgrown.grow(h_residues, residues);
  outgrown.grow(h_jobs, count);
  outgrown.grow(h_spans, count);
  outgrown.grow(h_errors, sub_batches);
  outgrown.grow(d_residues, residues, device);
  outgrown.grow(d_jobs, count, device);
  outgrown.grow(d_ends, count, device);
  outgrown.grow(d_reverse_jobs, count, device);
  outgrown.grow(d_reverse_ends, count, device);
  outgrown.grow(d_reverse_source, count, device);
  outgrown.grow(d_reverse_scores, count, device);
  outgrown.grow(d_spans, count, device);
  outgrown.grow(d_counters, sub_batches * kCounterWords, device);
  outgrown.grow(d_ranges, sub_batches * kCounterWords, device);
  outgrown.grow(d_errors, sub_batches, device);
  while (events.size() < sub_batches) events.push_back(std::make_unique<SubBatchEvents>());
  order.resize(count);
  WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(d_counters.get(), 0, sub_batches * kCounterWords * sizeof(std::uint32_t),
                                        reverse_streams[0].get()));
  WARPSEARCH_CUDA_CHECK(
      cudaMemsetAsync(d_errors.get(), 0xFF, sub_batches * sizeof(unsigned long long), reverse_streams[0].get()));
}

// Packed (16-bit) shapes: local passes only, both directions, pairs within the proven bound.
std::uint32_t GpuPairAligner::Impl::pass_pack_limit(bool local) const {
  if (!local || !kernel_options.packed_lanes) return 0;
  std::uint32_t limit = pack_limit;
  if (kernel_options.packed_length_limit > 0)
    limit = std::min(limit, static_cast<std::uint32_t>(kernel_options.packed_length_limit));
  return limit;
}

// The parameters every launch of the batch shares.
PairKernelParams GpuPairAligner::Impl::pass_params(AlignmentMode mode) const {
  PairKernelParams p;
  p.residues = d_residues.get();
  p.table = mode == AlignmentMode::local ? table_target_rows.get() : table_query_rows.get();
  p.alphabet_rows = alphabet_rows;
  p.gap_open = open;
  p.gap_extend = extend;
  p.mode = mode;
  return p;
}

// Packs and checks a sub-batch's residues (host threads), then orders its forward jobs for launch.
detail::StagedSubBatch GpuPairAligner::Impl::pack_sub_batch(const std::vector<PairTask>& pairs,
                                                            const std::size_t* members, std::size_t part, bool local,
                                                            std::uint32_t pass_pack_limit) {
  detail::StagedSubBatch sub;
  const std::size_t first = sub.first = plan.bounds[part];
  const std::size_t n = sub.count = plan.bounds[part + 1] - first;
  if (plan.batch_presorted) plan.lay_out_sorted(pairs, first, first + n, local, threads);
  const PairTask& last_pair = pairs[members[first + n - 1]];
  sub.residue_first = plan.query_offset[first];
  sub.residue_count =
      plan.query_offset[first + n - 1] + last_pair.query.size() + last_pair.target.size() - sub.residue_first;
  std::atomic<bool> bad_code{false};
  std::uint8_t* staged = h_residues.get();
  const auto copy_clock = std::chrono::steady_clock::now();
  threads.run(n, 64, sub.residue_count, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = first + begin; i < first + end; ++i) {
      const PairTask& task = pairs[members[i]];
      const unsigned char largest =
          std::max(copy_codes(staged + plan.query_offset[i], task.query),
                   copy_codes(staged + plan.query_offset[i] + task.query.size(), task.target));
      if (largest >= alphabet_codes) bad_code.store(true);
    }
  });
  timings.host_copy += seconds_since(copy_clock);
  if (bad_code.load()) {
    synchronize_all();  // earlier sub-batches may still read the buffers
    // Pairs are batched largest first: the first bad pair in input order is named.
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      check_codes(pairs[k].query, k, "query");
      check_codes(pairs[k].target, k, "target");
    }
  }
  std::uint32_t* part_order = order.data() + first;
  // Pairs batched largest first (align(), batch_presorted) are by cells already: then only grouped by
  // shape.
  detail::order_pair_jobs(plan.jobs.data() + first, n, part_sorted, part_shapes, order_scratch, pass_pack_limit,
                          plan.batch_presorted);
  std::copy(part_sorted.begin(), part_sorted.end(), part_order);
  sub.jobs = h_jobs.get() + first;
  for (std::size_t j = 0; j < n; ++j) {
    sub.jobs[j] = plan.jobs[first + part_order[j]];
    sub.max_cols = std::max(sub.max_cols, sub.jobs[j].cols);
    if (sub.jobs[j].cols > detail::kSinglePassColumns)
      sub.reverse_stride = std::max<std::uint64_t>(sub.reverse_stride, sub.jobs[j].rows);
  }
  return sub;
}

// Up: residues, jobs, compact codes.
void GpuPairAligner::Impl::enqueue_upload(const detail::StagedSubBatch& sub, std::size_t part) {
  SubBatchEvents& ev = *events[part];
  cudaStream_t copy = copy_stream.get();
  WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.upload_begin.get(), copy));
  traced("upload", part, -1, copy, -1, sub.count, [&] {
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(d_residues.get() + sub.residue_first, h_residues.get() + sub.residue_first,
                                          sub.residue_count, cudaMemcpyHostToDevice, copy));
    WARPSEARCH_CUDA_CHECK(
        cudaMemcpyAsync(d_jobs.get() + sub.first, sub.jobs, sub.count * sizeof(PairJob), cudaMemcpyHostToDevice, copy));
    compact_codes_kernel<<<small_kernel_grid(sub.residue_count / 4), 256, 0, copy>>>(
        d_residues.get() + sub.residue_first, sub.residue_count, compact);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
  });
  WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.upload_end.get(), copy));
}

// Forward: one launch per shape present, round robin over the forward streams; a stream waits for this
// sub-batch's upload only (not for other streams' earlier launches), and the reverse pass for the streams
// this sub-batch used.
void GpuPairAligner::Impl::enqueue_forward(const detail::StagedSubBatch& sub, std::size_t part, PairKernelParams p,
                                           std::size_t edge_words, std::size_t& launches) {
  SubBatchEvents& ev = *events[part];
  WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.forward_begin.get(), copy_stream.get()));  // the upload's end (Timings)
  const auto& entries = shape_entries(wide, false);
  constexpr PairShapeWidths widths = detail::pair_shape_widths();
  unsigned used_streams = 0;
  p.reverse = false;
  const std::size_t n = sub.count;
  for (std::size_t j = 0; j < n;) {
    const int shape = part_shapes[j];
    const std::uint32_t width = widths.width[shape];
    std::uint64_t stride = 0;
    std::size_t end = j;
    for (; end < n && part_shapes[end] == shape; ++end)
      if (sub.jobs[end].cols > width) stride = std::max<std::uint64_t>(stride, sub.jobs[end].rows);
    const int stream = launches++ % kForwardStreams;
    p.jobs = d_jobs.get() + sub.first + j;
    p.ends = d_ends.get() + sub.first + j;
    p.num_jobs = static_cast<int>(end - j);
    p.job_range = nullptr;
    p.edges = edges[static_cast<std::size_t>(stream)].get();
    p.edge_stride = stride;
    cudaStream_t on = forward_streams[static_cast<std::size_t>(stream)].get();
    if ((used_streams >> stream & 1u) == 0) {
      WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(on, ev.upload_end.get(), 0));
      used_streams |= 1u << stream;
    }
    traced("forward", part, stream, on, shape, end - j, [&] {
      entries[static_cast<std::size_t>(shape)].launch(p, launch_grid(shape, end - j, stride, edge_words), on);
    });
    j = end;
  }
  cudaStream_t join = reverse_streams[0].get();
  for (int s = 0; s < kForwardStreams; ++s) {
    if ((used_streams >> s & 1u) == 0) continue;
    const auto k = static_cast<std::size_t>(s);
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.forward_done[k].get(), forward_streams[k].get()));
    WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(join, ev.forward_done[k].get(), 0));
  }
  WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.forward_end.get(), join));
}

// Spans and reverse jobs on the device, then the reverse launches (job ranges read there), the starts
// into the spans, and the spans down.
void GpuPairAligner::Impl::enqueue_reverse(const detail::StagedSubBatch& sub, std::size_t part, PairKernelParams p,
                                           std::size_t edge_words, std::size_t& launches) {
  SubBatchEvents& ev = *events[part];
  const AlignmentMode mode = p.mode;
  const bool local = mode == AlignmentMode::local;
  const std::uint32_t pack = pass_pack_limit(local);
  constexpr PairShapeWidths widths = detail::pair_shape_widths();
  const std::size_t first = sub.first;
  const std::size_t n = sub.count;
  cudaStream_t join = reverse_streams[0].get();
  std::uint32_t* counters = d_counters.get() + part * kCounterWords;
  std::uint32_t* ranges = d_ranges.get() + part * kCounterWords;
  const auto n32 = static_cast<std::uint32_t>(n);
  traced("build", part, kForwardStreams, join, -1, n, [&] {
    count_reverse_jobs_kernel<<<small_kernel_grid(n), 256, 0, join>>>(d_jobs.get() + first, d_ends.get() + first, n32,
                                                                      mode, widths, pack, counters);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
    build_reverse_jobs_kernel<<<small_kernel_grid(n), 256, 0, join>>>(
        d_jobs.get() + first, d_ends.get() + first, n32, mode, widths, pack, counters, ranges,
        d_reverse_jobs.get() + first, d_reverse_source.get() + first, d_reverse_scores.get() + first,
        d_spans.get() + first);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
  });
  if (mode != AlignmentMode::global) {
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.built.get(), join));
    for (int s = 1; s < kReverseStreams; ++s)
      WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(reverse_streams[static_cast<std::size_t>(s)].get(), ev.built.get(), 0));
    const unsigned shapes = detail::pair_shapes_up_to(sub.max_cols, pack);
    p.reverse = true;
    p.stop_scores = local && kernel_options.reverse_early_exit ? d_reverse_scores.get() + first : nullptr;
    p.stop_check_mask = kernel_options.early_exit_check_steps - 1;
    const auto& reverse_entries = shape_entries(wide, p.stop_scores != nullptr);
    for (int shape = kPairShapeCount - 1; shape >= 0; --shape) {
      if ((shapes >> shape & 1u) == 0) continue;
      const bool tiled = shape >= detail::kFirstTiledShape;
      const int stream = launches++ % kReverseStreams;
      p.jobs = d_reverse_jobs.get() + first;
      p.ends = d_reverse_ends.get() + first;
      p.num_jobs = static_cast<int>(n);
      p.job_range = ranges + 2 * shape;
      p.edges = edges[static_cast<std::size_t>(kForwardStreams + stream)].get();
      p.edge_stride = tiled ? sub.reverse_stride : 0;
      const int grid = launch_grid(shape, n, p.edge_stride, edge_words, p.stop_scores != nullptr);
      cudaStream_t on = reverse_streams[static_cast<std::size_t>(stream)].get();
      traced("reverse", part, kForwardStreams + stream, on, shape, 0,
             [&] { reverse_entries[static_cast<std::size_t>(shape)].launch(p, grid, on); });
    }
    for (int s = 1; s < kReverseStreams; ++s) {
      const auto k = static_cast<std::size_t>(s);
      WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.reverse_done[k].get(), reverse_streams[k].get()));
      WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(join, ev.reverse_done[k].get(), 0));
    }
    traced("apply", part, kForwardStreams, join, -1, n, [&] {
      apply_reverse_ends_kernel<<<small_kernel_grid(n), 256, 0, join>>>(counters, d_reverse_ends.get() + first,
                                                                        d_reverse_source.get() + first, mode,
                                                                        d_spans.get() + first, d_errors.get() + part);
      WARPSEARCH_CUDA_CHECK_LAUNCH();
    });
  }
  traced("download", part, kForwardStreams, join, -1, n, [&] {
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(h_spans.get() + first, d_spans.get() + first, n * sizeof(detail::DeviceSpan),
                                          cudaMemcpyDeviceToHost, join));
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(h_errors.get() + part, d_errors.get() + part, sizeof(unsigned long long),
                                          cudaMemcpyDeviceToHost, join));
  });
  WARPSEARCH_CUDA_CHECK(cudaEventRecord(ev.reverse_end.get(), join));
}

// Waits for a sub-batch and writes its spans into `out` on the pool's threads: the writes land all over it
// (members by size), a cache miss each; the last sub-batch, the one with the most pairs, is the call's
// host tail.
void GpuPairAligner::Impl::collect_sub_batch(const std::size_t* members, std::size_t part, AlignmentMode mode,
                                             std::vector<Span>& out) {
  const bool local = mode == AlignmentMode::local;
  SubBatchEvents& ev = *events[part];
  auto clock = std::chrono::steady_clock::now();
  WARPSEARCH_CUDA_CHECK(cudaEventSynchronize(ev.reverse_end.get()));
  timings.host_wait += seconds_since(clock);
  trace_host("wait", part, clock);
  clock = std::chrono::steady_clock::now();
  const std::size_t first = plan.bounds[part];
  const std::size_t n = plan.bounds[part + 1] - first;
  const std::uint32_t* part_order = order.data() + first;
  const detail::DeviceSpan* spans = h_spans.get() + first;
  if (h_errors.get()[part] != kNoError) {
    synchronize_all();
    const std::size_t j = static_cast<std::size_t>(h_errors.get()[part] >> 32);
    const auto reverse_score = static_cast<std::int32_t>(static_cast<std::uint32_t>(h_errors.get()[part]));
    throw std::logic_error("GPU pair aligner: pair " + std::to_string(members[first + part_order[j]]) +
                           ": the reverse pass scores " + std::to_string(reverse_score) + ", the forward pass " +
                           std::to_string(spans[j].score));
  }
  std::atomic<std::uint64_t> reverse_cells{0}, reverse_cells_to_start{0};
  threads.run(n, 2048, n * 64, [&](std::size_t begin, std::size_t end) {
    std::uint64_t cells = 0, cells_to_start = 0;
    for (std::size_t j = begin; j < end; ++j) {
      const detail::DeviceSpan& span = spans[j];
      out[members[first + part_order[j]]] =
          Span{span.score, span.query_begin, span.query_end, span.subject_begin, span.subject_end};
      if (local ? span.score > 0 : mode == AlignmentMode::semiglobal && span.subject_end > 0)
        cells +=
            local ? std::uint64_t{span.subject_end} * span.query_end : std::uint64_t{span.query_end} * span.subject_end;
      if (local && span.score > 0)
        cells_to_start += std::uint64_t{span.subject_end - span.subject_begin} * span.query_end;
    }
    reverse_cells.fetch_add(cells, std::memory_order_relaxed);
    reverse_cells_to_start.fetch_add(cells_to_start, std::memory_order_relaxed);
  });
  timings.reverse_cells += reverse_cells.load();
  timings.reverse_cells_to_start += reverse_cells_to_start.load();
  timings.pack += seconds_since(clock);
  trace_host("spans", part, clock, threads.last_participants());
  timings.upload += elapsed_seconds(ev.upload_begin, ev.upload_end);
  timings.forward += elapsed_seconds(ev.forward_begin, ev.forward_end);
  timings.reverse += elapsed_seconds(ev.forward_end, ev.reverse_end);
}

}  // namespace warpsearch::gpu
