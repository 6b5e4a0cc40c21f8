// The GPU scan: a chunk's subjects are split across the GPUs by residue count (neighbouring lengths
// stay together), each GPU scores every query against its share, and the scores that pass a query's
// threshold (selected on the device: only they come back) go to the sink, query by query as each is
// done. One host thread drives each GPU. A share larger than the GPU's memory (or the memory limit the
// user set) is scanned in several batches of subjects, one after the other. locate() may run while the
// scan does (the engine aligns a query's hits as soon as its scan is done).
//
// Hits are located by the GPU pair aligner (kernels/gpu/pair_aligner.hpp, local mode: forward pass for
// the end, the same kernel on the reversed prefixes for the start), one aligner per GPU, created on the
// first locate(), and at the same time by the CPU's striped kernels (cpu::pair_span, the same spans),
// which take the longest pairs (search/locate_split.hpp) and any with a side longer than the pair
// kernel takes. The GPUs' pairs are split in contiguous shares of about equal cells.
#include <algorithm>
#include <atomic>
#include <future>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>

#include "db/interrupt.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/pair_aligner.hpp"
#include "search/locate_split.hpp"
#include "search/parallel.hpp"
#include "search/scan_backend.hpp"

namespace warpsearch {
namespace {

// Locating speeds (locate_split.hpp). CPU: one core's cpu::pair_span on long real proteins, about half
// the forward kernel's speed (bench/striped_bench: local 16-bit forward 10 G cells/s with AVX-512BW,
// 6 with AVX2, 2.7 with SSE4.1, 0.3 scalar), the reverse pass over the prefix costing up to as much
// again. GPU (H100): 0.13 s for a 5,478 x 22,152 search hit on its warp, both passes; about 0.9 T
// cells/s over 100,000 pairs (bench/results, gpu_pair_bench); a call's launches and copies about 1 ms.
LocateRates locate_rates() {
  LocateRates rates;
  switch (cpu::best_isa()) {
    case cpu::Isa::avx512bw: rates.core = 5e9; break;
    case cpu::Isa::avx2: rates.core = 3e9; break;
    case cpu::Isa::sse41: rates.core = 1.3e9; break;
    case cpu::Isa::scalar: rates.core = 0.15e9; break;
  }
  rates.warp = 1e9;
  rates.device = 5e11;
  rates.device_overhead_seconds = 1e-3;
  return rates;
}

// Device memory left alone: the CUDA context's own allocations and other work on the GPU.
constexpr std::uint64_t kReservedBytes = std::uint64_t{256} << 20;

class GpuBackend final : public ScanBackend {
 public:
  GpuBackend(const ScoringScheme& scoring, const std::vector<int>& requested, std::uint64_t memory_limit,
             unsigned threads)
      : scoring_(scoring),
        memory_limit_(memory_limit),
        threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())),
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
      scorers_.emplace_back(device, scoring);
      devices_.push_back(device);
    }
    aligners_.resize(devices_.size());
  }

  void set_queries(const std::vector<PreparedQuery>& queries) override { queries_ = &queries; }

  void scan(const Chunk& chunk, const ScoreSink& sink, const QueryDone& done) override {
    const SubjectBatch all = chunk.batch();
    // Contiguous shares of about equal residue counts.
    std::vector<std::size_t> bounds{0};
    const double per_gpu = static_cast<double>(chunk.info().residues) / static_cast<double>(scorers_.size());
    double residues = 0;
    for (std::size_t s = 0; s < all.count && bounds.size() < scorers_.size(); ++s) {
      residues += all.lengths[s];
      if (residues >= per_gpu * static_cast<double>(bounds.size())) bounds.push_back(s + 1);
    }
    while (bounds.size() <= scorers_.size()) bounds.push_back(all.count);

    const auto& queries = *queries_;
    std::size_t longest_query = 0;
    for (const auto& q : queries) longest_query = std::max(longest_query, q.codes.size());
    // A query is done once every GPU with a share has scored it against the share's last batch.
    int sharing = 0;
    for (std::size_t g = 0; g < scorers_.size(); ++g) sharing += bounds[g] < bounds[g + 1] ? 1 : 0;
    std::vector<std::atomic<int>> unfinished(queries.size());
    for (auto& count : unfinished) count = sharing;
    if (sharing == 0)
      for (std::size_t p = 0; p < queries.size(); ++p) done(p);
    const QueryDone share_done = [&](std::size_t p) {
      if (unfinished[p].fetch_sub(1) == 1) done(p);
    };
    parallel_for(scorers_.size(), static_cast<unsigned>(scorers_.size()), [&](std::size_t g, unsigned) {
      gpu::GpuScorer& scorer = scorers_[g];
      std::uint64_t budget = scorer.free_device_memory();
      if (memory_limit_ > 0) budget = std::min(budget, memory_limit_);
      budget -= std::min(budget, kReservedBytes);
      std::size_t first = bounds[g];
      while (first < bounds[g + 1]) {
        // The longest run of subjects from `first` that fits the budget.
        std::size_t last = first;
        std::uint64_t batch_residues = 0;
        while (last < bounds[g + 1] && gpu::GpuScorer::bytes_for_subjects(batch_residues + all.lengths[last],
                                                                           last + 1 - first, longest_query) <= budget) {
          batch_residues += all.lengths[last];
          ++last;
        }
        if (last == first)
          throw std::runtime_error(scorer.device_name() + " (GPU " + std::to_string(g) + "): not enough device memory " +
                                   "for a subject of " + std::to_string(all.lengths[first]) + " residues (" +
                                   std::to_string(budget >> 20) + " MiB usable)");
        scan_batch(scorer, all, first, last, sink, last == bounds[g + 1] ? share_done : QueryDone{});
        first = last;
      }
    });
  }

  // Scores every query against subjects [first, last) of the chunk's batch, longest query first (the
  // shortest queries, whose hits are quickest to align, finish last); done(p), if given, as each query
  // is done.
  void scan_batch(gpu::GpuScorer& scorer, const SubjectBatch& all, std::size_t first, std::size_t last,
                  const ScoreSink& sink, const QueryDone& done) {
    const auto& queries = *queries_;
    SubjectBatch share = all;
    share.word_offsets += first;
    share.lengths += first;
    share.count = last - first;
    scorer.set_subjects(share);
    std::vector<std::size_t> order(queries.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return queries[a].codes.size() > queries[b].codes.size(); });
    // The scores at or above each query's threshold are selected on the device; only they come back.
    std::vector<std::string> codes;
    std::vector<int> thresholds;
    for (const std::size_t p : order) {
      codes.push_back(queries[p].codes);
      thresholds.push_back(queries[p].threshold);
    }
    scorer.score_above(codes, thresholds, [&](std::size_t i, const std::vector<gpu::ScoreHit>& hits) {
      const std::size_t p = order[i];
      for (const gpu::ScoreHit& hit : hits) sink(p, first + hit.subject, hit.score);
      if (done) done(p);
    });
  }

  void locate(const std::vector<HitPair>& pairs, std::vector<HitSpan>& spans) override {
    spans.assign(pairs.size(), HitSpan{});
    const auto cells = [&](std::size_t k) {
      return static_cast<double>(pairs[k].query.size()) * static_cast<double>(pairs[k].subject.size());
    };
    // Largest first: the CPU takes a leading run of the pairs that fit the GPU (locate_split.hpp), and
    // every pair that does not.
    std::vector<std::size_t> on_gpu, on_cpu;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const bool fits = pairs[k].query.size() <= gpu::GpuPairAligner::kMaxSequenceLength &&
                        pairs[k].subject.size() <= gpu::GpuPairAligner::kMaxSequenceLength;
      (fits ? on_gpu : on_cpu).push_back(k);
    }
    std::stable_sort(on_gpu.begin(), on_gpu.end(), [&](std::size_t a, std::size_t b) { return cells(a) > cells(b); });
    std::vector<double> fitting_cells;
    for (const std::size_t k : on_gpu) fitting_cells.push_back(cells(k));
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
    try {
      locate_on_gpus(pairs, on_gpu, spans);
    } catch (...) {
      cpu_done.wait();
      throw;
    }
    cpu_done.get();
  }

  // spans[k] for the pairs k of `chosen`, split across the GPUs in contiguous shares of about equal cells.
  void locate_on_gpus(const std::vector<HitPair>& pairs, const std::vector<std::size_t>& chosen,
                      std::vector<HitSpan>& spans) {
    const auto cells = [&](std::size_t k) {
      return static_cast<double>(pairs[k].query.size()) * static_cast<double>(pairs[k].subject.size());
    };
    double total = 0;
    for (const std::size_t k : chosen) total += cells(k);
    std::vector<std::size_t> bounds{0};
    double running = 0;
    for (std::size_t n = 0; n < chosen.size() && bounds.size() < aligners_.size(); ++n) {
      running += cells(chosen[n]);
      if (running >= total / static_cast<double>(aligners_.size()) * static_cast<double>(bounds.size()))
        bounds.push_back(n + 1);
    }
    while (bounds.size() <= aligners_.size()) bounds.push_back(chosen.size());
    parallel_for(aligners_.size(), static_cast<unsigned>(aligners_.size()), [&](std::size_t g, unsigned) {
      if (bounds[g] == bounds[g + 1]) return;
      std::vector<gpu::PairTask> tasks;
      tasks.reserve(bounds[g + 1] - bounds[g]);
      for (std::size_t n = bounds[g]; n < bounds[g + 1]; ++n)
        tasks.push_back({pairs[chosen[n]].query, pairs[chosen[n]].subject});
      if (!aligners_[g]) aligners_[g].emplace(devices_[g], scoring_);
      std::vector<gpu::PairSpan> found;
      aligners_[g]->align(tasks, AlignmentMode::local, found);
      for (std::size_t n = bounds[g]; n < bounds[g + 1]; ++n) {
        const gpu::PairSpan& span = found[n - bounds[g]];
        HitSpan& out = spans[chosen[n]];
        out.score = span.score;
        out.query_begin = span.query_begin;
        out.query_end = span.query_end;
        out.subject_begin = span.target_begin;
        out.subject_end = span.target_end;
      }
    });
  }

  bool locates_while_scanning() const override { return true; }

  std::string description() const override {
    std::string names;
    for (const auto& scorer : scorers_) names += (names.empty() ? "" : ", ") + scorer.device_name();
    return "gpu (" + std::to_string(scorers_.size()) + " x " + names + ")";
  }

 private:
  ScoringScheme scoring_;
  std::vector<gpu::GpuScorer> scorers_;
  std::vector<int> devices_;                                 // the CUDA ordinal of each scorer
  std::vector<std::optional<gpu::GpuPairAligner>> aligners_;  // one per scorer, created by locate()
  const std::vector<PreparedQuery>* queries_ = nullptr;
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
