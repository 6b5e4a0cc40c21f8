// GpuScorer: device buffers, the substitution table and the length binning of the resident subjects; the
// launch sequence of one query is in kernels/gpu/gpu_scorer_queries.cu, the private state in
// kernels/gpu/gpu_scorer_impl.cuh, the kernels themselves in kernels/gpu/sw_kernel.cuh.
//
// Queries alternate between two slots, each with its own streams and work space, so that one query's
// tail overlaps the next query's start. Within a slot, per query:
//   main:     upload query, clear overflow count, fork
//   long:     cooperative bin (subjects longer than 4096), then the 32-bit rescoring of its saturated ones
//   worker k: the tiled bins (1025..4096, one per tile width), then the single-tile bins with the most
//             columns a lane first, round-robin over the 16 workers (bins run concurrently: most take
//             one job's time, m steps, whatever their size); the bins with tile edges share the edge
//             buffer in ranges
//   main:     join, 32-bit rescoring of saturated subjects (cooperative), copy scores to pinned host memory
#include "kernels/gpu/gpu_scorer_impl.cuh"

namespace warpsearch::gpu {

int usable_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return 0;
  }
  return count;
}

namespace {

__global__ void compact_codes(std::uint8_t* residues, std::size_t count, const CodeMap map) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    residues[i] = map.compact[residues[i]];
}

// The plan of every task: for each register, the 32 lanes' table entries (code pairs of their column)
// placed over the copies by plan_register; lane l's word holds its copy per register.
__global__ void plan_table_copies(const PlanTask* tasks, std::size_t count, const std::int32_t* jobs,
                                  const std::uint8_t* residues, const std::uint64_t* offsets,
                                  const std::uint32_t* lengths, int n, int copies, std::uint64_t* plan) {
  for (std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; t < count;
       t += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const PlanTask task = tasks[t];
    std::uint64_t words[32] = {};
    for (int j = 0; j < task.regs; ++j) {
      int entries[32];
      int choice[32];
      for (int l = 0; l < 32; ++l) {
        const int g = l / task.group;
        entries[l] = -1;
        if (g >= task.jobs) continue;
        const std::int32_t sa = jobs[2 * (task.first_job + g)];
        const std::int32_t sb = jobs[2 * (task.first_job + g) + 1];
        const std::uint32_t column =
            static_cast<std::uint32_t>(task.tile) * task.group * task.regs + (l % task.group) * task.regs + j;
        const int a = column < lengths[sa] ? residues[offsets[sa] + column] : n - 1;
        const int b = sb >= 0 && column < lengths[sb] ? residues[offsets[sb] + column] : n - 1;
        entries[l] = a * n + b;
      }
      detail::plan_register(entries, copies, choice);
      for (int l = 0; l < 32; ++l) words[l] |= static_cast<std::uint64_t>(choice[l]) << (detail::kPlanBits * j);
    }
    for (int l = 0; l < 32; ++l) plan[t * 32 + l] = words[l];
  }
}

// The copy each column of the cooperative bin's jobs reads in the streamed kernel (StreamPlanner), one
// thread per job (two subjects, jobs[2 j] and jobs[2 j + 1]), 2 bits a column.
__global__ void plan_stream_copies(const std::int32_t* jobs, int count, const std::uint8_t* residues,
                                   const std::uint64_t* offsets, const std::uint32_t* lengths, int n, int copies,
                                   const std::uint64_t* plan_offsets, std::uint8_t* plan) {
  for (int job = blockIdx.x * blockDim.x + threadIdx.x; job < count; job += gridDim.x * blockDim.x) {
    const std::int32_t sa = jobs[2 * job];
    const std::int32_t sb = jobs[2 * job + 1];
    const std::uint32_t la = lengths[sa];
    const std::uint32_t lb = sb >= 0 ? lengths[sb] : 0;
    const std::uint8_t* ra = residues + offsets[sa];
    const std::uint8_t* rb = sb >= 0 ? residues + offsets[sb] : ra;
    const std::uint32_t longest = la > lb ? la : lb;
    std::uint8_t* out = plan + plan_offsets[job];
    detail::StreamPlanner planner(copies);
    std::uint32_t packed = 0;
    for (std::uint32_t x = 0; x < longest; ++x) {
      const int a = x < la ? ra[x] : n - 1;
      const int b = x < lb ? rb[x] : n - 1;
      packed |= static_cast<std::uint32_t>(planner.choose(x, static_cast<std::uint32_t>(a * n + b))) << (2 * (x & 3));
      if ((x & 3) == 3 || x + 1 == longest) {
        out[x >> 2] = static_cast<std::uint8_t>(packed);
        packed = 0;
      }
    }
  }
}

}  // namespace

GpuScorer::GpuScorer(int device, const ScoringScheme& scoring, int table_copies) {
  if (table_copies < 1 || table_copies > detail::kMaxTableCopies)
    throw std::invalid_argument("GpuScorer: table copies must be 1 to " + std::to_string(detail::kMaxTableCopies) +
                                ", not " + std::to_string(table_copies));
  const cudaDeviceProp properties = detail::device_properties(device);
  ScopedDevice scoped(device);
  impl_ = std::make_unique<Impl>(device);
  Impl& s = *impl_;
  s.name = properties.name;
  s.sm_count = properties.multiProcessorCount;

  const SubstitutionMatrix& matrix = scoring.matrix();
  const Alphabet& alphabet = matrix.alphabet();
  s.alphabet_size = alphabet.size();
  // Distinct letters the codes are scored as (protein U -> C and O -> X share their letter's row).
  std::vector<std::uint8_t> letters;
  for (int c = 0; c < alphabet.size(); ++c) {
    const std::uint8_t scored = alphabet.scored_as(static_cast<std::uint8_t>(c));
    if (std::find(letters.begin(), letters.end(), scored) == letters.end()) letters.push_back(scored);
  }
  s.n = static_cast<int>(letters.size()) + 1;
  const int pad = s.n - 1;
  s.compact.fill(static_cast<std::uint8_t>(pad));
  for (int c = 0; c < alphabet.size(); ++c) {
    const std::uint8_t scored = alphabet.scored_as(static_cast<std::uint8_t>(c));
    s.compact[static_cast<std::size_t>(c)] =
        static_cast<std::uint8_t>(std::find(letters.begin(), letters.end(), scored) - letters.begin());
  }
  s.gap_first = scoring.gap_open() + scoring.gap_extend();
  s.gap_extend = scoring.gap_extend();

  // Padding scores at most 0 against everything: a column past a subject's end can never raise a
  // local score (every path through it continues from a cell of at least its value).
  const int pad_score = std::min(matrix.min_score(), 0);
  auto score_of = [&](int q, int a) {
    if (q == pad || a == pad) return pad_score;
    return matrix.score(letters[static_cast<std::size_t>(q)], letters[static_cast<std::size_t>(a)]);
  };
  // A small alphabet's table takes lane copies, which replace the planned ones (table_copies.hpp).
  s.lane_copies = detail::lane_copies_fit(s.n);
  if (s.lane_copies) table_copies = 1;
  // Copies that do not fit the device's shared memory are dropped (one copy must fit).
  const auto table_bytes = [&](int copies) {
    if (s.lane_copies) return static_cast<std::size_t>(s.n) * detail::lane_table_row_words(s.n) * sizeof(std::uint32_t);
    return static_cast<std::size_t>(s.n) * detail::table_row_words(s.n, copies) * sizeof(std::uint32_t);
  };
  while (table_copies > 1 && table_bytes(table_copies) > properties.sharedMemPerBlockOptin) --table_copies;
  if (table_bytes(1) > properties.sharedMemPerBlockOptin)
    throw std::runtime_error("GPU " + s.name + ": the substitution table needs " + std::to_string(table_bytes(1)) +
                             " bytes of shared memory, the device allows " +
                             std::to_string(properties.sharedMemPerBlockOptin));
  s.table_copies = table_copies;
  s.copy_words = detail::table_copy_words(s.n);
  const auto build = [&](int copies) {
    Impl::Table table;
    table.row_words = s.lane_copies ? detail::lane_table_row_words(s.n) : detail::table_row_words(s.n, copies);
    std::vector<std::uint32_t> host(static_cast<std::size_t>(s.n) * table.row_words, 0u);
    for (int q = 0; q < s.n; ++q)
      for (int a = 0; a < s.n; ++a)
        for (int b = 0; b < s.n; ++b) {
          const auto lo = static_cast<std::uint32_t>(score_of(q, a)) & 0xFFFFu;
          const auto hi = static_cast<std::uint32_t>(score_of(q, b)) & 0xFFFFu;
          const auto entry = static_cast<std::uint32_t>(a * s.n + b);
          std::uint32_t* row = host.data() + static_cast<std::size_t>(q) * table.row_words;
          if (s.lane_copies)
            for (std::uint32_t lane = 0; lane < detail::kLaneCopies; ++lane)
              row[detail::lane_table_word(entry, lane)] = lo | (hi << 16);
          else
            for (int k = 0; k < copies; ++k)
              row[detail::table_word(k, entry, static_cast<std::uint32_t>(s.copy_words))] = lo | (hi << 16);
        }
    table.words = DeviceBuffer<std::uint32_t>(host.size(), s.device);
    detail::copy_to_device(table.words.get(), host.data(), host.size() * sizeof(std::uint32_t));
    return table;
  };
  s.compact_table = build(1);
  if (s.table_copies > 1) s.copies_table = build(s.table_copies);
  for (int bin = 0; bin < kBinCount; ++bin) {
    const detail::BinEntry& entry = detail::bin_entry(bin);
    const bool copies = s.table_copies > 1 && may_use_table_copies(bin);
    entry.prepare(copies ? s.copies_table.shared_bytes() : s.compact_table.shared_bytes());
    s.compact_shapes[bin] = {false, kBlockThreads, entry.occupancy(kBlockThreads, s.compact_table.shared_bytes())};
    s.copies_shapes[bin] = s.compact_shapes[bin];
    if (copies)
      s.copies_shapes[bin] = {true, copies_block_threads(bin),
                              entry.occupancy(copies_block_threads(bin), s.copies_table.shared_bytes())};
  }
  s.shapes = s.compact_shapes;
}

GpuScorer::~GpuScorer() {
  if (impl_) {
    // Buffers free themselves on their device; make sure no work still uses them (errors ignored: a
    // destructor never throws).
    for (const auto& slot : impl_->slots) {
      cudaStreamSynchronize(slot.main.get());
      cudaStreamSynchronize(slot.long_stream.get());
      for (const auto& w : slot.workers) cudaStreamSynchronize(w.get());
    }
  }
}
GpuScorer::GpuScorer(GpuScorer&&) noexcept = default;
GpuScorer& GpuScorer::operator=(GpuScorer&&) noexcept = default;

std::uint64_t GpuScorer::bytes_for_subjects(std::uint64_t residues, std::size_t subjects,
                                            std::size_t max_query_length) {
  // Per subject: up to 3 bytes of word padding, offset (8), length (4), job entry (4), plan block (4),
  // and in each slot a score and two overflow entries (4 + 4 + 4). Per slot: the tile edges (at most the
  // budget), the query in both layouts and the hit list.
  // The plan: 256 bytes per block of 32 lanes and tile, at most one per job (one or two subjects), plus
  // the tiles of at least 320 columns, plus a partial block per bin.
  const std::uint64_t per_subject = 3 + 8 + 4 + 4 + 4 + kSlots * (4 + 4 + 4);
  const std::uint64_t per_slot = kEdgeBudgetBytes + 8 * (max_query_length + 2 * detail::kQueryPadding);
  const std::uint64_t plan = 256 * (subjects + residues / 320 + kBinCount);
  const std::uint64_t stream_plan = residues / 4 + (1 + 8) * subjects;  // 2 bits a column, an offset a job
  return residues + per_subject * subjects + plan + stream_plan +
         kSlots * (per_slot + kDefaultHitCapacity * sizeof(ScoreHit));
}

std::uint64_t GpuScorer::free_device_memory() const {
  ScopedDevice scoped(impl_->device);
  std::size_t free = 0, total = 0;
  WARPSEARCH_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  // What this scorer holds now is released before the next batch is allocated.
  std::uint64_t held = impl_->d_residues.bytes() + impl_->d_offsets.bytes() + impl_->d_lengths.bytes() +
                       impl_->d_jobs.bytes() + impl_->d_plan.bytes() + impl_->d_plan_blocks.bytes() +
                       impl_->d_stream_plan.bytes() + impl_->d_stream_plan_offsets.bytes();
  for (const auto& slot : impl_->slots)
    held += slot.scores.bytes() + slot.overflow_list.bytes() + slot.long_overflow_list.bytes() + slot.edges.bytes();
  return free + held;
}

std::uint64_t GpuScorer::resident_residues() const { return impl_->residues; }
std::size_t GpuScorer::resident_subjects() const { return impl_->count; }
std::string GpuScorer::device_name() const { return impl_->name; }
std::size_t GpuScorer::cooperative_pairs_per_wave() const {
  return static_cast<std::size_t>(std::max(1, impl_->compact_shapes[kHugeBin].blocks_per_sm)) *
         static_cast<std::size_t>(impl_->sm_count);
}
std::size_t GpuScorer::streamed_pairs_per_wave() const {
  return static_cast<std::size_t>(impl_->sm_count) * (detail::kStreamedBlockThreads / 32);
}
static_assert(GpuScorer::kStreamedMaxQuery == detail::kStreamedMaxQuery, "the streamed kernel's longest query");

std::vector<std::int32_t> GpuScorer::Impl::pair_jobs(const std::uint32_t* lengths, std::size_t count) {
  // Subjects sorted by length (a database chunk already is), paired with their neighbour. The tiled bins
  // run longest first, so that their grid-stride loops end with short jobs.
  std::vector<std::int32_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  if (!std::is_sorted(lengths, lengths + count))
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int32_t a, std::int32_t b) { return lengths[a] < lengths[b]; });
  std::array<std::vector<std::int32_t>, kBinCount> members;
  for (std::int32_t i : order) members[static_cast<std::size_t>(detail::bin_of_length(lengths[i]))].push_back(i);
  for (int bin = kFirstTiledBin; bin <= kHugeBin; ++bin)
    std::reverse(members[static_cast<std::size_t>(bin)].begin(), members[static_cast<std::size_t>(bin)].end());
  std::vector<std::int32_t> jobs;
  for (int bin = 0; bin < kBinCount; ++bin) {
    auto& list = members[static_cast<std::size_t>(bin)];
    if (list.size() % 2 != 0) list.push_back(-1);
    job_begin[bin] = static_cast<int>(jobs.size() / 2);
    job_count[bin] = static_cast<int>(list.size() / 2);
    jobs.insert(jobs.end(), list.begin(), list.end());
  }
  return jobs;
}

void GpuScorer::Impl::choose_shapes() {
  // The table with copies where a bin's jobs fill the device with it copies_min_waves times over.
  for (int bin = 0; bin < kBinCount; ++bin) {
    const LaunchShape& copies = copies_shapes[bin];
    const long long device_groups =
        static_cast<long long>(copies.blocks_per_sm) * sm_count * (copies.threads / kLengthBins[bin].group);
    shapes[bin] = copies.copies && copies.blocks_per_sm > 0 && job_count[bin] > 0 &&
                          static_cast<double>(job_count[bin]) >= copies_min_waves * static_cast<double>(device_groups)
                      ? copies
                      : compact_shapes[bin];
  }
}

void GpuScorer::Impl::plan_copies(const std::vector<std::int32_t>& jobs, const std::uint32_t* lengths,
                                  std::vector<PlanTask>& tasks, std::vector<std::uint32_t>& plan_blocks) const {
  // A plan block per block of 32 lanes and tile of the bins with copies, in job order; each job's first.
  plan_blocks.resize(jobs.size() / 2);
  for (int bin = 0; bin < kBinCount; ++bin) {
    if (!shapes[bin].copies) continue;
    const int group = kLengthBins[bin].group;
    const int per_block = 32 / group;  // jobs whose groups share a warp
    const std::uint64_t width = static_cast<std::uint64_t>(group) * kLengthBins[bin].regs;
    for (int first = 0; first < job_count[bin]; first += per_block) {
      const int job = job_begin[bin] + first;
      const int in_block = std::min(per_block, job_count[bin] - first);
      std::uint64_t longest = 0;
      for (int k = 0; k < in_block; ++k)
        for (int side = 0; side < 2; ++side) {
          const std::int32_t subject = jobs[2 * static_cast<std::size_t>(job + k) + side];
          if (subject >= 0) longest = std::max<std::uint64_t>(longest, lengths[subject]);
        }
      const std::uint64_t tiles = kLengthBins[bin].mode == detail::TileMode::single ? 1 : (longest + width - 1) / width;
      for (int k = 0; k < in_block; ++k) plan_blocks[job + k] = static_cast<std::uint32_t>(tasks.size());
      for (std::uint64_t tile = 0; tile < tiles; ++tile)
        tasks.push_back(PlanTask{job, static_cast<std::uint16_t>(tile), static_cast<std::uint8_t>(group),
                                 static_cast<std::uint8_t>(kLengthBins[bin].regs),
                                 static_cast<std::uint8_t>(in_block)});
    }
  }
}

void GpuScorer::Impl::upload_plan(const std::vector<PlanTask>& tasks, const std::vector<std::uint32_t>& plan_blocks) {
  cudaStream_t setup = setup_stream.get();
  fit(d_plan_blocks, plan_blocks.size(), device);
  fit(d_plan, tasks.size() * 32, device);
  fit(d_plan_tasks, tasks.size(), device);
  WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(d_plan_blocks.get(), plan_blocks.data(),
                                        plan_blocks.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice, setup));
  WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(d_plan_tasks.get(), tasks.data(), tasks.size() * sizeof(PlanTask),
                                        cudaMemcpyHostToDevice, setup));
  const int threads = 128;
  const int grid = std::max(1, std::min(ceil_div(static_cast<long long>(tasks.size()), threads), 64 * sm_count));
  plan_table_copies<<<grid, threads, 0, setup>>>(d_plan_tasks.get(), tasks.size(), d_jobs.get(), d_residues.get(),
                                                 d_offsets.get(), d_lengths.get(), n, table_copies, d_plan.get());
  WARPSEARCH_CUDA_CHECK_LAUNCH();
}

void GpuScorer::Impl::plan_streamed(const std::vector<std::int32_t>& jobs, const std::uint32_t* lengths) {
  const int count = job_count[kHugeBin];
  if (count == 0) return;
  std::vector<std::uint64_t> plan_offsets(static_cast<std::size_t>(count));
  std::uint64_t bytes = 0;
  for (int job = 0; job < count; ++job) {
    const std::size_t at = 2 * static_cast<std::size_t>(job_begin[kHugeBin] + job);
    const std::uint32_t longest = std::max(lengths[jobs[at]], jobs[at + 1] >= 0 ? lengths[jobs[at + 1]] : 0u);
    plan_offsets[static_cast<std::size_t>(job)] = bytes;
    bytes += (longest + 3) / 4;
  }
  cudaStream_t setup = setup_stream.get();
  fit(d_stream_plan, bytes, device);
  fit(d_stream_plan_offsets, plan_offsets.size(), device);
  WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(d_stream_plan_offsets.get(), plan_offsets.data(),
                                        plan_offsets.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice, setup));
  const int threads = 64;
  plan_stream_copies<<<ceil_div(count, threads), threads, 0, setup>>>(
      d_jobs.get() + 2 * static_cast<std::size_t>(job_begin[kHugeBin]), count, d_residues.get(), d_offsets.get(),
      d_lengths.get(), n, table_copies, d_stream_plan_offsets.get(), d_stream_plan.get());
  WARPSEARCH_CUDA_CHECK_LAUNCH();
  // The offsets' host copy is pageable: the call returned once the driver had staged it.
}

void GpuScorer::set_subjects(const SubjectBatch& subjects) {
  Impl& s = *impl_;
  ScopedDevice scoped(s.device);
  s.synchronize();
  if (subjects.count > static_cast<std::size_t>(0x7FFFFFFF))
    throw std::invalid_argument("GpuScorer::set_subjects: more than 2^31 - 1 subjects in one batch");
  const std::size_t count = subjects.count;
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };

  // The subjects' words go up as they are, one byte per residue (SubjectBatch: residue k of subject i is
  // byte 4 * word_offsets[i] + k), in one copy of the range they span, and become compact codes on the
  // device: a pass over hundreds of MB on the host took 0.3 s of the 262 M-residue set's 0.36 s here.
  const std::uint32_t* lengths = subjects.lengths;
  std::uint64_t first_word = count > 0 ? ~std::uint64_t{0} : 0, end_word = 0;
  for (std::size_t i = 0; i < count; ++i) {
    first_word = std::min(first_word, subjects.word_offsets[i]);
    end_word = std::max(end_word, subjects.word_offsets[i] + (std::uint64_t{lengths[i]} + 3) / 4);
  }
  std::vector<std::uint64_t> offsets(count);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    offsets[i] = 4 * (subjects.word_offsets[i] - first_word);
    total += lengths[i];
  }
  const std::size_t residue_bytes = static_cast<std::size_t>(4 * (end_word - first_word));

  const std::vector<std::int32_t> jobs = s.pair_jobs(lengths, count);
  s.choose_shapes();
  std::vector<PlanTask> tasks;
  std::vector<std::uint32_t> plan_blocks;
  if (s.table_copies > 1) s.plan_copies(jobs, lengths, tasks, plan_blocks);

  s.setup.pack_seconds = seconds_since(started);
  const auto upload_started = Clock::now();
  s.count = count;
  s.residues = total;
  fit(s.d_residues, residue_bytes, s.device);
  fit(s.d_offsets, count, s.device);
  fit(s.d_lengths, count, s.device);
  fit(s.d_jobs, jobs.size(), s.device);
  cudaStream_t setup = s.setup_stream.get();
  if (residue_bytes > 0) {
    s.upload_staged(s.d_residues.get(), subjects.words + first_word, residue_bytes);
    CodeMap map;
    for (int code = 0; code < 256; ++code)
      map.compact[code] =
          code < s.alphabet_size ? s.compact[static_cast<std::size_t>(code)] : static_cast<std::uint8_t>(s.n - 1);
    const int grid = std::max(1, std::min(ceil_div(static_cast<long long>(residue_bytes), 256 * 16), 8 * s.sm_count));
    compact_codes<<<grid, 256, 0, setup>>>(s.d_residues.get(), residue_bytes, map);
    WARPSEARCH_CUDA_CHECK_LAUNCH();
  }
  // From pageable memory: each call returns once its source is staged by the driver.
  if (count > 0) {
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(s.d_offsets.get(), offsets.data(), count * sizeof(std::uint64_t),
                                          cudaMemcpyHostToDevice, setup));
    WARPSEARCH_CUDA_CHECK(
        cudaMemcpyAsync(s.d_lengths.get(), lengths, count * sizeof(std::uint32_t), cudaMemcpyHostToDevice, setup));
  }
  if (!jobs.empty())
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(s.d_jobs.get(), jobs.data(), jobs.size() * sizeof(std::int32_t),
                                          cudaMemcpyHostToDevice, setup));
  s.setup.upload_seconds = seconds_since(upload_started);
  const auto plan_started = Clock::now();
  if (!tasks.empty()) s.upload_plan(tasks, plan_blocks);
  if (s.table_copies > 1) s.plan_streamed(jobs, lengths);
  // The query slots' streams do not wait for the setup stream: the batch is ready when this returns.
  WARPSEARCH_CUDA_CHECK(cudaStreamSynchronize(setup));
  s.setup.plan_seconds = seconds_since(plan_started);
}

GpuScorer::SetupTimings GpuScorer::setup_timings() const { return impl_->setup; }

}  // namespace warpsearch::gpu
