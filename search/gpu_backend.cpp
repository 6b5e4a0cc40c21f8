// The GPU scan: a chunk's subjects are split across the GPUs by residue count (neighbouring lengths
// stay together), each GPU scores every query against its share, and the scores that pass a query's
// threshold (selected on the device: only they come back) go to the sink, query by query as each is
// done. One host thread drives each GPU. Each GPU keeps the batches of subjects it has loaded while
// memory lasts (resident sets, below): a database that fits is loaded once; a larger one, or a share
// larger than the GPU's memory (or the limit the user set), streams through them, the next batch loading
// while one is scored. locate() may run while the scan does (the engine aligns a query's hits as soon as
// its scan is done). Long subjects (kLongSubjectLength and more): scan_long_subjects.
//
// Hits are located by the GPU pair aligner (kernels/gpu/pair_aligner.hpp: the end, then the start from
// the reversed prefixes; one per GPU, the pairs in contiguous shares of about equal cells), by the CPU's
// striped kernels (the longest pairs and those too long for the pair kernel: search/locate_split.hpp)
// and, the largest, by the long-pair kernel across the first GPU (search/gpu_long_pairs.hpp), which also
// computes the rows of large tracebacks (row_source()).
#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "base/interrupt.hpp"
#include "base/parallel.hpp"
#include "base/usable_cpus.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/long_subject.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/hot_columns.hpp"
#include "kernels/gpu/pair_aligner.hpp"
#include "search/gpu_long_pairs.hpp"
#include "search/gpu_rates.hpp"
#include "search/locate_split.hpp"
#include "search/long_query_scan.hpp"
#include "search/scan_backend.hpp"
#include "search/shares.hpp"
#include "search/subject_segments.hpp"

namespace warpsearch {
namespace {

// Device memory left alone: the CUDA context's own allocations, the pair aligner and other work on the GPU.
constexpr std::uint64_t kReservedBytes = std::uint64_t{256} << 20;
// Batches are planned for queries of up to this many residues (a few MB of work space): the plan, and so
// what stays resident, does not change from one query batch to the next. Longer queries still work.
constexpr std::size_t kPlannedQueryLength = 100000;

class GpuBackend final : public ScanBackend {
  // One GPU's resident sets: scorers each holding one batch of subjects, as many as fit its memory. A
  // database that fits stays on the device from one query batch to the next; a larger one streams
  // through them, the next batch loading into another set (on another host thread, through pinned
  // buffers) while this one is scored, the least recently used set making room.
  struct ResidentSet {
    std::unique_ptr<gpu::GpuScorer> scorer;
    std::uint64_t key = 0;    // the batch held: its first subject's sorted position in the database
    std::size_t count = 0;    // and its subjects (0: none)
    std::uint64_t bytes = 0;  // the most device memory its batches took (bytes_for_subjects; buffers only grow)
    std::uint64_t used = 0;   // when it was last scored (a counter)
  };
  struct Gpu {
    int device = 0;
    std::string name;
    std::uint64_t budget = 0;  // device bytes the scan may use, all sets together (0: not measured yet)
    std::deque<ResidentSet> sets;
    std::uint64_t clock = 0;
    std::future<void> loading;  // a set loading in the background
  };

 public:
  GpuBackend(const ScoringScheme& scoring, const std::vector<int>& requested, std::uint64_t memory_limit,
             unsigned threads)
      : scoring_(scoring),
        memory_limit_(memory_limit),
        threads_(threads_or_usable_cpus(threads)),
        rates_(locate_rates()) {
    const int available = gpu::usable_device_count();
    if (available == 0) throw std::runtime_error("--device gpu: no usable GPU (no CUDA device or driver found)");
    std::vector<int> devices = requested;
    if (devices.empty())
      for (int d = 0; d < available; ++d) devices.push_back(d);
    for (int device : devices) {
      if (device >= available)
        throw std::invalid_argument("GPU " + std::to_string(device) + " does not exist (" + std::to_string(available) +
                                    " usable)");
      gpus_.emplace_back();
      gpus_.back().device = device;
      gpus_.back().sets.emplace_back();  // binds to the device now: a bad one fails here
      gpus_.back().sets.back().scorer = std::make_unique<gpu::GpuScorer>(device, scoring);
      gpus_.back().name = gpus_.back().sets.back().scorer->device_name();
      gpu_kernels_.cooperative_pairs += gpus_.back().sets.back().scorer->cooperative_pairs_per_wave();
      gpu_kernels_.streamed_pairs += gpus_.back().sets.back().scorer->streamed_pairs_per_wave();
    }
    aligners_.resize(gpus_.size());
  }

  // A load still in flight (a scan that threw) reads the upcoming chunk and its set: it ends first.
  ~GpuBackend() override {
    for (Gpu& gpu : gpus_)
      if (gpu.loading.valid()) gpu.loading.wait();
  }
  GpuBackend(const GpuBackend&) = delete;
  GpuBackend& operator=(const GpuBackend&) = delete;

  void set_queries(const std::vector<PreparedQuery>& queries) override {
    queries_ = &queries;
    regions_.clear();
  }

  void upcoming(std::optional<Chunk> next) override { upcoming_ = std::move(next); }

  void scan(const Chunk& chunk, const std::int8_t* subject_frames, const ScoreSink& sink,
            const QueryDone& done) override {
    const SubjectBatch all = chunk.batch();
    std::vector<std::size_t> every(queries_->size());
    std::iota(every.begin(), every.end(), std::size_t{0});
    // Length-sorted: the long subjects are the tail.
    std::size_t short_count = 0;
    while (short_count < all.count && all.lengths[short_count] < kLongSubjectLength) ++short_count;
    if (short_count == all.count) {
      scan_subjects(all, chunk.info().first_subject, every, sink, done, true, nullptr);
      return;
    }
    SubjectBatch head = all;
    head.count = short_count;
    if (short_count > 0) scan_subjects(head, chunk.info().first_subject, every, sink, QueryDone{}, false, nullptr);
    scan_long_subjects(chunk, short_count, subject_frames, sink, done);
  }

  const SubjectRegions* hit_regions(std::size_t prepared, std::uint64_t subject,
                                    std::int8_t subject_frame) const override {
    return regions_.find(prepared, subject, subject_frame);
  }

  using HotTileSink = std::function<void(std::size_t, std::size_t, const gpu::HotTiles&)>;
  // Scores the queries `which` (prepared indices) against the subjects of `all` (sorted positions from
  // `key_base` on: the key of the resident sets) on every GPU; done(p), if given, once query p is scored
  // against all of them.
  // With prefetch_upcoming, the upcoming chunk's first batch loads while the last one is scored. With
  // `hot`, (*hot)(p, first, tiles) gets query p's hot tiles in each batch (from subject `first` of `all`).
  void scan_subjects(const SubjectBatch& all, std::uint64_t key_base, const std::vector<std::size_t>& which,
                     const ScoreSink& sink, const QueryDone& done, bool prefetch_upcoming, const HotTileSink* hot) {
    const std::vector<std::size_t> bounds = shares(all);
    const auto& queries = *queries_;
    // A query is done once every GPU with a share has scored it against the share's last batch.
    int sharing = 0;
    for (std::size_t g = 0; g < gpus_.size(); ++g) sharing += bounds[g] < bounds[g + 1] ? 1 : 0;
    std::vector<std::atomic<int>> unfinished(queries.size());
    for (auto& count : unfinished) count = sharing;
    if (sharing == 0 && done)
      for (const std::size_t p : which) done(p);
    const QueryDone share_done = [&](std::size_t p) {
      if (unfinished[p].fetch_sub(1) == 1 && done) done(p);
    };
    parallel_for(gpus_.size(), static_cast<unsigned>(gpus_.size()), [&](std::size_t g, unsigned) {
      Gpu& gpu = gpus_[g];
      const auto batches = batches_of(gpu, g, all, bounds[g], bounds[g + 1]);
      for (std::size_t b = 0; b < batches.size(); ++b) {
        const Batch& batch = batches[b];
        ResidentSet& set = acquire(gpu, key_base, all, batch);
        set.used = ++gpu.clock;
        // While this batch is scored, the next one (or the next chunk's first) loads into another set.
        if (b + 1 < batches.size()) {
          prefetch(gpu, set, key_base, all, batches[b + 1]);
        } else if (upcoming_ && prefetch_upcoming) {
          SubjectBatch next = upcoming_->batch();  // its short subjects: the long ones load as segments
          std::size_t short_count = 0;
          while (short_count < next.count && next.lengths[short_count] < kLongSubjectLength) ++short_count;
          next.count = short_count;
          const std::vector<std::size_t> next_bounds = shares(next);
          const auto next_batches = batches_of(gpu, g, next, next_bounds[g], next_bounds[g + 1]);
          if (!next_batches.empty()) prefetch(gpu, set, upcoming_->info().first_subject, next, next_batches[0]);
        }
        score_batch(*set.scorer, batch.first, which, sink, b + 1 == batches.size() ? share_done : QueryDone{}, hot);
      }
      finish_loading(gpu);  // the upcoming chunk may be released once scan() returns
    });
  }

  // Long subjects (from `first_long` of the chunk on) would each keep one block of one GPU busy: they are
  // scored as overlapping segments instead (search/subject_segments.hpp), for the longest reach among
  // the queries; a subject's score is the best of its segments'. Its hit regions (hit_regions()) are the
  // kernels' tiles whose cells reach the threshold (gpu::HotTiles), the HSP search's hot columns, or,
  // where a query's list of them overflowed, the owned ranges of its hit segments.
  // Queries too long for segments to fill the device take the long-pair kernel (scan_long_in_pairs).
  // done(p) as soon as query p is scanned, so that its hits are aligned while the others are scanned.
  void scan_long_subjects(const Chunk& chunk, std::size_t first_long, const std::int8_t* subject_frames,
                          const ScoreSink& sink, const QueryDone& done) {
    const std::vector<std::uint64_t> lengths(chunk.lengths() + first_long, chunk.lengths() + chunk.size());
    const LongQueryScanRates rates = long_query_scan_rates(gpu_kernels_);
    std::vector<std::size_t> segmented, paired;
    std::uint64_t reach = 0;
    for (std::size_t p = 0; p < queries_->size(); ++p) {
      const PreparedQuery& query = (*queries_)[p];
      const std::uint64_t query_reach = cpu::alignment_reach(query.codes, scoring_, query.threshold);
      const bool pairs = pair_scan_pays(query.codes.size(), query_reach, lengths, rates) &&
                         long_pairs().accepts_local(query.codes.size(), lengths);
      (pairs ? paired : segmented).push_back(p);
      if (!pairs) reach = std::max(reach, query_reach);
    }
    if (!paired.empty()) scan_long_in_pairs(chunk, first_long, subject_frames, paired, sink, done);
    if (reach == 0) {  // no alignment can reach any threshold
      for (const std::size_t p : segmented) done(p);
      return;
    }
    const SubjectSegments& segments = segments_of(chunk, first_long, reach, segmented);
    SegmentHits hits;
    // Keys apart from the chunks' sorted positions (and from other reaches' segments).
    const std::uint64_t key_base = (std::uint64_t{1} << 63) | (std::min<std::uint64_t>(reach, (1u << 22) - 1) << 40) |
                                   (chunk.info().first_subject + first_long);
    const SubjectBatch batch = segments.batch();
    const HotTileSink hot = [&](std::size_t p, std::size_t first, const gpu::HotTiles& tiles) {
      hits.hot_found(p, tiles.complete);
      for (const gpu::HotTile& tile : tiles.tiles)
        hits.add_hot(segments, p, first + tile.subject, tile.begin, tile.end);
    };
    scan_subjects(
        batch, key_base, segmented,
        [&](std::size_t p, std::uint64_t segment, int score) {
          hits.add(segments, p, segment, score);
          // The one-pass kernels give no tiles: such a segment, at most a tile long, is hot as a whole.
          if (batch.lengths[segment] <= gpu::GpuScorer::kMaxOnePassLength)
            hits.add_hot(segments, p, segment, 0, batch.lengths[segment]);
        },
        [&](std::size_t p) {
          regions_.keep_query(hits, p, chunk.original_indices(), subject_frames, sink);
          done(p);
        },
        false, &hot);
  }

  // The queries `paired` against the chunk's long subjects on the long-pair kernel, all the pairs in its
  // launches together: each subject's best score, and its hit regions (GpuLongPairs::local_scans).
  void scan_long_in_pairs(const Chunk& chunk, std::size_t first_long, const std::int8_t* subject_frames,
                          const std::vector<std::size_t>& paired, const ScoreSink& sink, const QueryDone& done) {
    std::vector<std::string> subjects;
    for (std::size_t k = first_long; k < chunk.size(); ++k) subjects.push_back(chunk.subject_codes(k));
    std::vector<const PreparedQuery*> queries;
    for (const std::size_t p : paired) queries.push_back(&(*queries_)[p]);
    long_pairs().local_scans(queries, subjects, [&](std::size_t q, std::size_t s, int score, auto regions) {
      const std::size_t k = first_long + s;
      regions_.keep(paired[q], chunk.original_indices()[k], subject_frames ? subject_frames[k] : std::int8_t{0},
                    {std::move(regions), true});
      sink(paired[q], k, score);
    });
    for (const std::size_t p : paired) done(p);
  }

  // A chunk's long subjects as segments for the queries `which`, kept (they may stay resident on the
  // GPUs) for the next query batches while the plan (reach and wave) stays the same.
  const SubjectSegments& segments_of(const Chunk& chunk, std::size_t first_long, std::uint64_t reach,
                                     const std::vector<std::size_t>& which) {
    std::vector<std::size_t> query_lengths;
    for (const std::size_t p : which) query_lengths.push_back((*queries_)[p].codes.size());
    const std::uint64_t wave = SubjectSegments::gpu_wave(chunk.batch(), first_long, reach, query_lengths, gpu_kernels_);
    if (segments_reach_ != reach || segments_wave_ != wave) segments_.clear();  // another plan: start again
    segments_reach_ = reach;
    segments_wave_ = wave;
    const std::uint8_t pad = scoring_.matrix().alphabet().pad_code();
    const std::uint64_t key = chunk.info().first_subject + first_long;
    auto found = segments_.find(key);
    if (found == segments_.end())
      found = segments_.emplace(key, SubjectSegments(chunk.batch(), first_long, reach, pad, {0, wave, threads_})).first;
    return found->second;
  }

  // The GPUs' shares of a batch: contiguous, of about equal residue counts; GPU g takes subjects
  // [bounds[g], bounds[g + 1]).
  std::vector<std::size_t> shares(const SubjectBatch& all) const {
    return contiguous_shares(std::vector<double>(all.lengths, all.lengths + all.count), gpus_.size());
  }

  // Subjects [first, last) of a chunk's batch `all`, and the device memory they take.
  struct Batch {
    std::size_t first = 0, last = 0;
    std::uint64_t bytes = 0;
  };

  // A GPU's share of a chunk in batches: one if it fits the budget, else batches of at most half the
  // budget where it can hold them, so that the next one can load while one is scored. The plan does not depend on the
  // queries (work space for queries of kPlannedQueryLength residues is counted), so a batch keeps its key from one
  // query batch to the next and stays resident.
  std::vector<Batch> batches_of(Gpu& gpu, std::size_t g, const SubjectBatch& all, std::size_t first, std::size_t last) {
    if (first >= last) return {};
    if (gpu.budget == 0) {
      std::uint64_t budget = gpu.sets.front().scorer->free_device_memory();
      if (memory_limit_ > 0) budget = std::min(budget, memory_limit_);
      gpu.budget = std::max<std::uint64_t>(1, budget - std::min(budget, kReservedBytes));
    }
    const auto bytes_of = [&](std::size_t from, std::size_t to, std::uint64_t residues) {
      return gpu::GpuScorer::bytes_for_subjects(residues, to - from, kPlannedQueryLength);
    };
    std::uint64_t share_residues = 0;
    for (std::size_t s = first; s < last; ++s) share_residues += all.lengths[s];
    if (bytes_of(first, last, share_residues) <= gpu.budget)
      return {Batch{first, last, bytes_of(first, last, share_residues)}};
    // Half the budget, unless that leaves no room for a batch's fixed work space (a small --gpu-memory):
    // then batches of the whole budget, one after the other.
    const std::uint64_t limit =
        bytes_of(first, first + 1, all.lengths[first]) <= gpu.budget / 2 ? gpu.budget / 2 : gpu.budget;
    std::vector<Batch> batches;
    while (first < last) {
      std::size_t end = first;
      std::uint64_t residues = 0;
      while (end < last && bytes_of(first, end + 1, residues + all.lengths[end]) <= limit)
        residues += all.lengths[end++];
      if (end == first)
        throw std::runtime_error(gpu.name + " (GPU " + std::to_string(g) +
                                 "): not enough device memory for a subject of " + std::to_string(all.lengths[first]) +
                                 " residues (" + std::to_string(limit >> 20) + " MiB usable per batch)");
      batches.push_back(Batch{first, end, bytes_of(first, end, residues)});
      first = end;
    }
    return batches;
  }

  void finish_loading(Gpu& gpu) {
    if (gpu.loading.valid()) gpu.loading.get();  // rethrows a failed load
  }

  static bool holds(const ResidentSet& set, std::uint64_t key, const Batch& batch) {
    return set.count == batch.last - batch.first && set.key == key;
  }

  // A set to load the batch into (never `keep`), within the budget: an empty one, or the least recently
  // used one, reused as it is (its scorer keeps its buffers: freeing device memory would wait for the
  // device); other sets are emptied, least recently used first, only while the batch does not fit.
  // nullptr when even that leaves no room. A set's bytes are the most any of its batches took, as its
  // buffers only grow.
  ResidentSet* make_room(Gpu& gpu, const Batch& batch, const ResidentSet* keep) {
    const auto least_recent = [&](const ResidentSet* besides) {
      ResidentSet* oldest = nullptr;
      for (ResidentSet& set : gpu.sets)
        if (&set != keep && &set != besides && set.scorer && (!oldest || set.used < oldest->used)) oldest = &set;
      return oldest;
    };
    ResidentSet* target = nullptr;
    for (ResidentSet& set : gpu.sets)
      if (&set != keep && set.count == 0) target = &set;
    if (!target) target = least_recent(nullptr);
    for (;;) {
      std::uint64_t held = 0;
      for (const ResidentSet& set : gpu.sets)
        if (&set != target) held += set.bytes;
      const std::uint64_t target_bytes = target ? std::max(target->bytes, batch.bytes) : batch.bytes;
      if (held + target_bytes <= gpu.budget) break;
      ResidentSet* evicted = least_recent(target);
      if (!evicted) return nullptr;
      evicted->scorer.reset();  // frees its memory (the device is idle: no batch is being scored)
      evicted->count = 0;
      evicted->bytes = 0;
    }
    if (!target) {
      gpu.sets.emplace_back();
      target = &gpu.sets.back();
    }
    target->bytes = std::max(target->bytes, batch.bytes);
    return target;
  }

  // Loads subjects [batch.first, batch.last) of `all` into `set`, which then holds batch `key`.
  void load(Gpu& gpu, ResidentSet& set, std::uint64_t key, const SubjectBatch& all, const Batch& batch) {
    set.count = 0;  // holds nothing until loaded
    if (!set.scorer) set.scorer = std::make_unique<gpu::GpuScorer>(gpu.device, scoring_);
    SubjectBatch share = all;
    share.word_offsets += batch.first;
    share.lengths += batch.first;
    share.count = batch.last - batch.first;
    set.scorer->set_subjects(share);
    set.key = key;
    set.count = share.count;
  }

  // The set holding the batch (first subject at sorted position chunk_first + batch.first), loaded now
  // if none does.
  ResidentSet& acquire(Gpu& gpu, std::uint64_t chunk_first, const SubjectBatch& all, const Batch& batch) {
    finish_loading(gpu);
    const std::uint64_t key = chunk_first + batch.first;
    for (ResidentSet& set : gpu.sets)
      if (holds(set, key, batch)) return set;
    ResidentSet* set = make_room(gpu, batch, nullptr);
    if (!set) throw std::logic_error("internal error: a batch planned within the budget does not fit it");
    load(gpu, *set, key, all, batch);
    return *set;
  }

  // Starts loading a batch into another set than `scoring` while that one is scored, unless a set holds
  // it already or there is no room for both.
  void prefetch(Gpu& gpu, const ResidentSet& scoring, std::uint64_t chunk_first, const SubjectBatch& all,
                const Batch& batch) {
    finish_loading(gpu);
    const std::uint64_t key = chunk_first + batch.first;
    for (const ResidentSet& set : gpu.sets)
      if (holds(set, key, batch)) return;
    ResidentSet* set = make_room(gpu, batch, &scoring);
    if (!set) return;
    gpu.loading =
        std::async(std::launch::async, [this, &gpu, set, key, all, batch] { load(gpu, *set, key, all, batch); });
  }

  // Scores the queries `which` against the batch the scorer holds (subjects from `first` of the chunk), longest
  // query first (the shortest queries, whose hits are quickest to align, finish last); done(p), if
  // given, as each query is done.
  void score_batch(gpu::GpuScorer& scorer, std::size_t first, const std::vector<std::size_t>& which,
                   const ScoreSink& sink, const QueryDone& done, const HotTileSink* hot) {
    const auto& queries = *queries_;
    std::vector<std::size_t> order = which;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return queries[a].codes.size() > queries[b].codes.size(); });
    // The scores at or above each query's threshold are selected on the device; only they come back.
    std::vector<std::string> codes;
    std::vector<int> thresholds;
    for (const std::size_t p : order) {
      codes.push_back(queries[p].codes);
      thresholds.push_back(queries[p].threshold);
    }
    const auto found = [&](std::size_t i, const std::vector<gpu::ScoreHit>& hits, const gpu::HotTiles& tiles) {
      if (hot) (*hot)(order[i], first, tiles);
      for (const gpu::ScoreHit& hit : hits) sink(order[i], first + hit.subject, hit.score);
      if (done) done(order[i]);
    };
    if (hot)
      scorer.score_above_with_hot_tiles(codes, thresholds, found);
    else
      scorer.score_above(codes, thresholds, [&](std::size_t i, const auto& hits) { found(i, hits, {}); });
  }

  void locate(const std::vector<HitPair>& pairs, std::vector<Span>& spans) override {
    spans.assign(pairs.size(), Span{});
    const auto cells = [&](std::size_t k) {
      return static_cast<double>(pairs[k].query.size()) * static_cast<double>(pairs[k].subject.size());
    };
    // Largest first: the long-pair kernel takes a leading run of the pairs large enough for it, the CPU
    // a leading run of the others that fit the pair aligner (locate_split.hpp) and every one that does not.
    GpuLongPairs& long_pairs = this->long_pairs();
    const auto fits = [&](std::size_t k) {
      return pairs[k].query.size() <= gpu::GpuPairAligner::kMaxSequenceLength &&
             pairs[k].subject.size() <= gpu::GpuPairAligner::kMaxSequenceLength;
    };
    std::vector<std::size_t> order(pairs.size()), long_ones, on_gpu, on_cpu;
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cells(a) > cells(b); });
    std::vector<double> long_cells, fitting_cells;
    std::vector<LongPairCost> long_costs;
    for (const std::size_t k : order) {
      const std::size_t query = pairs[k].query.size(), subject = pairs[k].subject.size();
      if (long_pairs.wants(query, subject, AlignmentMode::local, GpuLongPairs::kMinLocateRows,
                           GpuLongPairs::kMinLocateCells)) {
        long_ones.push_back(k);
        long_cells.push_back(cells(k));
        long_costs.push_back(long_pair_cost(static_cast<double>(query), static_cast<double>(subject), rates_));
      } else if (fits(k)) {
        fitting_cells.push_back(cells(k));
      }
    }
    long_ones.resize(pairs_for_long_kernel(long_cells, long_costs, fitting_cells, threads_, rates_));
    std::vector<bool> on_long(pairs.size(), false);
    for (const std::size_t k : long_ones) on_long[k] = true;
    fitting_cells.clear();
    for (const std::size_t k : order) {
      if (on_long[k]) continue;
      if (fits(k)) {
        on_gpu.push_back(k);
        fitting_cells.push_back(cells(k));
      } else {
        on_cpu.push_back(k);
      }
    }
    const std::size_t to_cpu = pairs_for_cpu(fitting_cells, threads_, rates_);
    on_cpu.insert(on_cpu.end(), on_gpu.begin(), on_gpu.begin() + static_cast<std::ptrdiff_t>(to_cpu));
    on_gpu.erase(on_gpu.begin(), on_gpu.begin() + static_cast<std::ptrdiff_t>(to_cpu));
    throw_if_interrupted();

    // The CPU's share on its own threads (longest first), while this thread drives the GPUs.
    std::stable_sort(on_cpu.begin(), on_cpu.end(), [&](std::size_t a, std::size_t b) { return cells(a) > cells(b); });
    std::future<void> cpu_done = std::async(std::launch::async, [&] {
      parallel_for(on_cpu.size(), threads_, [&](std::size_t n, unsigned) {
        throw_if_interrupted();
        const std::size_t k = on_cpu[n];
        spans[k] = cpu::pair_span(pairs[k].query, pairs[k].subject, scoring_, AlignmentMode::local);
      });
    });
    // The long pairs side by side on the first GPU, beside the pair aligner's batch.
    std::future<void> long_done = std::async(std::launch::async, [&] {
      long_pairs.spans(
          long_ones, AlignmentMode::local,
          [&](std::size_t k) { return std::make_pair(pairs[k].query, pairs[k].subject); },
          [&](std::size_t k) { return pairs[k].min_score; }, [&](std::size_t k, const Span& span) { spans[k] = span; });
    });
    std::exception_ptr failure;
    try {
      locate_on_gpus(pairs, on_gpu, spans);
    } catch (...) {
      failure = std::current_exception();
    }
    for (std::future<void>* done : {&long_done, &cpu_done}) try {
        done->get();
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
    if (failure) std::rethrow_exception(failure);
  }

  GpuLongPairs& long_pairs() {
    std::call_once(long_pairs_made_, [&] { long_pairs_.emplace(gpus_.front().device, scoring_); });
    return *long_pairs_;
  }

  // spans[k] for the pairs k of `chosen`, split across the GPUs in contiguous shares of about equal cells.
  void locate_on_gpus(const std::vector<HitPair>& pairs, const std::vector<std::size_t>& chosen,
                      std::vector<Span>& spans) {
    std::vector<double> cells;
    for (const std::size_t k : chosen)
      cells.push_back(static_cast<double>(pairs[k].query.size()) * static_cast<double>(pairs[k].subject.size()));
    const std::vector<std::size_t> bounds = contiguous_shares(cells, aligners_.size());
    parallel_for(aligners_.size(), static_cast<unsigned>(aligners_.size()), [&](std::size_t g, unsigned) {
      if (bounds[g] == bounds[g + 1]) return;
      std::vector<gpu::PairTask> tasks;
      tasks.reserve(bounds[g + 1] - bounds[g]);
      for (std::size_t n = bounds[g]; n < bounds[g + 1]; ++n)
        tasks.push_back({pairs[chosen[n]].query, pairs[chosen[n]].subject});
      if (!aligners_[g]) aligners_[g].emplace(gpus_[g].device, scoring_);
      std::vector<Span> found;
      aligners_[g]->align(tasks, AlignmentMode::local, found);
      for (std::size_t n = bounds[g]; n < bounds[g + 1]; ++n) spans[chosen[n]] = found[n - bounds[g]];
    });
  }

  // On the GPUs (kernels/gpu/hot_columns.hpp), the requests split in contiguous shares of about equal cells.
  bool hot_columns(const std::vector<HotColumnRequest>& requests,
                   std::vector<std::vector<cpu::ColumnRange>>& hot) override {
    hot.assign(requests.size(), {});
    std::vector<double> cells;
    for (const HotColumnRequest& request : requests) {
      if (request.query.size() > gpu::HotColumnScanner::kMaxQueryLength) return false;
      cells.push_back(static_cast<double>(request.query.size()) *
                      static_cast<double>(request.segment.end - request.segment.begin));
    }
    const std::vector<std::size_t> bounds = contiguous_shares(cells, gpus_.size());
    if (hot_scanners_.size() != gpus_.size()) hot_scanners_.resize(gpus_.size());
    parallel_for(gpus_.size(), static_cast<unsigned>(gpus_.size()), [&](std::size_t g, unsigned) {
      if (bounds[g] == bounds[g + 1]) return;
      std::vector<gpu::HotColumnTask> tasks;
      for (std::size_t k = bounds[g]; k < bounds[g + 1]; ++k) {
        const HotColumnRequest& request = requests[k];
        const cpu::SubjectSegment& segment = request.segment;
        tasks.push_back({request.query, request.subject.substr(segment.begin, segment.end - segment.begin),
                         segment.first - segment.begin, request.reach, request.threshold});
      }
      if (!hot_scanners_[g]) hot_scanners_[g].emplace(gpus_[g].device, scoring_);
      std::vector<std::vector<std::uint8_t>> flags;
      hot_scanners_[g]->scan(tasks, flags);
      for (std::size_t k = bounds[g]; k < bounds[g + 1]; ++k)
        hot[k] = cpu::flagged_ranges(flags[k - bounds[g]], requests[k].segment.first);
    });
    return true;
  }

  bool locates_while_scanning() const override { return true; }

  cpu::GlobalRowSource* row_source() override { return &long_pairs(); }

  std::string description() const override {
    std::string names;
    for (const auto& gpu : gpus_) names += (names.empty() ? "" : ", ") + gpu.name;
    return "gpu (" + std::to_string(gpus_.size()) + " x " + names + ")";
  }

 private:
  ScoringScheme scoring_;
  std::deque<Gpu> gpus_;                                      // never moves: loads in flight refer to their Gpu and set
  std::optional<Chunk> upcoming_;                             // the part the next scan() gets (ScanBackend::upcoming)
  std::vector<std::optional<gpu::GpuPairAligner>> aligners_;  // one per GPU, created by locate()
  std::vector<std::optional<gpu::HotColumnScanner>> hot_scanners_;  // one per GPU, created by hot_columns()
  std::optional<GpuLongPairs> long_pairs_;                          // on the first GPU, created when first asked
  std::once_flag long_pairs_made_;
  const std::vector<PreparedQuery>* queries_ = nullptr;
  std::map<std::uint64_t, SubjectSegments> segments_;  // by the sorted position of their first subject
  std::uint64_t segments_reach_ = 0, segments_wave_ = 0;
  SubjectSegments::GpuKernels gpu_kernels_{0, 0, gpu::GpuScorer::kStreamedMaxQuery, gpu::GpuScorer::kStreamedMinWaves,
                                           gpu::GpuScorer::kQueriesInFlight};  // for the segments' plan
  HitRegions regions_;
  std::uint64_t memory_limit_ = 0;
  unsigned threads_;
  LocateRates rates_;
};

}  // namespace

std::unique_ptr<ScanBackend> make_gpu_backend(const ScoringScheme& scoring, const std::vector<int>& gpus,
                                              std::uint64_t memory_limit, unsigned threads) {
  return std::make_unique<GpuBackend>(scoring, gpus, memory_limit, threads);
}

int usable_gpu_count() { return gpu::usable_device_count(); }

}  // namespace warpsearch
