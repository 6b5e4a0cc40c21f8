// A scan backend scores prepared queries against one database chunk and hands every score that passes
// the query's threshold to a sink; it also locates the hits the engine keeps (score, start and end of
// each local alignment). The engine owns the thresholds, the top hits and the traceback inside each
// located span (on the CPU), so every backend yields the same results.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/span.hpp"
#include "db/database.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/column_range.hpp"
#include "kernels/cpu/long_subject.hpp"
#include "profile/scoring.hpp"
#include "search/subject_segments.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch {

// One strand (or, translated, one frame) of one query, ready to scan.
struct PreparedQuery {
  std::size_t query = 0;  // index into the searched queries
  Strand strand = Strand::plus;
  std::string codes;  // the residues searched (the reverse complement for Strand::minus; the
                      // frame's amino acids for a translated query)
  int threshold = 1;  // scores below this cannot be reported
  int frame = 0;      // translated queries: the frame (+1..+3, -1..-3); else 0
};

// sink(prepared query index, subject index within the chunk, score); called from several threads.
using ScoreSink = std::function<void(std::size_t, std::uint64_t, int)>;
// done(prepared query index): every score of that query against the chunk has gone to the sink (called
// once per query and scan(), from any thread, possibly while other queries are still being scored).
using QueryDone = std::function<void(std::size_t)>;

// One hit to locate: residue codes of the searched query strand (PreparedQuery::codes) and of the
// subject. The views must stay valid during the locate() call only. min_score: the least score whose
// start the caller needs; a span scoring less may come back with its score and end only (the start
// pass a GPU would run for it over the whole reversed prefixes is skipped).
struct HitPair {
  std::string_view query;
  std::string_view subject;
  std::int64_t min_score = 0;
};

// A segment of a long subject whose hot columns the HSP search needs (cpu::scan_segment's): the columns
// of segment [first, end) holding a cell >= threshold of the query's local alignment against the subject
// from segment.begin on. reach: cpu::alignment_reach for the query and threshold.
struct HotColumnRequest {
  std::string_view query;
  std::string_view subject;  // the whole subject
  cpu::SubjectSegment segment;
  std::int64_t threshold = 1;
  std::uint64_t reach = 1;
};

class ScanBackend {
 public:
  virtual ~ScanBackend() = default;
  // Prepares for a batch of queries (profiles, uploads); called once per batch before scan().
  virtual void set_queries(const std::vector<PreparedQuery>& queries) = 0;
  // subject_frames: for a chunk of translated subjects (search/translation.hpp), the frame of each of its
  // subjects, which hit_regions() keeps apart; nullptr otherwise.
  virtual void scan(const Chunk& chunk, const std::int8_t* subject_frames, const ScoreSink& sink,
                    const QueryDone& done) = 0;
  // The part the next scan() call will get (nullopt: none), told before this one, so that a backend can
  // load it while it scans this one. Optional.
  virtual void upcoming(std::optional<Chunk> next) { (void)next; }
  // spans[k] (spans is resized) = the local span of pairs[k] exactly as reference::span gives it (its
  // score and end only where it scores below pairs[k].min_score)
  // (kernels/reference/reference.hpp, tie-break included): end = the maximal cell with the smallest subject
  // position, then the smallest query position; start = the largest subject start, then the largest
  // query start among the optimal alignments ending there. Independent of set_queries(); not to be
  // called while scan() runs unless locates_while_scanning(). Throws std::invalid_argument for a code
  // outside the alphabet and std::overflow_error for a pair beyond the CPU striped kernels' bound
  // (cpu::pair_span).
  virtual void locate(const std::vector<HitPair>& pairs, std::vector<Span>& spans) = 0;
  // For long subjects, scanned in segments (search/subject_segments.hpp): the subject ranges outside
  // which no column of the subject at FASTA position `subject` (of its frame `subject_frame` when
  // translated, else 0) holds a cell at prepared query `prepared`'s threshold, and whether they serve as
  // its hot columns (SubjectRegions), kept from the scans since the last set_queries(); nullptr when
  // unknown (every column may). Not to be called while scan() runs, unless locates_while_scanning() and
  // the query is done.
  virtual const SubjectRegions* hit_regions(std::size_t prepared, std::uint64_t subject,
                                            std::int8_t subject_frame) const {
    (void)prepared;
    (void)subject;
    (void)subject_frame;
    return nullptr;
  }
  // hot[k] (hot is resized) = the hot columns of requests[k], in whole-subject positions, ascending and
  // disjoint: exactly the columns holding a cell >= threshold, or a superset of them as
  // cpu::scan_segment gives (the HSPs found are the same). false: this backend leaves them to the
  // engine's CPU threads. Same calling rules as locate().
  virtual bool hot_columns(const std::vector<HotColumnRequest>& requests,
                           std::vector<std::vector<cpu::ColumnRange>>& hot) {
    (void)requests;
    (void)hot;
    return false;
  }
  // Where the traceback of the hits may compute the rows of large rectangles (a GPU:
  // search/gpu_long_pairs.hpp); nullptr: on the CPU. The operations are the same either way. Called
  // from several threads at once.
  virtual cpu::GlobalRowSource* row_source() { return nullptr; }
  // Whether locate() may run on another thread while scan() runs (and gains from it: the scan leaves
  // the CPU cores free).
  virtual bool locates_while_scanning() const { return false; }
  // Asks the backend to add to `cells` (relaxed atomic adds, a few per task, never per cell) the query
  // residues x subject residues it has scored in the current scan(), for a progress report finer than
  // one chunk. Returns false when the backend does not count (the engine then counts each query as
  // done() reports it). nullptr stops counting.
  virtual bool count_cells(std::atomic<std::uint64_t>* cells) {
    (void)cells;
    return false;
  }
  virtual std::string description() const = 0;
};

// Subjects at least this long are scanned as overlapping segments (search/subject_segments.hpp).
inline constexpr std::uint64_t kLongSubjectLength = std::uint64_t{1} << 16;

// threads: 0 = every core. long_subject_length: see kLongSubjectLength (smaller values in tests).
std::unique_ptr<ScanBackend> make_cpu_backend(const ScoringScheme& scoring, unsigned threads,
                                              std::uint64_t long_subject_length = kLongSubjectLength);
#ifdef WARPSEARCH_HAVE_CUDA
// Throws std::runtime_error when none of the requested GPUs is usable. memory_limit: device bytes each
// GPU may use for the scan (0 = what it has free); larger chunks are scanned in several batches of
// subjects. threads: CPU threads for the pairs locate() leaves to the CPU (longer than the GPU pair
// kernel takes; 0 = every core).
std::unique_ptr<ScanBackend> make_gpu_backend(const ScoringScheme& scoring, const std::vector<int>& gpus,
                                              std::uint64_t memory_limit, unsigned threads);
int usable_gpu_count();
#endif

}  // namespace warpsearch
