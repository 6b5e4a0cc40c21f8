// GpuPairAligner: the API: validation, the score tables, options, and align(), which runs the host plan
// (kernels/gpu/pair_plan.hpp) and hands each batch to the pipeline (kernels/gpu/pair_pipeline.cu, where the
// passes and streams are described; kernels/gpu/pair_kernel.cuh holds the kernel itself).
#include "kernels/gpu/pair_aligner.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gpu/pair_aligner_impl.cuh"

namespace warpsearch::gpu {

GpuPairAligner::GpuPairAligner(int device, const ScoringScheme& scoring) {
  const cudaDeviceProp properties = detail::device_properties(device);
  ScopedDevice scoped(device);
  impl_ = std::make_unique<Impl>(device);
  Impl& s = *impl_;
  s.make_streams(s.kernel_options.reverse_first);
  s.name = properties.name;
  s.sm_count = properties.multiProcessorCount;
  s.open = scoring.gap_open();
  s.extend = scoring.gap_extend();
  const Alphabet& alphabet = scoring.matrix().alphabet();
  s.alphabet_codes = alphabet.size() + 1;
  s.alphabet_name = alphabet.name();
  // One representative code per compact code: the distinct letters codes are scored as, then padding.
  std::vector<std::uint8_t> representative;
  for (int c = 0; c < alphabet.size(); ++c) {
    const std::uint8_t scored = alphabet.scored_as(static_cast<std::uint8_t>(c));
    if (std::find(representative.begin(), representative.end(), scored) == representative.end())
      representative.push_back(scored);
  }
  representative.push_back(alphabet.pad_code());
  s.alphabet_rows = static_cast<int>(representative.size());
  std::fill(std::begin(s.compact.code), std::end(s.compact.code), static_cast<std::uint8_t>(s.alphabet_rows - 1));
  for (int c = 0; c < alphabet.size(); ++c)
    s.compact.code[c] = static_cast<std::uint8_t>(
        std::find(representative.begin(), representative.end(), alphabet.scored_as(static_cast<std::uint8_t>(c))) -
        representative.begin());

  // s + o for every pair of compact codes (padding included: it scores the matrix minimum).
  const int first = s.open + s.extend;
  const int a_rows = s.alphabet_rows;
  std::vector<int> target_rows(static_cast<std::size_t>(a_rows) * a_rows);
  std::vector<int> query_rows(target_rows.size());
  int max_profile = INT_MIN;
  for (int a = 0; a < a_rows; ++a)
    for (int b = 0; b < a_rows; ++b) {
      const auto index = static_cast<std::size_t>(a * a_rows + b);
      const std::uint8_t code_a = representative[static_cast<std::size_t>(a)];
      const std::uint8_t code_b = representative[static_cast<std::size_t>(b)];
      target_rows[index] = scoring.score(code_b, code_a) + first;
      query_rows[index] = scoring.score(code_a, code_b) + first;
      if (target_rows[index] > 127 || target_rows[index] < -128) s.wide = true;
      max_profile = std::max(max_profile, target_rows[index]);
    }
  s.pack_limit = detail::pair_pack_limit(scoring.matrix().max_score(), max_profile, s.extend, s.wide);
  const std::size_t element = s.wide ? 2 : 1;
  auto upload = [&](const std::vector<int>& values, DeviceBuffer<std::uint8_t>& buffer) {
    std::vector<std::uint8_t> bytes(values.size() * element);
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (s.wide) {
        const auto v = static_cast<std::int16_t>(values[k]);
        std::memcpy(bytes.data() + 2 * k, &v, 2);
      } else {
        bytes[k] = static_cast<std::uint8_t>(static_cast<std::int8_t>(values[k]));
      }
    }
    buffer = DeviceBuffer<std::uint8_t>(bytes.size(), s.device);
    detail::copy_to_device(buffer.get(), bytes.data(), bytes.size());
  };
  upload(target_rows, s.table_target_rows);
  upload(query_rows, s.table_query_rows);

  for (int shape = 0; shape < kPairShapeCount; ++shape) {
    const auto& entry = shape_entries(s.wide, false)[static_cast<std::size_t>(shape)];
    if (entry.prepare == nullptr) continue;  // a packed shape of 16-bit elements: never chosen
    const detail::PairShape& k = kPairShapes[shape];
    const std::size_t bytes = s.wide ? detail::pair_shared_bytes<std::int16_t>(k.group, k.regs, a_rows, k.packed)
                                     : detail::pair_shared_bytes<std::int8_t>(k.group, k.regs, a_rows, k.packed);
    if (bytes > properties.sharedMemPerBlockOptin)
      throw std::runtime_error("GPU " + s.name + ": the pair kernel needs " + std::to_string(bytes) +
                               " bytes of shared memory per block, the device allows " +
                               std::to_string(properties.sharedMemPerBlockOptin));
    entry.prepare(a_rows, &s.blocks_per_sm[static_cast<std::size_t>(shape)]);
    shape_entries(s.wide, true)[static_cast<std::size_t>(shape)].prepare(
        a_rows, &s.blocks_per_sm_stop[static_cast<std::size_t>(shape)]);
  }
}

GpuPairAligner::~GpuPairAligner() {
  if (impl_) {
    // Buffers free themselves on their device; make sure no work still uses them (errors ignored: a
    // destructor never throws).
    cudaStreamSynchronize(impl_->copy_stream.get());
    for (const auto& stream : impl_->forward_streams) cudaStreamSynchronize(stream.get());
    for (const auto& stream : impl_->reverse_streams) cudaStreamSynchronize(stream.get());
  }
}
GpuPairAligner::GpuPairAligner(GpuPairAligner&&) noexcept = default;
GpuPairAligner& GpuPairAligner::operator=(GpuPairAligner&&) noexcept = default;

std::string GpuPairAligner::device_name() const { return impl_->name; }
const GpuPairAligner::Timings& GpuPairAligner::last_timings() const { return impl_->timings; }
void GpuPairAligner::set_sub_batch_limits(const SubBatchLimits& limits) { impl_->plan.limits = limits; }
void GpuPairAligner::set_trace(bool on) { impl_->tracing = on; }
const std::vector<GpuPairAligner::TraceEntry>& GpuPairAligner::last_trace() const { return impl_->trace; }
void GpuPairAligner::set_kernel_options(const KernelOptions& options) {
  const int steps = options.early_exit_check_steps;
  if (steps < 1 || steps > 32 || (steps & (steps - 1)) != 0)
    throw std::invalid_argument("GpuPairAligner: early_exit_check_steps must be 1, 2, 4, 8, 16 or 32, not " +
                                std::to_string(steps));
  if (options.packed_length_limit < 0)
    throw std::invalid_argument("GpuPairAligner: packed_length_limit must be 0 (the proven bound) or positive, not " +
                                std::to_string(options.packed_length_limit));
  if (options.reverse_first != impl_->kernel_options.reverse_first) {
    ScopedDevice scoped(impl_->device);
    impl_->synchronize_all();
    impl_->make_streams(options.reverse_first);
  }
  impl_->kernel_options = options;
}

void GpuPairAligner::align(const std::vector<PairTask>& pairs, AlignmentMode mode, std::vector<Span>& out) {
  require_table_mode(mode, "GPU pair aligner");
  Impl& s = *impl_;
  ScopedDevice scoped(s.device);
  s.timings = Timings{};
  const auto clock = std::chrono::steady_clock::now();
  s.call_start = clock;
  s.trace.clear();
  if (s.tracing) WARPSEARCH_CUDA_CHECK(cudaEventRecord(s.trace_origin.get(), s.copy_stream.get()));
  // Codes are checked while packing (the first bad pair is then checked again alone, for its message);
  // lengths here. A too long sequence is rare: then every pair is checked in order, so that the first
  // bad pair is named whatever is wrong with it. Empty sequences are settled by the plan's first pass.
  out.resize(pairs.size());
  const bool local = mode == AlignmentMode::local;
  detail::PairPlan& plan = s.plan;
  const detail::PairCounts counts = plan.count_pairs(pairs, mode, s.open, s.extend, out, s.threads);
  s.trace_host("lengths", 0, clock, s.threads.last_participants());
  // Inputs of several batches keep input order: sorted, their last batch held only the smallest pairs,
  // whose host packing then outlasted the device (1 M pairs, H100: 849 against 925 GCUPS).
  const std::uint64_t batch_residues = s.batch_residues_for(counts);
  const bool one_batch = counts.residues <= batch_residues && counts.listed <= kBatchPairs;
  detail::LayoutTotals layout;
  if (plan.limits.largest_first && one_batch) {
    layout = plan.sort_by_size_class(counts);
  } else {
    plan.list_in_input_order();
  }
  if (counts.too_long)
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      s.check_codes(pairs[k].query, k, "query");
      s.check_codes(pairs[k].target, k, "target");
    }
  s.timings.pack += seconds_since(clock);
  s.trace_host("check", 0, clock);
  const std::vector<std::size_t>& work = plan.work;
  if (work.empty()) return;
  if (one_batch) {
    if (!plan.batch_presorted) layout = s.lay_out(pairs, work.data(), work.size(), local);
    s.align_batch(pairs, work.data(), work.size(), mode, layout, out);
    if (s.tracing) s.finish_trace();
    return;
  }
  std::size_t first = 0;
  std::uint64_t residues = 0;
  for (std::size_t i = 0; i <= work.size(); ++i) {
    const std::uint64_t size = i < work.size() ? pairs[work[i]].query.size() + pairs[work[i]].target.size() : 0;
    const bool flush =
        i == work.size() || (i > first && (residues + size > batch_residues || i - first >= kBatchPairs));
    if (flush && i > first) {
      layout = s.lay_out(pairs, work.data() + first, i - first, local);
      s.align_batch(pairs, work.data() + first, i - first, mode, layout, out);
      first = i;
      residues = 0;
    }
    residues += size;
  }
  if (s.tracing) s.finish_trace();
}

}  // namespace warpsearch::gpu
