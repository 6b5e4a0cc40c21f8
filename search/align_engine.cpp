// The align engine and its CPU backend.
#include "search/align_engine.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "base/interrupt.hpp"
#include "base/parallel.hpp"
#include "base/usable_cpus.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/reference/banded_xdrop.hpp"
#include "search/align_backend.hpp"

namespace warpsearch {

std::int64_t replay_operations(std::string_view query, std::string_view target, const ScoringScheme& scoring,
                               PairAlignment& alignment) {
  alignment.identities = alignment.mismatches = alignment.gap_opens = alignment.gaps = 0;
  std::int64_t score = 0;
  std::size_t i = alignment.query_begin, j = alignment.subject_begin;
  char previous = 'M';
  for (const char op : alignment.operations) {
    if (op == 'M') {
      if (i >= alignment.query_end || j >= alignment.subject_end)
        throw std::logic_error("replay_operations: the operations overrun the span");
      score += scoring.score(static_cast<std::uint8_t>(query[i]), static_cast<std::uint8_t>(target[j]));
      ++(query[i] == target[j] ? alignment.identities : alignment.mismatches);
      ++i;
      ++j;
    } else if (op == 'I' || op == 'D') {
      if (op != previous) {
        score -= scoring.gap_open();
        ++alignment.gap_opens;
      }
      score -= scoring.gap_extend();
      ++alignment.gaps;
      ++(op == 'I' ? i : j);
      if (i > alignment.query_end || j > alignment.subject_end)
        throw std::logic_error("replay_operations: the operations overrun the span");
    } else {
      throw std::logic_error(std::string("replay_operations: unknown operation '") + op + "'");
    }
    previous = op;
  }
  if (i != alignment.query_end || j != alignment.subject_end)
    throw std::logic_error("replay_operations: the operations do not cover the span");
  return score;
}

namespace {

class CpuPairBackend final : public PairBackend {
 public:
  CpuPairBackend(const ScoringScheme& scoring, const AlignOptions& options, unsigned threads)
      : scoring_(scoring), options_(options), threads_(threads) {}

  std::string description() const override {
    return "cpu (" + std::to_string(threads_) + (threads_ == 1 ? " thread)" : " threads)");
  }

  double align(const std::vector<SequencePair>& pairs, std::vector<PairAlignment>& results) override {
    // Largest pairs first: a long pair claimed last would leave the other threads idle.
    std::vector<std::size_t> order(pairs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto area = [&](std::size_t p) {
      return static_cast<double>(pairs[p].query.size()) * static_cast<double>(pairs[p].target.size());
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return area(a) > area(b); });

    const unsigned workers =
        static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads_, pairs.size())));
    // Fewer pairs than threads (a few long pairs): each pair's linear-memory traceback shares the rest.
    cpu::AlignmentLimits limits;
    limits.threads = std::max(1u, threads_ / workers);
    std::vector<XdropAligner> xdrop_aligners;
    if (options_.mode == AlignmentMode::xdrop)
      for (unsigned w = 0; w < workers; ++w) xdrop_aligners.emplace_back(scoring_, options_.xdrop);
    std::vector<double> cells(workers, 0.0);
    parallel_for(pairs.size(), workers, [&](std::size_t k, unsigned worker) {
      // Before every pair (one relaxed atomic load): a signal then stops each thread within one pair.
      throw_if_interrupted();
      const std::size_t p = order[k];
      const SequencePair& pair = pairs[p];
      PairAlignment& result = results[p];
      if (options_.mode == AlignmentMode::xdrop) {
        XdropAligner& aligner = xdrop_aligners[worker];
        const std::uint64_t before = aligner.cells();
        XdropAlignment alignment;
        try {
          alignment = aligner.align(pair.query, pair.target, pair.seed, options_.operations);
        } catch (const std::out_of_range& e) {
          throw std::out_of_range("pair " + std::to_string(p + 1) + " of the batch: " + e.what());
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument("pair " + std::to_string(p + 1) + " of the batch: " + e.what());
        }
        cells[worker] += static_cast<double>(aligner.cells() - before);
        set_span(result, alignment.span);
        result.operations = std::move(alignment.operations);
      } else {
        const AlignmentMode mode = options_.mode;
        cells[worker] += area(p);
        if (options_.operations) {
          result = cpu::align_pair(pair.query, pair.target, scoring_, mode, limits);
        } else {
          set_span(result, cpu::pair_span(pair.query, pair.target, scoring_, mode));
        }
      }
      if (options_.operations) {
        const std::int64_t replayed = replay_operations(pair.query, pair.target, scoring_, result);
        if (replayed != result.score)
          throw std::logic_error("internal error: the operations of pair " + std::to_string(p + 1) + " replay to " +
                                 std::to_string(replayed) + ", not to its score " + std::to_string(result.score));
      }
    });
    return std::accumulate(cells.begin(), cells.end(), 0.0);
  }

 private:
  const ScoringScheme& scoring_;
  AlignOptions options_;
  unsigned threads_;
};

}  // namespace

std::unique_ptr<PairBackend> make_cpu_pair_backend(const ScoringScheme& scoring, const AlignOptions& options,
                                                   unsigned threads) {
  return std::make_unique<CpuPairBackend>(scoring, options, threads);
}

struct AlignEngine::Impl {
  ScoringScheme scoring;
  AlignOptions options;
  std::unique_ptr<PairBackend> backend;
  double cells = 0;

  Impl(ScoringScheme scheme, AlignOptions opts) : scoring(std::move(scheme)), options(std::move(opts)) {
    if (options.xdrop.value < 0)
      throw std::invalid_argument("the X-drop must be at least 0, not " + std::to_string(options.xdrop.value));
    const unsigned threads = threads_or_usable_cpus(options.threads);
#ifdef WARPSEARCH_HAVE_CUDA
    if (options.device == Device::gpu || (options.device == Device::automatic && gpu_pair_backend_usable()))
      backend = make_gpu_pair_backend(scoring, options, threads);
#else
    if (options.device == Device::gpu)
      throw std::invalid_argument(
          "--device gpu: no usable GPU, this warpsearch was built without CUDA (rebuild with -DWARPSEARCH_CUDA=ON)");
#endif
    if (!backend) backend = make_cpu_pair_backend(scoring, options, threads);
  }
};

AlignEngine::AlignEngine(ScoringScheme scoring, AlignOptions options)
    : impl_(std::make_unique<Impl>(std::move(scoring), std::move(options))) {}
AlignEngine::AlignEngine(AlignEngine&&) noexcept = default;
AlignEngine& AlignEngine::operator=(AlignEngine&&) noexcept = default;
AlignEngine::~AlignEngine() = default;

std::vector<PairAlignment> AlignEngine::align(const std::vector<SequencePair>& pairs) {
  std::vector<PairAlignment> results(pairs.size());
  impl_->cells += impl_->backend->align(pairs, results);
  return results;
}

double AlignEngine::cells() const { return impl_->cells; }
std::string AlignEngine::backend_description() const { return impl_->backend->description(); }
const ScoringScheme& AlignEngine::scoring() const { return impl_->scoring; }
const AlignOptions& AlignEngine::options() const { return impl_->options; }

}  // namespace warpsearch
