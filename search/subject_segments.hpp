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

  // Segments of subjects [first_subject, all.count) of `all`; pad_code fills the bytes past a segment's
  // end in its last word. min_segments: see segment_length.
  SubjectSegments(const SubjectBatch& all, std::size_t first_subject, std::uint64_t reach, std::uint8_t pad_code,
                  std::uint64_t min_segments = 0);

  // Owned length: max(32 k, 8 * reach), where the context costs at most an eighth; shorter (down to
  // 2 * reach) where that leaves fewer than min_segments segments for `residues` in all, so that every
  // SIMD lane gets work (the CPU kernel scores one segment per lane).
  static std::uint64_t segment_length(std::uint64_t reach, std::uint64_t residues, std::uint64_t min_segments);

  SubjectBatch batch() const {
    return {words_.data(), words_.size(), offsets_.data(), lengths_.data(), lengths_.size()};
  }
  const Origin& origin(std::size_t segment) const { return origins_[segment]; }
  std::uint64_t reach() const { return reach_; }

 private:
  std::uint64_t reach_;
  std::vector<std::uint32_t> words_;
  std::vector<std::uint64_t> offsets_;
  std::vector<std::uint32_t> lengths_;
  std::vector<Origin> origins_;
};

// The scores of segments that reached their query's threshold, gathered per (query, subject): the best
// score and the regions of its hits: the owned ranges of those segments, or, where the scan told where
// in them cells reach the threshold (add_hot, then hot_found, complete every time), those columns within
// the owned ranges.
class SegmentHits {
 public:
  struct Subject {
    int score = 0;
    std::vector<cpu::ColumnRange> regions;  // ascending, disjoint
  };

  void add(const SubjectSegments& segments, std::size_t query, std::size_t segment, int score);
  // Columns [begin, end) of the segment (positions from the segment's first residue) may hold a cell at
  // the query's threshold.
  void add_hot(const SubjectSegments& segments, std::size_t query, std::size_t segment, std::uint64_t begin,
               std::uint64_t end);
  // Whether add_hot was given every hot column of the query's segments in one part of the scan; once
  // false for a query, its regions are whole owned ranges.
  void hot_found(std::size_t query, bool complete);
  // (query, subject index) -> its best score and regions (sorted and merged).
  std::map<std::pair<std::size_t, std::size_t>, Subject> take();

 private:
  struct Entry {
    int score = 0;
    std::vector<cpu::ColumnRange> owned, hot;
  };
  std::mutex mutex_;
  std::map<std::pair<std::size_t, std::size_t>, Entry> hits_;
  std::map<std::size_t, bool> hot_known_;  // per query: hot_found was called, complete every time
};

// The hit regions of the long subjects scanned since the last clear(), by query, FASTA position and frame
// (of a translated subject; 0 otherwise): what a scan backend keeps for ScanBackend::hit_regions.
// Thread-safe; a region found stays valid until clear().
class HitRegions {
 public:
  void clear();
  void keep(std::size_t query, std::uint64_t subject, std::int8_t frame, std::vector<cpu::ColumnRange> regions);
  const std::vector<cpu::ColumnRange>* find(std::size_t query, std::uint64_t subject, std::int8_t frame) const;
  // Takes a scan's hits of long subjects (SegmentHits::take): keeps each subject's regions under its FASTA
  // position (original[k] for the chunk's subject k) and frame (subject_frames[k]; without frames, 0), and
  // gives its score to sink(query, k, score).
  template <class Sink>
  void keep_all(SegmentHits& hits, const std::uint64_t* original, const std::int8_t* subject_frames, const Sink& sink) {
    for (auto& [key, subject] : hits.take()) {
      keep(key.first, original[key.second], subject_frames ? subject_frames[key.second] : std::int8_t{0},
           std::move(subject.regions));
      sink(key.first, key.second, subject.score);
    }
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::tuple<std::size_t, std::uint64_t, std::int8_t>, std::vector<cpu::ColumnRange>> regions_;
};

}  // namespace warpsearch
