// The GPU scan: a chunk's subjects are split across the GPUs by residue count (neighbouring lengths
// stay together), each GPU scores every query against its share, and the scores that pass a query's
// threshold go to the sink. One host thread drives each GPU.
#include <algorithm>
#include <stdexcept>

#include "kernels/gpu/gpu_scorer.hpp"
#include "search/parallel.hpp"
#include "search/scan_backend.hpp"

namespace warpsearch {
namespace {

// Scores of one score() call are staged in host memory: bound them.
constexpr std::uint64_t kMaxStagedScores = std::uint64_t{1} << 27;  // 512 MiB of int32

class GpuBackend final : public ScanBackend {
 public:
  GpuBackend(const ScoringScheme& scoring, const std::vector<int>& requested) {
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
    parallel_for(scorers_.size(), static_cast<unsigned>(scorers_.size()), [&](std::size_t g, unsigned) {
      SubjectBatch share = all;
      share.word_offsets += bounds[g];
      share.lengths += bounds[g];
      share.count = bounds[g + 1] - bounds[g];
      if (share.count == 0) return;
      scorers_[g].set_subjects(share);
      const std::size_t group = std::max<std::size_t>(1, static_cast<std::size_t>(kMaxStagedScores / share.count));
      std::vector<std::int32_t> scores;
      for (std::size_t first = 0; first < queries.size(); first += group) {
        const std::size_t last = std::min(queries.size(), first + group);
        std::vector<std::string> codes;
        for (std::size_t q = first; q < last; ++q) codes.push_back(queries[q].codes);
        scores.resize((last - first) * share.count);
        scorers_[g].score(codes, scores.data());
        for (std::size_t q = first; q < last; ++q) {
          const std::int32_t* row = scores.data() + (q - first) * share.count;
          for (std::size_t s = 0; s < share.count; ++s)
            if (row[s] >= queries[q].threshold) sink(q, bounds[g] + s, row[s]);
        }
      }
    });
  }

  std::string description() const override {
    std::string names;
    for (const auto& scorer : scorers_) names += (names.empty() ? "" : ", ") + scorer.device_name();
    return "gpu (" + std::to_string(scorers_.size()) + " x " + names + ")";
  }

 private:
  std::vector<gpu::GpuScorer> scorers_;
  const std::vector<PreparedQuery>* queries_ = nullptr;
};

}  // namespace

std::unique_ptr<ScanBackend> make_gpu_backend(const ScoringScheme& scoring, const std::vector<int>& gpus) {
  return std::make_unique<GpuBackend>(scoring, gpus);
}

int usable_gpu_count() { return gpu::usable_device_count(); }

}  // namespace warpsearch
