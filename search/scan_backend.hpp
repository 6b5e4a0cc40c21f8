// A scan backend scores prepared queries against one database chunk and hands every score that passes
// the query's threshold to a sink. The engine owns the thresholds, the top hits and the alignment pass,
// so every backend yields the same results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "profile/scoring.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch {

// One strand of one query, ready to scan.
struct PreparedQuery {
  std::size_t query = 0;   // index into the searched queries
  Strand strand = Strand::plus;
  std::string codes;       // the residues searched (the reverse complement for Strand::minus)
  int threshold = 1;       // scores below this cannot be reported
};

// sink(prepared query index, subject index within the chunk, score); called from several threads.
using ScoreSink = std::function<void(std::size_t, std::uint64_t, int)>;

class ScanBackend {
 public:
  virtual ~ScanBackend() = default;
  // Prepares for a batch of queries (profiles, uploads); called once per batch before scan().
  virtual void set_queries(const std::vector<PreparedQuery>& queries) = 0;
  virtual void scan(const Chunk& chunk, const ScoreSink& sink) = 0;
  virtual std::string description() const = 0;
};

std::unique_ptr<ScanBackend> make_cpu_backend(const ScoringScheme& scoring, unsigned threads);
#ifdef WARPSEARCH_HAVE_CUDA
// Throws std::runtime_error when none of the requested GPUs is usable. memory_limit: device bytes each
// GPU may use (0 = what it has free); larger chunks are scanned in several batches of subjects.
std::unique_ptr<ScanBackend> make_gpu_backend(const ScoringScheme& scoring, const std::vector<int>& gpus,
                                              std::uint64_t memory_limit);
int usable_gpu_count();
#endif

}  // namespace warpsearch
