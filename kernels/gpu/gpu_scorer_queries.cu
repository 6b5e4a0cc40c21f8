// GpuScorer, the queries: the launch sequence of one query (enqueue_query) and the calls that score
// batches of them (score, score_above). See kernels/gpu/gpu_scorer.cu for the order of the launches.
#include "kernels/gpu/gpu_scorer_impl.cuh"

namespace warpsearch::gpu {

static_assert(kLengthBins[kFirstTiledBin - 1].max_length == GpuScorer::kMaxOnePassLength,
              "hot tiles come from the tiled bins, for subjects longer than the one-pass bins take");

namespace {

// Appends the subjects scoring at least `threshold` to the call's hit list (in any order: the host
// sorts them); entries beyond the capacity are counted, not written, and the host falls back.
__global__ void select_hits(const std::int32_t* scores, std::uint32_t count, int threshold, std::uint32_t query,
                            ScoreHit* hits, unsigned long long capacity, unsigned long long* hit_count) {
  for (std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < count; s += gridDim.x * blockDim.x) {
    const std::int32_t score = scores[s];
    if (score >= threshold) {
      const unsigned long long at = atomicAdd(hit_count, 1ull);
      if (at < capacity) hits[at] = ScoreHit{query, s, score};
    }
  }
}

// The one-pass bins in the order they start: a job's time is its query's rows times the columns a lane
// walks per row (the bin's regs), whatever the bin's size, and most bins' jobs fit the device at once,
// so a bin takes about one job's time. The bins with the most columns a lane go first (ties: the longer
// subjects first), so that the longest chains start with the query and the others fill in around them.
constexpr std::array<int, kFirstTiledBin> one_pass_bins_longest_job_first() {
  std::array<int, kFirstTiledBin> order{};
  for (int i = 0; i < kFirstTiledBin; ++i) order[i] = kFirstTiledBin - 1 - i;
  for (int i = 1; i < kFirstTiledBin; ++i)  // insertion sort, stable: constexpr in C++17
    for (int j = i; j > 0 && kLengthBins[order[j]].regs > kLengthBins[order[j - 1]].regs; --j) {
      const int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  return order;
}
constexpr std::array<int, kFirstTiledBin> kOnePassBinsLongestJobFirst = one_pass_bins_longest_job_first();

}  // namespace

// The slot's buffers sized for a query of m residues, the query uploaded in both layouts and the counters
// cleared, on the slot's main stream.
void GpuScorer::Impl::prepare_slot(QuerySlot& slot, const std::uint32_t* query, int m, std::size_t padded,
                                   bool hot_tiles) {
  const std::size_t uploaded = padded * (table_copies > 1 ? 2 : 1);  // one layout per row stride
  if (slot.query.size() < uploaded) slot.query = DeviceBuffer<std::uint32_t>(uploaded, device);
  if (slot.scores.size() < count) {
    slot.scores = DeviceBuffer<std::int32_t>(count, device);
    slot.overflow_list = DeviceBuffer<std::int32_t>(count, device);
    slot.long_overflow_list = DeviceBuffer<std::int32_t>(count, device);
  }
  if (slot.overflow_count.size() == 0) slot.overflow_count = DeviceBuffer<int>(2, device);
  if (slot.job_counters.size() == 0) slot.job_counters = DeviceBuffer<int>(kBinCount, device);
  reserve_edges(slot, m);

  cudaStream_t main = slot.main.get();
  WARPSEARCH_CUDA_CHECK(
      cudaMemcpyAsync(slot.query.get(), query, uploaded * sizeof(std::uint32_t), cudaMemcpyHostToDevice, main));
  WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(slot.overflow_count.get(), 0, 2 * sizeof(int), main));
  WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(slot.job_counters.get(), 0, kBinCount * sizeof(int), main));
  if (hot_tiles) {
    if (slot.hot_tiles.size() != hot_tile_capacity) slot.hot_tiles = DeviceBuffer<HotTile>(hot_tile_capacity, device);
    if (slot.hot_count.size() == 0) {
      slot.hot_count = DeviceBuffer<unsigned long long>(1, device);
      slot.hot_count_back = PinnedBuffer<unsigned long long>(1);
    }
    WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(slot.hot_count.get(), 0, sizeof(unsigned long long), main));
  }
}

void GpuScorer::Impl::enqueue_query(QuerySlot& slot, const std::uint32_t* query, int m, const Destination& to) {
  const std::size_t padded = static_cast<std::size_t>(m) + 2 * detail::kQueryPadding;
  prepare_slot(slot, query, m, padded, to.hot_tiles);
  cudaStream_t main = slot.main.get();
  WARPSEARCH_CUDA_CHECK(cudaEventRecord(slot.forked.get(), main));

  detail::KernelParams p;
  p.alphabet_n = n;
  p.copy_words = copy_words;
  p.lane_copies = lane_copies;
  p.residues = d_residues.get();
  p.offsets = d_offsets.get();
  p.lengths = d_lengths.get();
  p.gap_first = gap_first;
  p.gap_extend = gap_extend;
  p.scores = slot.scores.get();
  p.overflow_count = slot.overflow_count.get();
  p.overflow_list = slot.overflow_list.get();
  p.query_length = m;
  p.edges = slot.edges.get();
  p.team_warps = team_warps(m);
  if (to.hot_tiles) {
    p.hot_tiles = slot.hot_tiles.get();
    p.hot_count = slot.hot_count.get();
    p.hot_capacity = slot.hot_tiles.size();
    p.hot_threshold = to.threshold;
  }
  const auto edge_grid_cap = [&](int bin) { return std::max(1, slot.edge_slots / edge_slots_per_block(bin, m)); };
  const int streamed = streamed_regs(m);  // rows a lane of the streamed kernel, or 0: the cooperative one
  const auto launch = [&](int bin, int grid, cudaStream_t stream) {
    const Table& t = table_of(bin);
    const bool copies = shapes[bin].copies;
    p.table = t.words.get();
    p.table_words = static_cast<int>(t.words.size());
    p.query = slot.query.get() + (copies ? padded : 0);
    p.plan = copies ? d_plan.get() : nullptr;
    p.plan_blocks = copies ? d_plan_blocks.get() + job_begin[bin] : nullptr;
    p.job_counter = kLengthBins[bin].mode == detail::TileMode::tiled ? slot.job_counters.get() + bin : nullptr;
    if (bin == kHugeBin && streamed > 0) {
      launch_streamed(slot, p, streamed, padded, stream);
      return;
    }
    detail::bin_entry(bin).launch(p, grid, shapes[bin].threads, t.shared_bytes(), stream);
  };

  const EdgeGrids edges = edge_grids(slot, m);
  const std::array<int, kBinCount>& edge_grid = edges.grid;
  const bool concurrent = edges.concurrent;

  cudaStream_t lng = slot.long_stream.get();
  WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(lng, slot.forked.get(), 0));
  for (int k = 0; k < kWorkers; ++k)
    WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(slot.workers[k].get(), slot.forked.get(), 0));
  int next_worker = 0;
  long long edge_offset = 0;                                // in group slots
  for (int bin = kHugeBin; bin >= kFirstTiledBin; --bin) {  // the longest subjects first
    if (job_count[bin] == 0) continue;
    p.jobs = d_jobs.get() + 2 * static_cast<std::size_t>(job_begin[bin]);
    p.num_jobs = job_count[bin];
    if (bin == kHugeBin) {
      // The cooperative bin's saturated subjects (the longest, most like the query: a long query and
      // itself) go to a list of their own, rescored on the long stream as soon as the bin ends, beside the
      // other bins, in the bin's range of the edge buffer (the first one).
      const int grid = concurrent ? edge_grid[bin] : std::min(grid_for(bin, p.num_jobs, m), edge_grid_cap(bin));
      p.edges = slot.edges.get();
      p.overflow_count = slot.overflow_count.get() + 1;
      p.overflow_list = slot.long_overflow_list.get();
      launch(bin, grid, lng);
      p.jobs = slot.long_overflow_list.get();
      p.device_job_count = slot.overflow_count.get() + 1;
      launch(kRescoreBin, std::min(grid_for(kRescoreBin, 2LL * job_count[bin], m), grid), lng);
      p.device_job_count = nullptr;
      p.overflow_count = slot.overflow_count.get();
      p.overflow_list = slot.overflow_list.get();
      if (concurrent) edge_offset += static_cast<long long>(grid) * edge_slots_per_block(bin, m);
      continue;
    }
    if (!concurrent) {
      launch(bin, std::min(grid_for(bin, p.num_jobs, m), edge_grid_cap(bin)), lng);
      continue;
    }
    p.edges = slot.edges.get() + static_cast<std::size_t>(edge_offset) * static_cast<std::size_t>(m);
    edge_offset += static_cast<long long>(edge_grid[bin]) * edge_slots_per_block(bin, m);
    launch(bin, edge_grid[bin], slot.workers[next_worker].get());
    next_worker = (next_worker + 1) % kWorkers;
  }
  p.edges = slot.edges.get();
  WARPSEARCH_CUDA_CHECK(cudaEventRecord(slot.long_done.get(), lng));
  for (const int bin : kOnePassBinsLongestJobFirst) {
    if (job_count[bin] == 0) continue;
    p.jobs = d_jobs.get() + 2 * static_cast<std::size_t>(job_begin[bin]);
    p.num_jobs = job_count[bin];
    launch(bin, grid_for(bin, p.num_jobs, m), slot.workers[next_worker].get());
    next_worker = (next_worker + 1) % kWorkers;
  }
  for (int k = 0; k < kWorkers; ++k) {
    WARPSEARCH_CUDA_CHECK(cudaEventRecord(slot.worker_done[k].get(), slot.workers[k].get()));
    WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(main, slot.worker_done[k].get(), 0));
  }
  WARPSEARCH_CUDA_CHECK(cudaStreamWaitEvent(main, slot.long_done.get(), 0));
  // Rescoring: the job count is on the device; the grid covers every subject at worst.
  p.jobs = slot.overflow_list.get();
  p.num_jobs = 0;
  p.device_job_count = slot.overflow_count.get();
  launch(kRescoreBin, std::min(grid_for(kRescoreBin, static_cast<long long>(count), m), edge_grid_cap(kRescoreBin)),
         main);
  deliver_scores(slot, to);
}

void GpuScorer::Impl::launch_streamed(const QuerySlot& slot, detail::KernelParams p, int regs, std::size_t padded,
                                      cudaStream_t stream) {
  // One warp per pair, no tile edges; with copies, the table with them and the jobs' plan.
  const bool planned = table_copies > 1;
  const Table& t = planned ? copies_table : compact_table;
  p.table = t.words.get();
  p.table_words = static_cast<int>(t.words.size());
  p.query = slot.query.get() + (planned ? padded : 0);
  p.plan = nullptr;
  p.plan_blocks = nullptr;
  p.stream_plan = planned ? d_stream_plan.get() : nullptr;
  p.stream_plan_offsets = planned ? d_stream_plan_offsets.get() : nullptr;
  // Its shared-memory limit is set on its first launch, not with the bins' in the constructor: the
  // start-up then loads no streamed kernel that a search does not run (CUDA loads kernels lazily).
  const detail::BinEntry& entry = detail::streamed_entry(regs);
  bool& prepared = streamed_prepared[static_cast<std::size_t>(regs - detail::kStreamedMinRegs)];
  if (!prepared) entry.prepare(t.shared_bytes());
  prepared = true;
  constexpr int kThreads = detail::kStreamedBlockThreads;
  entry.launch(p, std::min(ceil_div(p.num_jobs, kThreads / 32), sm_count), kThreads, t.shared_bytes(), stream);
}

GpuScorer::Impl::EdgeGrids GpuScorer::Impl::edge_grids(const QuerySlot& slot, int m) const {
  // The bins with tile edges (cooperative and tiled) run at once, each on its own range of the edge
  // buffer's group slots: one after the other, each bin's last wave (its longest pairs) made the long
  // stream the critical path of short queries. The cooperative bin, whose longest pairs are the
  // critical path of the whole query, goes on the long stream with its full grid (one slot per block);
  // the tiled ones go on the worker streams before the one-pass bins, their grids scaled down to share
  // the other slots. If a bin would get no block, they all run one after the other on the long stream.
  EdgeGrids edges;
  std::array<int, kBinCount>& edge_grid = edges.grid;
  long long wanted_slots = 0;
  for (int bin = kFirstTiledBin; bin <= kHugeBin; ++bin)
    if (job_count[bin] > 0) edge_grid[bin] = grid_for(bin, job_count[bin], m);
  for (int bin = kFirstTiledBin; bin < kHugeBin; ++bin)
    wanted_slots += static_cast<long long>(edge_grid[bin]) * edge_slots_per_block(bin, m);
  const long long tiled_slots =
      slot.edge_slots - static_cast<long long>(edge_grid[kHugeBin]) * edge_slots_per_block(kHugeBin, m);
  bool concurrent = tiled_slots > 0;
  if (concurrent && wanted_slots > tiled_slots)
    for (int bin = kFirstTiledBin; bin < kHugeBin; ++bin)
      if (job_count[bin] > 0) {
        edge_grid[bin] = static_cast<int>(static_cast<long long>(edge_grid[bin]) * tiled_slots / wanted_slots);
        concurrent = concurrent && edge_grid[bin] > 0;
      }
  edges.concurrent = concurrent;
  return edges;
}

void GpuScorer::Impl::deliver_scores(QuerySlot& slot, const Destination& to) {
  cudaStream_t main = slot.main.get();
  if (to.staged != nullptr) {
    WARPSEARCH_CUDA_CHECK(
        cudaMemcpyAsync(to.staged, slot.scores.get(), count * sizeof(std::int32_t), cudaMemcpyDeviceToHost, main));
  } else {
    const int threads = 256;
    const int grid = std::max(1, std::min(ceil_div(static_cast<long long>(count), threads), 4 * sm_count));
    if (slot.hits.size() != hit_capacity) slot.hits = DeviceBuffer<ScoreHit>(hit_capacity, device);
    if (slot.hit_count.size() == 0) {
      slot.hit_count = DeviceBuffer<unsigned long long>(1, device);
      slot.hit_count_back = PinnedBuffer<unsigned long long>(1);
    }
    WARPSEARCH_CUDA_CHECK(cudaMemsetAsync(slot.hit_count.get(), 0, sizeof(unsigned long long), main));
    select_hits<<<grid, threads, 0, main>>>(slot.scores.get(), static_cast<std::uint32_t>(count), to.threshold,
                                            to.query, slot.hits.get(), slot.hits.size(), slot.hit_count.get());
    WARPSEARCH_CUDA_CHECK_LAUNCH();
    WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(slot.hit_count_back.get(), slot.hit_count.get(), sizeof(unsigned long long),
                                          cudaMemcpyDeviceToHost, main));
    if (to.hot_tiles)
      WARPSEARCH_CUDA_CHECK(cudaMemcpyAsync(slot.hot_count_back.get(), slot.hot_count.get(), sizeof(unsigned long long),
                                            cudaMemcpyDeviceToHost, main));
  }
}

namespace {

// Queries as table-row byte offsets (compact code * row stride * 4) between padding rows
// (KernelParams::query), once per row stride (one per table: with copies, [compact table's][copies
// table's] per query), in the scorer's pinned query staging (grown as needed and kept from call to
// call) for asynchronous uploads; start[q] = query q's first padding row.
struct PackedQueries {
  const std::uint32_t* rows;
  std::vector<std::size_t> start;
};

PackedQueries pack_queries(const std::vector<std::string>& query_codes, const std::vector<int>& row_strides, int n,
                           int alphabet_size, const std::uint8_t* compact, PinnedBuffer<std::uint32_t>& staging) {
  std::size_t total = 0;
  for (const auto& q : query_codes) {
    if (q.size() > static_cast<std::size_t>(0x3FFFFFFF))
      throw std::invalid_argument("GpuScorer::score: a query longer than 2^30 residues");
    total += (q.size() + 2 * detail::kQueryPadding) * row_strides.size();
  }
  fit(staging, total);
  PackedQueries packed{staging.get(), std::vector<std::size_t>(query_codes.size())};
  std::size_t at = 0;
  for (std::size_t q = 0; q < query_codes.size(); ++q) {
    packed.start[q] = at;
    for (const int stride : row_strides) {
      const auto row_of = [&](int code) { return static_cast<std::uint32_t>(code * stride) * 4u; };
      std::uint32_t* rows = staging.get() + at;
      std::fill(rows, rows + query_codes[q].size() + 2 * detail::kQueryPadding, row_of(n - 1));
      for (std::size_t i = 0; i < query_codes[q].size(); ++i) {
        const auto code = static_cast<std::uint8_t>(query_codes[q][i]);
        rows[detail::kQueryPadding + i] = row_of(code < alphabet_size ? compact[code] : n - 1);
      }
      at += query_codes[q].size() + 2 * detail::kQueryPadding;
    }
  }
  return packed;
}

}  // namespace

void GpuScorer::score(const std::vector<std::string>& query_codes, std::int32_t* scores) {
  Impl& s = *impl_;
  if (s.count == 0 || query_codes.empty()) return;
  ScopedDevice scoped(s.device);
  s.synchronize();
  const PackedQueries packed =
      pack_queries(query_codes, s.row_strides(), s.n, s.alphabet_size, s.compact.data(), s.query_staging);
  s.count_streamed_candidates(query_codes);

  const std::size_t batch =
      std::max<std::size_t>(1, std::min(query_codes.size(), kScoreStagingBytes / (s.count * sizeof(std::int32_t))));
  fit(s.score_staging, batch * s.count);
  std::int32_t* const staging = s.score_staging.get();
  for (std::size_t first = 0; first < query_codes.size(); first += batch) {
    const std::size_t last = std::min(query_codes.size(), first + batch);
    for (std::size_t q = first; q < last; ++q) {
      std::int32_t* staged = staging + (q - first) * s.count;
      const int m = static_cast<int>(query_codes[q].size());
      if (m == 0) {
        std::fill(staged, staged + s.count, 0);
        continue;
      }
      Impl::Destination to;
      to.staged = staged;
      s.enqueue_query(s.slots[q % kSlots], packed.rows + packed.start[q], m, to);
    }
    s.synchronize();
    std::memcpy(scores + first * s.count, staging, (last - first) * s.count * sizeof(std::int32_t));
  }
}

void GpuScorer::score_above(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds,
                            const HitsOfQuery& found) {
  impl_->score_above(query_codes, thresholds, false,
                     [&](std::size_t q, const std::vector<ScoreHit>& hits, const HotTiles&) { found(q, hits); });
}

void GpuScorer::score_above_with_hot_tiles(const std::vector<std::string>& query_codes,
                                           const std::vector<int>& thresholds, const HitsAndHotTiles& found) {
  impl_->score_above(query_codes, thresholds, true, found);
}

void GpuScorer::Impl::score_above(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds,
                                  bool with_hot_tiles, const HitsAndHotTiles& found) {
  Impl& s = *this;
  if (thresholds.size() != query_codes.size())
    throw std::invalid_argument("GpuScorer::score_above: one threshold per query");
  if (query_codes.size() > 0xFFFFFFFFu) throw std::invalid_argument("GpuScorer::score_above: too many queries");
  if (query_codes.empty()) return;
  std::vector<ScoreHit> hits;
  HotTiles hot;
  if (s.count == 0) {
    for (std::size_t q = 0; q < query_codes.size(); ++q) found(q, hits, hot);
    return;
  }
  ScopedDevice scoped(s.device);
  s.synchronize();
  const PackedQueries packed =
      pack_queries(query_codes, s.row_strides(), s.n, s.alphabet_size, s.compact.data(), s.query_staging);
  s.count_streamed_candidates(query_codes);

  // A slot's query is done once its main stream is (the other streams join it): its hits come back
  // while the other slot's query runs. When more passed than the list holds (a threshold that passes
  // most subjects), its scores, still in the slot, come back whole and are filtered here.
  std::vector<std::int32_t> all_scores;
  const auto collect = [&](QuerySlot& slot, std::size_t q) {
    slot.main.synchronize();
    const unsigned long long passed = *slot.hit_count_back.get();
    hits.clear();
    if (passed <= slot.hits.size()) {
      hits.resize(static_cast<std::size_t>(passed));
      if (passed > 0)
        WARPSEARCH_CUDA_CHECK(
            cudaMemcpy(hits.data(), slot.hits.get(), hits.size() * sizeof(ScoreHit), cudaMemcpyDeviceToHost));
    } else {
      all_scores.resize(s.count);
      WARPSEARCH_CUDA_CHECK(
          cudaMemcpy(all_scores.data(), slot.scores.get(), s.count * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
      for (std::size_t k = 0; k < s.count; ++k)
        if (all_scores[k] >= thresholds[q])
          hits.push_back(ScoreHit{static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(k), all_scores[k]});
    }
    std::sort(hits.begin(), hits.end(), [](const ScoreHit& a, const ScoreHit& b) { return a.subject < b.subject; });
    hot.tiles.clear();
    hot.complete = true;
    if (with_hot_tiles) {
      const unsigned long long tiles = *slot.hot_count_back.get();
      hot.complete = tiles <= slot.hot_tiles.size();
      if (hot.complete && tiles > 0) {
        hot.tiles.resize(static_cast<std::size_t>(tiles));
        WARPSEARCH_CUDA_CHECK(cudaMemcpy(hot.tiles.data(), slot.hot_tiles.get(), hot.tiles.size() * sizeof(HotTile),
                                         cudaMemcpyDeviceToHost));
        std::sort(hot.tiles.begin(), hot.tiles.end(), [](const HotTile& a, const HotTile& b) {
          return a.subject != b.subject ? a.subject < b.subject : a.begin < b.begin;
        });
      }
    }
    found(q, hits, hot);
  };

  std::array<std::size_t, kSlots> in_slot{};  // the query each slot runs, if busy[slot]
  std::array<bool, kSlots> busy{};
  std::size_t enqueued = 0;
  for (std::size_t q = 0; q < query_codes.size(); ++q) {
    const int m = static_cast<int>(query_codes[q].size());
    if (m == 0) {  // an empty query scores 0 against every subject
      hits.clear();
      if (thresholds[q] <= 0)
        for (std::size_t k = 0; k < s.count; ++k)
          hits.push_back(ScoreHit{static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(k), 0});
      hot.tiles.clear();
      found(q, hits, hot);
      continue;
    }
    const std::size_t k = enqueued++ % kSlots;
    if (busy[k]) collect(s.slots[k], in_slot[k]);
    Impl::Destination to;
    to.threshold = thresholds[q];
    to.query = static_cast<std::uint32_t>(q);
    to.hot_tiles = with_hot_tiles;
    s.enqueue_query(s.slots[k], packed.rows + packed.start[q], m, to);
    in_slot[k] = q;
    busy[k] = true;
  }
  for (std::size_t i = 0; i < kSlots; ++i) {  // the last queries, in the order they were enqueued
    const std::size_t k = (enqueued + i) % kSlots;
    if (busy[k]) collect(s.slots[k], in_slot[k]);
  }
}

void GpuScorer::score_above(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds,
                            std::vector<ScoreHit>& hits) {
  hits.clear();
  score_above(query_codes, thresholds, [&](std::size_t, const std::vector<ScoreHit>& of_query) {
    hits.insert(hits.end(), of_query.begin(), of_query.end());
  });
  std::sort(hits.begin(), hits.end(), [](const ScoreHit& a, const ScoreHit& b) {
    return a.query != b.query ? a.query < b.query : a.subject < b.subject;
  });
}

void GpuScorer::set_hit_capacity(std::size_t hits) { impl_->hit_capacity = std::max<std::size_t>(1, hits); }

void GpuScorer::set_hot_tile_capacity(std::size_t tiles) { impl_->hot_tile_capacity = std::max<std::size_t>(1, tiles); }

void GpuScorer::set_table_copies_min_waves(double waves) { impl_->copies_min_waves = std::max(0.0, waves); }

void GpuScorer::set_long_subject_kernel(LongSubjectKernel kernel) { impl_->long_subject_kernel = kernel; }

void GpuScorer::set_cooperative_team_warps(int warps) {
  if (warps != 0 && warps != 1 && warps != 2 && warps != 4 && warps != 8)
    throw std::invalid_argument("GpuScorer::set_cooperative_team_warps: 0, 1, 2, 4 or 8, not " + std::to_string(warps));
  impl_->forced_team_warps = warps;
}

}  // namespace warpsearch::gpu
