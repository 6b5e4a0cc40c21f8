// The GPU scan: a chunk's subjects are split across the GPUs by residue count (neighbouring lengths
// stay together), each GPU scores every query against its share, and the scores that pass a query's
// threshold go to the sink. One host thread drives each GPU. A share larger than the GPU's memory (or
// the memory limit the user set) is scanned in several batches of subjects, one after the other.
#include <algorithm>
#include <stdexcept>

#include "kernels/gpu/gpu_scorer.hpp"
#include "search/parallel.hpp"
#include "search/scan_backend.hpp"

namespace warpsearch {
namespace {

// Scores of one score() call are staged in host memory: bound them.
constexpr std::uint64_t kMaxStagedScores = std::uint64_t{1} << 27;  // 512 MiB of int32
// Device memory left alone: the CUDA context's own allocations and other work on the GPU.
constexpr std::uint64_t kReservedBytes = std::uint64_t{256} << 20;

class GpuBackend final : public ScanBackend {
 public:
  GpuBackend(const ScoringScheme& scoring, const std::vector<int>& requested, std::uint64_t memory_limit)
      : memory_limit_(memory_limit) {
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
    }
  }

  void set_queries(const std::vector<PreparedQuery>& queries) override { queries_ = &queries; }

  void scan(const Chunk& chunk, const ScoreSink& sink) override {
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
        scan_batch(scorer, all, first, last, sink);
        first = last;
      }
    });
  }

  // Scores every query against subjects [first, last) of the chunk's batch.
  void scan_batch(gpu::GpuScorer& scorer, const SubjectBatch& all, std::size_t first, std::size_t last,
                  const ScoreSink& sink) {
    const auto& queries = *queries_;
    SubjectBatch share = all;
    share.word_offsets += first;
    share.lengths += first;
    share.count = last - first;
    scorer.set_subjects(share);
    const std::size_t group = std::max<std::size_t>(1, static_cast<std::size_t>(kMaxStagedScores / share.count));
    std::vector<std::int32_t> scores;
    for (std::size_t begin = 0; begin < queries.size(); begin += group) {
      const std::size_t end = std::min(queries.size(), begin + group);
      std::vector<std::string> codes;
      for (std::size_t q = begin; q < end; ++q) codes.push_back(queries[q].codes);
      scores.resize((end - begin) * share.count);
      scorer.score(codes, scores.data());
      for (std::size_t q = begin; q < end; ++q) {
        const std::int32_t* row = scores.data() + (q - begin) * share.count;
        for (std::size_t s = 0; s < share.count; ++s)
          if (row[s] >= queries[q].threshold) sink(q, first + s, row[s]);
      }
    }
  }

  std::string description() const override {
    std::string names;
    for (const auto& scorer : scorers_) names += (names.empty() ? "" : ", ") + scorer.device_name();
    return "gpu (" + std::to_string(scorers_.size()) + " x " + names + ")";
  }

 private:
  std::vector<gpu::GpuScorer> scorers_;
  const std::vector<PreparedQuery>* queries_ = nullptr;
  std::uint64_t memory_limit_ = 0;
};

}  // namespace

std::unique_ptr<ScanBackend> make_gpu_backend(const ScoringScheme& scoring, const std::vector<int>& gpus,
                                              std::uint64_t memory_limit) {
  return std::make_unique<GpuBackend>(scoring, gpus, memory_limit);
}

int usable_gpu_count() { return gpu::usable_device_count(); }

}  // namespace warpsearch
