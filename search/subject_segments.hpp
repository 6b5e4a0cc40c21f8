// Long subjects cut into overlapping segments, packed as a database chunk is (core/subject_batch.hpp),
// so that the inter-sequence kernels (CPU SIMD lanes, GPU thread groups) score them as ordinary subjects
// instead of keeping one lane or one block busy with a whole chromosome.
//
// Each segment owns a run of its subject's positions and starts reach - 1 positions before it (rounded
// down to a word boundary: a little more context), with reach = cpu::alignment_reach for the lowest
// threshold of the queries scored. By kernels/cpu/long_subject.hpp, a subject's best local score, when
// it reaches a query's threshold, is then the best of its segments' scores, and a column can only be hot
// (hold a cell at the threshold) inside the owned part of a segment whose score reaches the threshold.
//
// Thread safety: immutable after construction; SegmentHits::add may be called from many threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "core/subject_batch.hpp"
#include "kernels/cpu/column_range.hpp"

namespace warpsearch {

class SubjectSegments {
 public:
  struct Origin {
    std::size_t subject = 0;           // index in the batch the segments were cut from
    std::uint64_t begin = 0;           // the subject position of the segment's first residue
    std::uint64_t first = 0, end = 0;  // the positions the segment owns
  };

  // How the segments are cut and copied. min_segments: see segment_length. wave (GPU): when not 0, the
  // segments that run at once; each subject is then cut into equal parts of at most wave_length's owned
  // length. threads: the copy's (a genome's 100 Mb took 0.2-0.3 s on one thread, growing its vector).
  struct Plan {
    std::uint64_t min_segments = 0;
    std::uint64_t wave = 0;
    unsigned threads = 1;
  };
  // Segments of subjects [first_subject, all.count) of `all`; pad_code fills the bytes past a segment's
  // end in its last word.
  SubjectSegments(const SubjectBatch& all, std::size_t first_subject, std::uint64_t reach, std::uint8_t pad_code,
                  const Plan& plan);

  // Owned length: max(32 k, 8 * reach), where the context costs at most an eighth; shorter (down to
  // 2 * reach) where that leaves fewer than min_segments segments for `residues` in all, so that every
  // SIMD lane gets work (the CPU kernel scores one segment per lane).
  static std::uint64_t segment_length(std::uint64_t reach, std::uint64_t residues, std::uint64_t min_segments);

  // Owned length for subjects of these lengths on a GPU that runs `wave` segments at once, each as long
  // as its longest: of the lengths L from max(kMinWaveLength, reach / 2) whose segments (ceil(length /
  // L) a subject) take no more waves than segment_length's, the one of the fewest scan steps, waves(L)
  // * (L + reach), the shortest on ties; segment_length's where none has fewer. A query's segments all
  // start together and the last wave decides when they end, so the plan fills whole waves, and one wave
  // of longer segments beats two of shorter ones (their context is paid once): the genome benchmark's
  // 10 kb query (reach about 20 k) against 20 chromosomes of 5 Mb cut at 8 reaches made 640 segments,
  // 2.4 waves of the H100's 264 with two queries in flight, where 260 segments of 385 k fill one.
  static constexpr std::uint64_t kMinWaveLength = 4096;
  static std::uint64_t wave_length(const std::vector<std::uint64_t>& lengths, std::uint64_t reach, std::uint64_t wave);

  // The GPU scan's kernels for subjects longer than 4096 (kernels/gpu/gpu_scorer.hpp), all GPUs together:
  // the pairs of segments each runs at once, and the terms of the choice between them.
  struct GpuKernels {
    std::uint64_t cooperative_pairs = 0;   // the cooperative kernel's (a pair per block)
    std::uint64_t streamed_pairs = 0;      // the streamed kernel's (a pair per warp)
    std::size_t streamed_max_query = 0;    // the streamed kernel takes queries up to this long
    std::uint64_t streamed_min_waves = 0;  // where the call's such queries give it this many waves
    std::uint64_t queries_in_flight = 1;   // on each GPU
  };
  // The wave for a GPU scan of subjects [first_subject, all.count) against queries of these lengths:
  // where the cooperative kernel takes them, its pairs, two segments each, shared by the queries in
  // flight. 0 (the default plan) where the streamed kernel may take them (every query fits it and their
  // jobs give it its waves): its waves are small beside a query's jobs, and planning for them measured
  // no gain. Measured on one H100 (bench/results/segment_waves_h100.tsv, outputs identical): the genome
  // benchmark's scan 1.05-1.07 s against 1.13-1.22 s, the 10 kb query against one 5 Mb chromosome
  // 0.10-0.13 s against 0.18 s.
  static std::uint64_t gpu_wave(const SubjectBatch& all, std::size_t first_subject, std::uint64_t reach,
                                const std::vector<std::size_t>& query_lengths, const GpuKernels& kernels);

  SubjectBatch batch() const { return {words_.get(), word_count_, offsets_.data(), lengths_.data(), lengths_.size()}; }
  const Origin& origin(std::size_t segment) const { return origins_[segment]; }
  std::uint64_t reach() const { return reach_; }

 private:
  std::uint64_t reach_;
  std::unique_ptr<std::uint32_t[]> words_;  // the segments' residues, packed (not zeroed first: all copied)
  std::uint64_t word_count_ = 0;
  std::vector<std::uint64_t> offsets_;
  std::vector<std::uint32_t> lengths_;
  std::vector<Origin> origins_;
};

// Where a scan found a long subject's hits (ScanBackend::hit_regions): subject positions outside which
// no column holds a cell at the query's threshold. hot: the ranges are as fine as the HSP search's hot
// columns need (search/hsps.hpp): the hot columns themselves, or the kernels' tiles or stripes holding
// them (at most 1,024 positions each), so the search takes them as its hot columns instead of computing
// its own; any superset of the hot columns gives the same HSPs, a finer one only smaller windows. Not
// hot: whole segments' owned ranges, inside which the search computes the hot columns.
struct SubjectRegions {
  std::vector<cpu::ColumnRange> ranges;  // ascending, disjoint
  bool hot = false;
};

// The scores of segments that reached their query's threshold, gathered per (query, subject): the best
// score and the regions of its hits: the owned ranges of those segments, or, where the scan told where
// in them cells reach the threshold (add_hot, then hot_found, complete every time), those columns (or
// tiles) within the owned ranges, hot.
class SegmentHits {
 public:
  struct Subject {
    int score = 0;
    SubjectRegions regions;
  };

  void add(const SubjectSegments& segments, std::size_t query, std::size_t segment, int score);
  // Columns [begin, end) of the segment (positions from the segment's first residue) may hold a cell at
  // the query's threshold.
  void add_hot(const SubjectSegments& segments, std::size_t query, std::size_t segment, std::uint64_t begin,
               std::uint64_t end);
  // Whether add_hot was given every hot column of the query's segments in one part of the scan; once
  // false for a query, its regions are whole owned ranges.
  void hot_found(std::size_t query, bool complete);
  // (query, subject index) -> its best score and regions (sorted and merged), for every query or for one;
  // what is taken is forgotten.
  using Taken = std::map<std::pair<std::size_t, std::size_t>, Subject>;
  Taken take();
  Taken take(std::size_t query);

 private:
  struct Entry {
    int score = 0;
    std::vector<cpu::ColumnRange> owned, hot;
  };
  using Entries = std::map<std::pair<std::size_t, std::size_t>, Entry>;
  Taken take_locked(Entries::iterator begin, Entries::iterator end);
  std::mutex mutex_;
  Entries hits_;
  std::map<std::size_t, bool> hot_known_;  // per query: hot_found was called, complete every time
};

// The hit regions of the long subjects scanned since the last clear(), by query, FASTA position and frame
// (of a translated subject; 0 otherwise): what a scan backend keeps for ScanBackend::hit_regions.
// Thread-safe; a region found stays valid until clear().
class HitRegions {
 public:
  void clear();
  void keep(std::size_t query, std::uint64_t subject, std::int8_t frame, SubjectRegions regions);
  const SubjectRegions* find(std::size_t query, std::uint64_t subject, std::int8_t frame) const;
  // Takes a scan's hits of long subjects (SegmentHits::take): keeps each subject's regions under its FASTA
  // position (original[k] for the chunk's subject k) and frame (subject_frames[k]; without frames, 0), and
  // gives its score to sink(query, k, score).
  template <class Sink>
  void keep_all(SegmentHits& hits, const std::uint64_t* original, const std::int8_t* subject_frames, const Sink& sink) {
    keep_taken(hits.take(), original, subject_frames, sink);
  }
  // The same for one query's hits, once its scan is complete.
  template <class Sink>
  void keep_query(SegmentHits& hits, std::size_t query, const std::uint64_t* original,
                  const std::int8_t* subject_frames, const Sink& sink) {
    keep_taken(hits.take(query), original, subject_frames, sink);
  }

 private:
  template <class Sink>
  void keep_taken(SegmentHits::Taken taken, const std::uint64_t* original, const std::int8_t* subject_frames,
                  const Sink& sink) {
    for (auto& [key, subject] : taken) {
      keep(key.first, original[key.second], subject_frames ? subject_frames[key.second] : std::int8_t{0},
           std::move(subject.regions));
      sink(key.first, key.second, subject.score);
    }
  }

  mutable std::mutex mutex_;
  std::map<std::tuple<std::size_t, std::uint64_t, std::int8_t>, SubjectRegions> regions_;
};

}  // namespace warpsearch
