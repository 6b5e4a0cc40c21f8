#include "search/subject_segments.hpp"

#include <algorithm>

#include "base/parallel.hpp"
#include "kernels/cpu/long_subject.hpp"

namespace warpsearch {
namespace {

// Subjects [first, all.count) of `all`: their lengths, and their residues in all.
std::vector<std::uint64_t> lengths_of(const SubjectBatch& all, std::size_t first) {
  return std::vector<std::uint64_t>(all.lengths + std::min(first, all.count), all.lengths + all.count);
}
std::uint64_t residues_of(const std::vector<std::uint64_t>& lengths) {
  std::uint64_t residues = 0;
  for (const std::uint64_t length : lengths) residues += length;
  return residues;
}
// The segments that own at most `owned` positions each make of these subjects.
std::uint64_t segments_of(const std::vector<std::uint64_t>& lengths, std::uint64_t owned) {
  std::uint64_t count = 0;
  for (const std::uint64_t length : lengths) count += (length + owned - 1) / owned;
  return count;
}

}  // namespace

std::uint64_t SubjectSegments::segment_length(std::uint64_t reach, std::uint64_t residues, std::uint64_t min_segments) {
  const std::uint64_t preferred = std::max<std::uint64_t>(std::uint64_t{1} << 15, 8 * reach);
  if (min_segments == 0) return preferred;
  return std::max(2 * reach, std::min(preferred, (residues + min_segments - 1) / min_segments));
}

std::uint64_t SubjectSegments::wave_length(const std::vector<std::uint64_t>& lengths, std::uint64_t reach,
                                           std::uint64_t wave) {
  const std::uint64_t preferred = segment_length(reach, residues_of(lengths), 0);
  if (wave == 0 || lengths.empty()) return preferred;
  const std::uint64_t longest = *std::max_element(lengths.begin(), lengths.end());
  const auto segments = [&](std::uint64_t owned) { return segments_of(lengths, owned); };
  const auto steps = [&](std::uint64_t owned) { return (segments(owned) + wave - 1) / wave * (owned + reach); };
  const std::uint64_t shortest = std::max(kMinWaveLength, reach / 2);
  std::uint64_t best = preferred;
  const std::uint64_t preferred_waves = (segments(preferred) + wave - 1) / wave;
  // For each count of waves up to the preferred length's, the shortest length that fits in them.
  for (std::uint64_t waves = 1; waves <= preferred_waves; ++waves) {
    std::uint64_t low = shortest, high = std::max(longest, shortest);
    if (segments(high) > waves * wave) continue;  // more subjects than the waves hold
    while (low < high) {
      const std::uint64_t middle = low + (high - low) / 2;
      if (segments(middle) <= waves * wave)
        high = middle;
      else
        low = middle + 1;
    }
    if (steps(low) < steps(best)) best = low;
  }
  return best;
}

std::uint64_t SubjectSegments::gpu_wave(const SubjectBatch& all, std::size_t first_subject, std::uint64_t reach,
                                        const std::vector<std::size_t>& query_lengths, const GpuKernels& kernels) {
  const std::vector<std::uint64_t> lengths = lengths_of(all, first_subject);
  const std::uint64_t default_segments = segments_of(lengths, segment_length(reach, residues_of(lengths), 0));
  const std::uint64_t queries = query_lengths.size();
  const std::size_t longest = queries == 0 ? 0 : *std::max_element(query_lengths.begin(), query_lengths.end());
  if (longest <= kernels.streamed_max_query &&
      queries * (default_segments / 2) >= kernels.streamed_min_waves * kernels.streamed_pairs)
    return 0;
  return 2 * kernels.cooperative_pairs / std::clamp<std::uint64_t>(queries, 1, kernels.queries_in_flight);
}

SubjectSegments::SubjectSegments(const SubjectBatch& all, std::size_t first_subject, std::uint64_t reach,
                                 std::uint8_t pad_code, const Plan& plan)
    : reach_(reach) {
  const std::vector<std::uint64_t> lengths = lengths_of(all, first_subject);
  const std::uint64_t length_owned =
      std::max<std::uint64_t>(plan.wave > 0 ? wave_length(lengths, reach, plan.wave)
                                            : segment_length(reach, residues_of(lengths), plan.min_segments),
                              1);
  for (std::size_t s = first_subject; s < all.count; ++s) {
    // With waves, equal parts: the segments of a wave end together.
    const std::uint64_t parts = (all.lengths[s] + length_owned - 1) / length_owned;
    const std::uint64_t step = plan.wave > 0 && parts > 0 ? (all.lengths[s] + parts - 1) / parts : length_owned;
    for (const cpu::SubjectSegment& segment : cpu::plan_segments(all.lengths[s], reach, step)) {
      const std::uint64_t begin = segment.begin & ~std::uint64_t{3};  // word-aligned
      offsets_.push_back(word_count_);
      word_count_ += (segment.end - begin + 3) / 4;
      lengths_.push_back(static_cast<std::uint32_t>(segment.end - begin));
      origins_.push_back({s, begin, segment.first, segment.end});
    }
  }
  words_.reset(new std::uint32_t[std::max<std::uint64_t>(word_count_, 1)]);
  parallel_for(origins_.size(), plan.threads, [&](std::size_t k, unsigned) {
    const Origin& origin = origins_[k];
    const std::uint32_t* source = all.words + all.word_offsets[origin.subject] + origin.begin / 4;
    std::uint32_t* target = words_.get() + offsets_[k];
    std::copy(source, source + (lengths_[k] + 3) / 4, target);
    // Bytes past the segment's end (the subject goes on there) become padding, as in a chunk.
    for (std::uint64_t i = lengths_[k]; i % 4 != 0; ++i) {
      const unsigned shift = static_cast<unsigned>(8 * (i % 4));
      std::uint32_t& last = target[i / 4];
      last = (last & ~(0xFFu << shift)) | (std::uint32_t{pad_code} << shift);
    }
  });
}

void SegmentHits::add(const SubjectSegments& segments, std::size_t query, std::size_t segment, int score) {
  const SubjectSegments::Origin& origin = segments.origin(segment);
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& entry = hits_[{query, origin.subject}];
  entry.score = std::max(entry.score, score);
  entry.owned.push_back({origin.first, origin.end});
}

void SegmentHits::add_hot(const SubjectSegments& segments, std::size_t query, std::size_t segment, std::uint64_t begin,
                          std::uint64_t end) {
  const SubjectSegments::Origin& origin = segments.origin(segment);
  // Columns left of the owned part belong to the segment before, which finds them complete.
  const std::uint64_t first = std::max(origin.first, origin.begin + begin);
  const std::uint64_t last = std::min(origin.end, origin.begin + end);
  std::lock_guard<std::mutex> lock(mutex_);
  if (first < last) hits_[{query, origin.subject}].hot.push_back({first, last});
}

void SegmentHits::hot_found(std::size_t query, bool complete) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto [known, first_time] = hot_known_.emplace(query, complete);
  if (!first_time && !complete) known->second = false;
}

namespace {

// Sorted and merged where they overlap or touch.
std::vector<cpu::ColumnRange> merged(std::vector<cpu::ColumnRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const cpu::ColumnRange& a, const cpu::ColumnRange& b) { return a.begin < b.begin; });
  std::vector<cpu::ColumnRange> out;
  for (const cpu::ColumnRange& range : ranges) {
    if (!out.empty() && out.back().end >= range.begin)
      out.back().end = std::max(out.back().end, range.end);
    else
      out.push_back(range);
  }
  return out;
}

}  // namespace

SegmentHits::Taken SegmentHits::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  auto taken = take_locked(hits_.begin(), hits_.end());
  hot_known_.clear();
  return taken;
}

SegmentHits::Taken SegmentHits::take(std::size_t query) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto taken = take_locked(hits_.lower_bound({query, 0}), hits_.lower_bound({query + 1, 0}));
  hot_known_.erase(query);
  return taken;
}

SegmentHits::Taken SegmentHits::take_locked(Entries::iterator begin, Entries::iterator end) {
  Taken taken;
  for (auto it = begin; it != end; ++it) {
    auto& [key, entry] = *it;
    if (entry.owned.empty()) continue;  // hot columns of a segment that did not reach the threshold
    const auto known = hot_known_.find(key.first);
    const bool hot = known != hot_known_.end() && known->second;
    Subject& subject = taken[key];
    subject.score = entry.score;
    subject.regions = {merged(hot ? std::move(entry.hot) : std::move(entry.owned)), hot};
  }
  hits_.erase(begin, end);
  return taken;
}

void HitRegions::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  regions_.clear();
}

void HitRegions::keep(std::size_t query, std::uint64_t subject, std::int8_t frame, SubjectRegions regions) {
  std::lock_guard<std::mutex> lock(mutex_);
  regions_[{query, subject, frame}] = std::move(regions);
}

const SubjectRegions* HitRegions::find(std::size_t query, std::uint64_t subject, std::int8_t frame) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = regions_.find({query, subject, frame});
  return found == regions_.end() ? nullptr : &found->second;
}

}  // namespace warpsearch
