// GPU Smith-Waterman scoring: exact local alignment scores of many queries against a resident batch
// of subjects, on one CUDA device. This header holds no CUDA types; the kernels and the CUDA runtime
// calls live behind the pimpl in kernels/gpu/*.cu.
//
// Scores follow profile/scoring.hpp: a gap of length k costs open + k * extend. Every score is exact:
// pairs are scored with 16-bit lanes (two subjects per 32-bit register) and any pair that comes close
// to the 16-bit range is rescored with 32-bit lanes.
//
// Thread safety: a GpuScorer may be used by one thread at a time; different GpuScorers (one per device)
// may run in parallel threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/subject_batch.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::gpu {

// Number of CUDA devices this build can run on; 0 (never throws) when there is no driver or GPU.
int usable_device_count();

// One score at or above its query's threshold (GpuScorer::score_above).
struct ScoreHit {
  std::uint32_t query;    // index into the call's queries
  std::uint32_t subject;  // index into the resident batch
  std::int32_t score;
};

// Columns [begin, end) of a resident subject, one tile of a tiled kernel (subjects longer than
// kMaxOnePassLength), holding a cell at or above the query's threshold (GpuScorer::score_above's hot tiles).
struct HotTile {
  std::uint32_t subject;  // index into the resident batch
  std::uint32_t begin, end;
};

// The hot tiles of one query: every tile of a subject longer than kMaxOnePassLength whose cells reach the
// threshold, and only those; `complete` false when there were more than the device list holds (none given).
struct HotTiles {
  bool complete = true;
  std::vector<HotTile> tiles;  // sorted by subject, then begin (a subject rescored in 32 bits may have
                               // tiles of both widths, overlapping)
};

class GpuScorer {
 public:
  // Copies of the substitution table in shared memory (1 to 3; kernels/gpu/table_copies.hpp): more
  // copies spread the lookups over the memory banks. Copies that do not fit the device are dropped.
  static constexpr int kDefaultTableCopies = 2;

  // Binds to a device (0-based) and uploads the scoring tables. Throws std::invalid_argument for a
  // device index out of range or table copies out of range, and std::runtime_error (with the failed CUDA
  // call) on a CUDA error.
  GpuScorer(int device, const ScoringScheme& scoring, int table_copies = kDefaultTableCopies);
  ~GpuScorer();
  GpuScorer(GpuScorer&&) noexcept;
  GpuScorer& operator=(GpuScorer&&) noexcept;
  GpuScorer(const GpuScorer&) = delete;
  GpuScorer& operator=(const GpuScorer&) = delete;

  // Copies the subjects to the device (the batch may be freed afterwards); they stay resident for the
  // following score() calls, replacing any earlier set. Subjects need not be sorted.
  void set_subjects(const SubjectBatch& subjects);

  // Exact scores of each query (residue codes of the scoring scheme's alphabet) against every resident
  // subject: scores[q * count + s], count = the resident batch's size. Blocks until done.
  void score(const std::vector<std::string>& query_codes, std::int32_t* scores);

  // The scores at or above thresholds[q] only, selected on the device (only they come back to the host):
  // exactly score()'s scores filtered on the host. Calls found(q, hits of query q, sorted by subject) on
  // the calling thread as each query is done, while the next ones are being scored, so the caller can
  // work on a query's hits during the call; queries are scored in the order given. When more scores pass
  // than a device list holds (set_hit_capacity; a threshold that passes most subjects), all of that
  // query's scores come back and are filtered on the host: same result, slower. An exception thrown by
  // found() ends the call.
  using HitsOfQuery = std::function<void(std::size_t query, const std::vector<ScoreHit>& hits)>;
  void score_above(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds,
                   const HitsOfQuery& found);
  // The same, and each query's hot tiles (HotTile): where in the subjects longer than kMaxOnePassLength a
  // cell reaches the threshold, at the resolution of the kernels' tiles (320 to 512 columns), for what
  // the scan itself computes. Subjects of up to kMaxOnePassLength are scored in one pass and get none.
  using HitsAndHotTiles =
      std::function<void(std::size_t query, const std::vector<ScoreHit>& hits, const HotTiles& hot)>;
  void score_above_with_hot_tiles(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds,
                                  const HitsAndHotTiles& found);
  static constexpr std::uint32_t kMaxOnePassLength = 1024;
  // The same, all hits at once, sorted by query, then subject.
  void score_above(const std::vector<std::string>& query_codes, const std::vector<int>& thresholds,
                   std::vector<ScoreHit>& hits);
  // Entries of each device hit list (default 2^20, 12 bytes each, one list per query in flight); tests
  // lower it to force the fallback.
  void set_hit_capacity(std::size_t hits);
  // Entries of each device list of hot tiles (default 2^20, 12 bytes each); tests lower it.
  void set_hot_tile_capacity(std::size_t tiles);
  // A bin reads the table with copies when its jobs fill the device with that launch shape at least
  // this many times over (default kDefaultCopiesMinWaves; 0: every bin that can). Takes effect at the
  // next set_subjects; tests and the benchmark set it.
  static constexpr double kDefaultCopiesMinWaves = 1.0;
  void set_table_copies_min_waves(double waves);
  // Warps that share a pair of subjects longer than 4096 (1, 2, 4 or 8; default 0: chosen per query by
  // its length and the number of such pairs, kernels/gpu/length_bins.hpp). Tests set it.
  void set_cooperative_team_warps(int warps);
  // Which kernel scores the pairs of subjects longer than 4096: chosen per query (automatic: the
  // streamed kernel, query in registers, for queries of up to 1,024 residues whose padded rows cost less
  // than the cooperative tiles' fill, where the call's such queries give its jobs several waves of the
  // device; kernels/gpu/sw_streamed.cuh), or forced (streamed: for every query it can take). Tests set it.
  enum class LongSubjectKernel { automatic, cooperative, streamed };
  void set_long_subject_kernel(LongSubjectKernel kernel);
  // The automatic choice's terms: queries longer than kStreamedMaxQuery take the cooperative kernel; the
  // others the streamed one where the call's such queries give its jobs at least kStreamedMinWaves waves
  // of the device (and, with kQueriesInFlight queries in flight, fill half of it).
  static constexpr std::size_t kStreamedMaxQuery = 1024;
  static constexpr int kStreamedMinWaves = 4;
  static constexpr int kQueriesInFlight = 2;
  // Pairs of subjects longer than 4096 that run at once (a wave of the device): the cooperative kernel's
  // with its largest team (a pair per block), the streamed kernel's (a pair per warp). A scan of long
  // subjects cut into segments sizes them to fill whole waves (search/subject_segments.hpp).
  std::size_t cooperative_pairs_per_wave() const;
  std::size_t streamed_pairs_per_wave() const;

  // Device memory a batch of subjects needs on top of what the scorer already holds (the subjects,
  // their bookkeeping and per-query scores, and the work space of queries up to max_query_length),
  // and the device memory free now: callers split larger chunks into several batches.
  static std::uint64_t bytes_for_subjects(std::uint64_t residues, std::size_t subjects, std::size_t max_query_length);
  std::uint64_t free_device_memory() const;

  // Where the last set_subjects spent its time (wall seconds): the job lists and plan tasks on the host,
  // uploading the residues and lists, then on the device the residues' conversion to compact codes and
  // the plan of the table copies.
  struct SetupTimings {
    double pack_seconds = 0, upload_seconds = 0, plan_seconds = 0;
  };
  SetupTimings setup_timings() const;

  // Residues and subjects resident on the device, and the device's name.
  std::uint64_t resident_residues() const;
  std::size_t resident_subjects() const;
  std::string device_name() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsearch::gpu
