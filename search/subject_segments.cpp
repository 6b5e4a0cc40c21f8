#include "search/subject_segments.hpp"

#include <algorithm>

#include "kernels/cpu/long_subject.hpp"

namespace warpsearch {

std::uint64_t SubjectSegments::segment_length(std::uint64_t reach, std::uint64_t residues, std::uint64_t min_segments) {
  const std::uint64_t preferred = std::max<std::uint64_t>(std::uint64_t{1} << 15, 8 * reach);
  if (min_segments == 0) return preferred;
  return std::max(2 * reach, std::min(preferred, (residues + min_segments - 1) / min_segments));
}

SubjectSegments::SubjectSegments(const SubjectBatch& all, std::size_t first_subject, std::uint64_t reach,
                                 std::uint8_t pad_code, std::uint64_t min_segments)
    : reach_(reach) {
  std::uint64_t residues = 0;
  for (std::size_t s = first_subject; s < all.count; ++s) residues += all.lengths[s];
  const std::uint64_t length_owned = std::max<std::uint64_t>(segment_length(reach, residues, min_segments), 1);
  for (std::size_t s = first_subject; s < all.count; ++s)
    for (const cpu::SubjectSegment& segment : cpu::plan_segments(all.lengths[s], reach, length_owned)) {
      const std::uint64_t begin = segment.begin & ~std::uint64_t{3};  // word-aligned
      const std::uint64_t length = segment.end - begin;
      const std::uint32_t* source = all.words + all.word_offsets[s] + begin / 4;
      offsets_.push_back(words_.size());
      words_.insert(words_.end(), source, source + (length + 3) / 4);
      // Bytes past the segment's end (the subject goes on there) become padding, as in a chunk.
      for (std::uint64_t i = length; i % 4 != 0; ++i) {
        const unsigned shift = static_cast<unsigned>(8 * (i % 4));
        words_.back() = (words_.back() & ~(0xFFu << shift)) | (std::uint32_t{pad_code} << shift);
      }
      lengths_.push_back(static_cast<std::uint32_t>(length));
      origins_.push_back({s, segment.first, segment.end});
    }
}

void SegmentHits::add(const SubjectSegments& segments, std::size_t query, std::size_t segment, int score) {
  const SubjectSegments::Origin& origin = segments.origin(segment);
  std::lock_guard<std::mutex> lock(mutex_);
  Subject& entry = hits_[{query, origin.subject}];
  entry.score = std::max(entry.score, score);
  entry.regions.push_back({origin.first, origin.end});
}

std::map<std::pair<std::size_t, std::size_t>, SegmentHits::Subject> SegmentHits::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, entry] : hits_) {
    std::sort(entry.regions.begin(), entry.regions.end(),
              [](const cpu::ColumnRange& a, const cpu::ColumnRange& b) { return a.begin < b.begin; });
    std::vector<cpu::ColumnRange> merged;
    for (const cpu::ColumnRange& region : entry.regions) {
      if (!merged.empty() && merged.back().end == region.begin)
        merged.back().end = region.end;
      else
        merged.push_back(region);
    }
    entry.regions = std::move(merged);
  }
  auto taken = std::move(hits_);
  hits_.clear();
  return taken;
}

}  // namespace warpsearch
