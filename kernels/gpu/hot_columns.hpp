// GPU hot columns: for a query against a stretch of a long subject, the subject positions whose column
// holds a local-alignment cell at or above a threshold. The engine searches a long subject's HSPs only
// in windows around these columns (docs/long_sequences.md); this is the GPU twin of the striped CPU
// kernel's column report (cpu::scan_segment), run on the segments where the scan found hits. This header
// holds no CUDA types; the kernel lives in kernels/gpu/hot_columns.cu.
//
// Exact: a column is flagged if and only if the local DP over the task's stretch (alignments may start
// anywhere in it) has a cell >= threshold in that column. Each task is cut into pieces that fill the
// device, each scanned with `reach - 1` positions of context before what it owns, which by the seam
// argument of kernels/cpu/long_subject.hpp gives the same flags as one pass over the whole stretch.
//
// Thread safety: a HotColumnScanner may be used by one thread at a time; different scanners (one per
// device) may run in parallel threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "profile/scoring.hpp"

namespace warpsearch::gpu {

struct HotColumnTask {
  std::string_view query;        // residue codes of the scoring scheme's alphabet
  std::string_view subject;      // the stretch scanned: context, then the owned columns
  std::uint64_t owned_from = 0;  // offset in `subject` of the first owned column
  std::uint64_t reach = 1;       // the longest subject span of an alignment reaching the threshold (>= 1)
  std::int64_t threshold = 1;    // >= 1
};

class HotColumnScanner {
 public:
  // The longest query accepted: keeps every 32-bit value of the recurrence far from overflow for any
  // valid scoring scheme (scores below 2^7 per residue pair).
  static constexpr std::size_t kMaxQueryLength = std::size_t{1} << 22;

  // Binds to a device (0-based) and uploads the scoring table. Throws std::invalid_argument for a bad
  // device and std::runtime_error on a CUDA error.
  HotColumnScanner(int device, const ScoringScheme& scoring);
  ~HotColumnScanner();
  HotColumnScanner(HotColumnScanner&&) noexcept;
  HotColumnScanner& operator=(HotColumnScanner&&) noexcept;
  HotColumnScanner(const HotColumnScanner&) = delete;
  HotColumnScanner& operator=(const HotColumnScanner&) = delete;

  // hot[k][c] = 1 when owned column c of tasks[k] (subject position owned_from + c) is hot, else 0;
  // hot[k] has subject.size() - owned_from entries. Blocks until done. Throws std::invalid_argument for a
  // query longer than kMaxQueryLength or owned_from beyond the subject.
  void scan(const std::vector<HotColumnTask>& tasks, std::vector<std::vector<std::uint8_t>>& hot);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsearch::gpu
