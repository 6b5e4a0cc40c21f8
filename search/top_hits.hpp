// The best K candidates of one query, by score (higher first), then E-value (lower first: with blastp's
// finite-size correction it depends on the subject's length), then subject position in the source
// FASTA (lower first), then strand (plus first), then the frames of translated searches: a total order,
// so the kept set does not depend on the order in which candidates arrive (thread count, GPU count, chunk
// order).
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "search/warpsearch.hpp"

namespace warpsearch {

struct Candidate {
  int score = 0;
  double evalue = 0.0;        // 0 when no statistics are computed
  std::uint64_t subject = 0;  // position in the source FASTA
  Strand strand = Strand::plus;
  std::uint32_t chunk = 0;  // where the subject lives, for the alignment pass
  std::uint64_t index_in_chunk = 0;
  std::int8_t query_frame = 0, subject_frame = 0;  // translated searches (CandidateKey)
};

inline CandidateKey key_of(const Candidate& candidate) {
  return {candidate.score,  candidate.evalue,      candidate.subject,
          candidate.strand, candidate.query_frame, candidate.subject_frame};
}

// true when a ranks before b (the order of CandidateKey, search/warpsearch.hpp)
inline bool ranks_before(const Candidate& a, const Candidate& b) { return ranks_before(key_of(a), key_of(b)); }

class TopHits {
 public:
  explicit TopHits(std::size_t capacity) : capacity_(capacity) {}

  void offer(const Candidate& candidate) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capacity_ == 0) return;
    auto worse = [](const Candidate& a, const Candidate& b) { return ranks_before(a, b); };
    if (heap_.size() < capacity_) {
      heap_.push_back(candidate);
      std::push_heap(heap_.begin(), heap_.end(), worse);  // front = the worst kept
    } else if (ranks_before(candidate, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), worse);
      heap_.back() = candidate;
      std::push_heap(heap_.begin(), heap_.end(), worse);
    }
  }

  // The kept candidates, best first.
  std::vector<Candidate> sorted() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Candidate> result = heap_;
    std::sort(result.begin(), result.end(), [](const Candidate& a, const Candidate& b) { return ranks_before(a, b); });
    return result;
  }

 private:
  std::size_t capacity_;
  std::vector<Candidate> heap_;
  mutable std::mutex mutex_;
};

}  // namespace warpsearch
