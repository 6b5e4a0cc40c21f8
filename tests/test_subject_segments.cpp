// Long subjects as segments (search/subject_segments.hpp): the segments hold their subject's residues
// from their first position on and own disjoint ranges that cover it; the hits gathered per (query,
// subject) give the owned ranges of the segments that reached the threshold, or, where the scan told
// the hot columns of every part, those columns within the owned ranges.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "search/subject_segments.hpp"
#include "tests/catch.hpp"
#include "tests/packed_subjects.hpp"
#include "tests/random_sequences.hpp"

namespace {

using warpsearch::SegmentHits;
using warpsearch::SubjectSegments;
using warpsearch::cpu::ColumnRange;

// The subjects, and packed as a chunk (padding code 4).
struct Packed {
  std::vector<std::string> subjects;
  warpsearch::test::PackedSubjects packed;

  explicit Packed(std::vector<std::string> of) : subjects(std::move(of)), packed(subjects, 4) {}
  warpsearch::SubjectBatch batch() const { return packed.batch(); }
};

}  // namespace

TEST_CASE("SubjectSegments: each segment holds its subject's residues, the owned ranges cover the subject",
          "[segments]") {
  std::mt19937_64 rng(5);
  const Packed packed({warpsearch::test::random_codes(rng, 1000, 4), warpsearch::test::random_codes(rng, 100001, 4),
                       warpsearch::test::random_codes(rng, 70003, 4)});
  const std::uint64_t reach = 1001;
  const SubjectSegments segments(packed.batch(), 1, reach, 4, {});
  const warpsearch::SubjectBatch batch = segments.batch();
  REQUIRE(batch.count > 2);
  std::vector<std::uint64_t> covered(packed.subjects.size(), 0);
  for (std::size_t k = 0; k < batch.count; ++k) {
    const SubjectSegments::Origin& origin = segments.origin(k);
    REQUIRE(origin.subject >= 1);
    const std::string& subject = packed.subjects[origin.subject];
    CHECK(origin.first == covered[origin.subject]);  // in order, no gap, no overlap
    covered[origin.subject] = origin.end;
    CHECK(origin.begin <= origin.first);
    CHECK(origin.first - origin.begin >= (origin.first > 0 ? reach - 1 : 0));
    CHECK(origin.begin + batch.lengths[k] == origin.end);
    for (std::uint32_t i = 0; i < batch.lengths[k]; i += 97)
      REQUIRE(batch.residue(k, i) == static_cast<std::uint8_t>(subject[origin.begin + i]));
  }
  CHECK(covered[0] == 0);
  CHECK(covered[1] == packed.subjects[1].size());
  CHECK(covered[2] == packed.subjects[2].size());
}

TEST_CASE("SegmentHits: owned ranges, or the hot columns within them when every part told them", "[segments]") {
  std::mt19937_64 rng(6);
  const Packed packed({warpsearch::test::random_codes(rng, 200000, 4)});
  const SubjectSegments segments(packed.batch(), 0, 1000, 4, {});
  REQUIRE(segments.batch().count >= 4);
  const SubjectSegments::Origin& second = segments.origin(1);
  const SubjectSegments::Origin& third = segments.origin(2);
  const auto fill = [&](SegmentHits& hits) {
    hits.add(segments, 0, 1, 50);
    hits.add(segments, 0, 2, 70);
    // Hot columns of the second segment: one in its context (the first segment's), one inside; the
    // third's touches the second's end.
    hits.add_hot(segments, 0, 1, 0, 10);
    hits.add_hot(segments, 0, 1, 2000, 2512);
    hits.add_hot(segments, 0, 2, third.first - third.begin - 5, third.first - third.begin + 100);
    hits.add_hot(segments, 0, 1, second.end - second.begin - 8, second.end - second.begin);
  };
  // What the hits give after the scan's parts told (hot_found) whether each gave every hot column.
  const auto taken_after = [&](std::initializer_list<bool> complete) {
    SegmentHits hits;
    fill(hits);
    for (const bool part : complete) hits.hot_found(0, part);
    return hits.take();
  };
  SECTION("every part complete: the hot columns, clipped to the owned ranges and merged") {
    const auto taken = taken_after({true, true});
    REQUIRE(taken.size() == 1);
    const SegmentHits::Subject& subject = taken.at({0, 0});
    CHECK(subject.score == 70);
    const std::vector<ColumnRange> expected{{second.begin + 2000, second.begin + 2512},
                                            {second.end - 8, third.first + 100}};
    CHECK(subject.regions.ranges == expected);
    CHECK(subject.regions.hot);  // the HSP search takes them as its hot columns
  }
  SECTION("one part incomplete: the owned ranges of the segments that reached the threshold") {
    const auto taken = taken_after({true, false});
    const SegmentHits::Subject& subject = taken.at({0, 0});
    const std::vector<ColumnRange> expected{{second.first, third.end}};
    CHECK(subject.regions.ranges == expected);
    CHECK_FALSE(subject.regions.hot);  // it computes them inside
  }
  SECTION("no word on hot columns: the owned ranges") {
    SegmentHits hits;
    hits.add(segments, 0, 2, 70);
    const auto taken = hits.take();
    CHECK(taken.at({0, 0}).regions.ranges == std::vector<ColumnRange>{{third.first, third.end}});
    CHECK_FALSE(taken.at({0, 0}).regions.hot);
  }
  SECTION("one query taken as soon as its scan is complete: the others stay, with their word on hot columns") {
    const SubjectSegments::Origin& fourth = segments.origin(3);
    const std::uint64_t inside = fourth.first - fourth.begin;
    SegmentHits hits;
    fill(hits);
    hits.add(segments, 2, 3, 40);
    hits.add_hot(segments, 2, 3, inside + 100, inside + 200);
    hits.add(segments, 1, 1, 30);
    hits.hot_found(0, true);
    hits.hot_found(1, false);
    hits.hot_found(2, true);
    const auto first = hits.take(1);
    REQUIRE(first.size() == 1);
    CHECK(first.at({1, 0}).score == 30);
    CHECK(first.at({1, 0}).regions.ranges == std::vector<ColumnRange>{{second.first, second.end}});
    CHECK_FALSE(first.at({1, 0}).regions.hot);
    CHECK(hits.take(1).empty());
    hits.hot_found(1, true);  // a later query batch: query 1 told anew
    hits.add(segments, 1, 2, 35);
    hits.add_hot(segments, 1, 2, third.first - third.begin, third.first - third.begin + 10);
    const auto again = hits.take(1);
    CHECK(again.at({1, 0}).regions.ranges == std::vector<ColumnRange>{{third.first, third.first + 10}});
    CHECK(again.at({1, 0}).regions.hot);
    const auto rest = hits.take();
    REQUIRE(rest.size() == 2);
    CHECK(rest.at({0, 0}).score == 70);
    CHECK(rest.at({0, 0}).regions.ranges ==
          (std::vector<ColumnRange>{{second.begin + 2000, second.begin + 2512}, {second.end - 8, third.first + 100}}));
    CHECK(rest.at({2, 0}).regions.ranges == std::vector<ColumnRange>{{fourth.first + 100, fourth.first + 200}});
    CHECK(rest.at({2, 0}).regions.hot);
  }
}

TEST_CASE("HitRegions keeps the regions of each query, subject and frame apart until cleared", "[segments]") {
  using warpsearch::HitRegions;
  using warpsearch::cpu::ColumnRange;
  HitRegions regions;
  regions.keep(0, 7, 0, {{{10, 20}}, true});
  regions.keep(0, 7, 2, {{{30, 40}}, false});  // another frame of the same subject
  regions.keep(0, 7, -2, {{{50, 60}}, true});
  regions.keep(1, 7, 2, {{{70, 80}}, false});  // another query
  const auto* plain = regions.find(0, 7, 0);
  REQUIRE(plain != nullptr);
  CHECK(plain->ranges == std::vector<ColumnRange>{{10, 20}});
  CHECK(plain->hot);
  REQUIRE(regions.find(0, 7, 2) != nullptr);
  CHECK(regions.find(0, 7, 2)->ranges == std::vector<ColumnRange>{{30, 40}});
  CHECK_FALSE(regions.find(0, 7, 2)->hot);
  CHECK(regions.find(0, 7, -2)->ranges == std::vector<ColumnRange>{{50, 60}});
  CHECK(regions.find(1, 7, 2)->ranges == std::vector<ColumnRange>{{70, 80}});
  CHECK(regions.find(0, 7, 1) == nullptr);
  CHECK(regions.find(0, 8, 0) == nullptr);
  regions.keep(0, 8, 0, {{{1, 2}}, false});
  CHECK(plain->ranges == std::vector<ColumnRange>{{10, 20}});  // still valid after more are kept
  regions.clear();
  CHECK(regions.find(0, 7, 0) == nullptr);
}

TEST_CASE("SubjectSegments in waves: equal parts of each subject, covering it, of the fewest scan steps",
          "[segments]") {
  std::mt19937_64 rng(9);
  const Packed packed({warpsearch::test::random_codes(rng, 1000, 4), warpsearch::test::random_codes(rng, 300001, 4),
                       warpsearch::test::random_codes(rng, 170003, 4), warpsearch::test::random_codes(rng, 90000, 4)});
  const std::uint64_t reach = 3001;
  for (const std::uint64_t wave : {1, 2, 7, 16, 64}) {
    const std::vector<std::uint64_t> lengths{300001, 170003, 90000};
    const std::uint64_t owned = SubjectSegments::wave_length(lengths, reach, wave);
    // Brute force over every allowed length: the one chosen has the fewest steps, the shortest on ties.
    const auto segments_of = [&](std::uint64_t length) {
      std::uint64_t count = 0;
      for (const std::uint64_t l : lengths) count += (l + length - 1) / length;
      return count;
    };
    const auto steps = [&](std::uint64_t length) { return (segments_of(length) + wave - 1) / wave * (length + reach); };
    const std::uint64_t preferred = SubjectSegments::segment_length(reach, 560004, 0);
    const std::uint64_t waves = (segments_of(preferred) + wave - 1) / wave;
    std::uint64_t best = preferred;
    for (std::uint64_t length = SubjectSegments::kMinWaveLength; length <= 300001; ++length)
      if ((segments_of(length) + wave - 1) / wave <= waves && steps(length) < steps(best)) best = length;
    INFO("wave " << wave);
    CHECK(owned == best);
    CHECK(steps(owned) <= steps(preferred));

    const SubjectSegments segments(packed.batch(), 1, reach, 4, {0, wave, 3});
    const warpsearch::SubjectBatch batch = segments.batch();
    CHECK(batch.count == segments_of(owned));
    std::vector<std::uint64_t> covered(packed.subjects.size(), 0), shortest(packed.subjects.size(), ~0ull),
        longest(packed.subjects.size(), 0), parts(packed.subjects.size(), 0);
    for (std::size_t k = 0; k < batch.count; ++k) {
      const SubjectSegments::Origin& origin = segments.origin(k);
      CHECK(origin.first == covered[origin.subject]);
      covered[origin.subject] = origin.end;
      ++parts[origin.subject];
      CHECK(origin.first - origin.begin >= (origin.first > 0 ? reach - 1 : 0));
      CHECK(origin.end - origin.first <= owned);
      shortest[origin.subject] = std::min(shortest[origin.subject], origin.end - origin.first);
      longest[origin.subject] = std::max(longest[origin.subject], origin.end - origin.first);
      for (std::uint32_t i = 0; i < batch.lengths[k]; i += 101)
        REQUIRE(batch.residue(k, i) == static_cast<std::uint8_t>(packed.subjects[origin.subject][origin.begin + i]));
    }
    for (std::size_t s = 1; s < packed.subjects.size(); ++s) {
      CHECK(covered[s] == packed.subjects[s].size());
      CHECK(longest[s] - shortest[s] < parts[s]);  // equal parts (to a residue each): a wave's segments end together
    }
  }
  // The genome benchmark's plan: 20 chromosomes of 5 Mb, a reach of 20,000, 264 segments a wave: 13
  // parts a chromosome (one wave) where 8 reaches made 32 (three waves).
  const std::vector<std::uint64_t> genome(20, 5000000);
  CHECK(SubjectSegments::wave_length(genome, 20000, 264) == 384616);
  CHECK(SubjectSegments::wave_length(genome, 20000, 0) == SubjectSegments::segment_length(20000, 100000000, 0));
}

TEST_CASE("SubjectSegments::gpu_wave: the cooperative kernel's waves, none where the streamed kernel may run",
          "[segments]") {
  const SubjectSegments::GpuKernels h100{264, 2112, 1024, 4, 2};
  // The plan reads the subjects' lengths only: a short one first (not segmented), then 20 of 5 Mb.
  std::vector<std::uint32_t> lengths(21, 5000000);
  lengths[0] = 1000;
  warpsearch::SubjectBatch all;
  all.lengths = lengths.data();
  all.count = lengths.size();
  // A query longer than the streamed kernel takes: its pairs, two segments each, over two queries in flight.
  CHECK(SubjectSegments::gpu_wave(all, 1, 20000, {1000, 10000, 2000}, h100) == 264);
  CHECK(SubjectSegments::gpu_wave(all, 1, 20000, {10000}, h100) == 528);  // a lone query has the device alone
  // 100 queries of 1,000 residues (reach 2,000: 32 k segments, 1,540 pairs): the streamed kernel's.
  CHECK(SubjectSegments::gpu_wave(all, 1, 2000, std::vector<std::size_t>(100, 1000), h100) == 0);
  // Two of them: too few jobs for the streamed kernel, so the cooperative kernel's waves.
  CHECK(SubjectSegments::gpu_wave(all, 1, 2000, {1000, 1000}, h100) == 264);
}
