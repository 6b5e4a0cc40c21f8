// Long subjects and several HSPs per subject.
//
// The long-subject scan (kernels/cpu/long_subject.hpp): segments scanned apart give the unsegmented
// pass's best cell and hot columns, and both equal a 64-bit column-maximum DP, on every instruction set.
// The HSP search (search/hsps.hpp): the same set of HSPs as reference::local_hsps, with and without hot
// columns. The engine: forcing every subject through the long-subject path changes no output; a query
// planted several times in a 5 Mb generated genome, on both strands, gives one HSP per copy, at its locus.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <tuple>

#include "db/database.hpp"
#include "db/makedb.hpp"
#include "kernels/cpu/long_subject.hpp"
#include "kernels/cpu/striped.hpp"
#include "kernels/reference/reference.hpp"
#include "output/output.hpp"
#include "search/hsps.hpp"
#include "search/scan_backend.hpp"
#include "search/warpsearch.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

const ScoringScheme& dna_scoring() {
  static const ScoringScheme scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  return scoring;
}
const ScoringScheme& protein_scoring() {
  static const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  return scoring;
}

// The CPU backend with its hit regions changed on their way to the engine: as they are, told not hot
// (the engine then computes the hot columns inside them), or kept hot with every range but the first
// dropped (HSPs elsewhere are then missed: the engine took them as its hot columns). Counts the hot
// regions it passed on and the hot-column requests it was asked (left to the engine's CPU threads).
class RegionsView final : public ScanBackend {
 public:
  enum class Change { none, not_hot, first_range_only };
  RegionsView(const ScoringScheme& scoring, Change change) : inner_(make_cpu_backend(scoring, 2)), change_(change) {}
  void set_queries(const std::vector<PreparedQuery>& queries) override { inner_->set_queries(queries); }
  void scan(const Chunk& chunk, const std::int8_t* subject_frames, const ScoreSink& sink,
            const QueryDone& done) override {
    inner_->scan(chunk, subject_frames, sink, done);
  }
  void locate(const std::vector<HitPair>& pairs, std::vector<Span>& spans) override { inner_->locate(pairs, spans); }
  bool count_cells(std::atomic<std::uint64_t>* cells) override { return inner_->count_cells(cells); }
  const SubjectRegions* hit_regions(std::size_t prepared, std::uint64_t subject,
                                    std::int8_t subject_frame) const override {
    const SubjectRegions* found = inner_->hit_regions(prepared, subject, subject_frame);
    if (found == nullptr) return nullptr;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (found->hot) ++hot_seen;
    SubjectRegions& changed = changed_[{prepared, subject, subject_frame}];
    changed = *found;
    if (change_ == Change::not_hot) changed.hot = false;
    if (change_ == Change::first_range_only && changed.ranges.size() > 1) changed.ranges.resize(1);
    return &changed;
  }
  bool hot_columns(const std::vector<HotColumnRequest>& requests,
                   std::vector<std::vector<cpu::ColumnRange>>&) override {
    hot_requests += requests.size();
    return false;
  }
  std::string description() const override { return inner_->description(); }
  mutable std::size_t hot_seen = 0;
  std::size_t hot_requests = 0;

 private:
  std::unique_ptr<ScanBackend> inner_;
  Change change_;
  mutable std::mutex mutex_;
  mutable std::map<std::tuple<std::size_t, std::uint64_t, std::int8_t>, SubjectRegions> changed_;
};

std::string reverse_complement(const std::string& codes) {
  std::string result(codes.rbegin(), codes.rend());
  for (auto& c : result) c = static_cast<char>(Alphabet::nucleotide().complement(static_cast<std::uint8_t>(c)));
  return result;
}

// A random subject holding `copies` mutated copies of the query (some reverse-complemented when
// minus_strand), with the planted positions.
struct Planted {
  std::string subject;
  std::vector<std::pair<std::size_t, std::size_t>> loci;  // [begin, end) of each copy
};
Planted plant(std::mt19937_64& rng, const std::string& query, std::size_t length, int copies, int letters, double rate,
              bool minus_strand) {
  Planted planted;
  planted.subject = test::random_codes(rng, length, letters);
  const std::size_t slot = length / static_cast<std::size_t>(copies);
  for (int k = 0; k < copies; ++k) {
    std::string copy = test::mutated_codes(rng, query, letters, rate, 3);
    if (minus_strand && k % 2 == 1) copy = reverse_complement(copy);
    const std::size_t begin = slot * static_cast<std::size_t>(k) + rng() % (slot - copy.size());
    planted.subject.replace(begin, copy.size(), copy);
    planted.loci.emplace_back(begin, begin + copy.size());
  }
  return planted;
}

std::vector<cpu::ColumnRange> ranges_at_least(const std::vector<std::int64_t>& maxima, std::int64_t threshold) {
  std::vector<cpu::ColumnRange> ranges;
  for (std::uint64_t p = 0; p < maxima.size(); ++p)
    if (maxima[p] >= threshold) {
      if (!ranges.empty() && ranges.back().end == p)
        ranges.back().end = p + 1;
      else
        ranges.push_back({p, p + 1});
    }
  return ranges;
}

bool same_ranges(const std::vector<cpu::ColumnRange>& a, const std::vector<cpu::ColumnRange>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const cpu::ColumnRange& x, const cpu::ColumnRange& y) {
    return x.begin == y.begin && x.end == y.end;
  });
}

// Whether every position of `inner` lies in `outer`.
bool covers(const std::vector<cpu::ColumnRange>& outer, const std::vector<cpu::ColumnRange>& inner) {
  std::size_t k = 0;
  for (const cpu::ColumnRange& range : inner) {
    while (k < outer.size() && outer[k].end <= range.begin) ++k;
    if (k == outer.size() || outer[k].begin > range.begin || outer[k].end < range.end) return false;
  }
  return true;
}

cpu::ColumnScan segmented_scan(const cpu::StripedScorer& scorer, const std::string& subject, std::int64_t threshold,
                               const ScoringScheme& scoring, std::uint64_t segment_length) {
  const std::uint64_t reach = cpu::alignment_reach(scorer.query_length(), scoring, threshold);
  std::vector<cpu::ColumnScan> scans;
  for (const auto& segment : cpu::plan_segments(subject.size(), reach, segment_length))
    scans.push_back(cpu::scan_segment(scorer, subject, segment, threshold));
  return cpu::join_segments(scans);
}

}  // namespace

TEST_CASE("long subjects: segments scanned apart give the whole pass's best cell and hot columns", "[hsps]") {
  std::mt19937_64 rng(41);
  struct Case {
    const ScoringScheme* scoring;
    int letters;
    std::size_t query_length, subject_length;
    std::int64_t threshold;
  };
  const Case cases[] = {{&dna_scoring(), 4, 150, 40000, 30},
                        {&dna_scoring(), 4, 37, 20000, 12},
                        {&protein_scoring(), 20, 120, 15000, 45}};
  for (const Case& c : cases) {
    const std::string query = test::random_codes(rng, c.query_length, c.letters);
    const Planted planted = plant(rng, query, c.subject_length, 5, c.letters, 0.15, c.letters == 4);
    const auto maxima = reference::column_maxima(query, planted.subject, *c.scoring);
    const auto expected_hot = ranges_at_least(maxima, c.threshold);
    const Span expected_best = reference::local_end(query, planted.subject, *c.scoring);
    REQUIRE(expected_hot.size() >= 3);
    for (const cpu::Isa isa : {cpu::Isa::scalar, cpu::Isa::sse41, cpu::Isa::avx2, cpu::Isa::avx512bw}) {
      if (!cpu::isa_supported(isa)) continue;
      CAPTURE(cpu::isa_name(isa), c.query_length, c.threshold);
      const cpu::StripedScorer scorer(query, *c.scoring, isa);
      const cpu::ColumnScan whole = scorer.scan_columns(planted.subject, 0, c.threshold);
      CHECK(whole.best.score == expected_best.score);
      CHECK(whole.best.query_end == expected_best.query_end);
      CHECK(whole.best.subject_end == expected_best.subject_end);
      // The SIMD kernels' padding positions (past the query's end, scored as the matrix minimum) may
      // carry a high cell into the next columns: their hot columns may reach a little further. The scalar
      // kernel has no padding.
      if (isa == cpu::Isa::scalar)
        CHECK(same_ranges(whole.hot, expected_hot));
      else
        CHECK(covers(whole.hot, expected_hot));
      for (const std::uint64_t segment_length : {std::uint64_t{997}, std::uint64_t{4096}, std::uint64_t{1} << 20}) {
        CAPTURE(segment_length);
        const cpu::ColumnScan joined = segmented_scan(scorer, planted.subject, c.threshold, *c.scoring, segment_length);
        CHECK(joined.best.score == expected_best.score);
        CHECK(joined.best.query_end == expected_best.query_end);
        CHECK(joined.best.subject_end == expected_best.subject_end);
        CHECK(same_ranges(joined.hot, whole.hot));
      }
    }
  }
}

TEST_CASE("long subjects: the reach bounds every alignment that scores the threshold", "[hsps]") {
  // A perfect copy of the query with one long deletion in the middle still scores the threshold: its
  // span must be within reach.
  const ScoringScheme& scoring = dna_scoring();
  std::mt19937_64 rng(5);
  const std::string query = test::random_codes(rng, 200, 4);
  for (std::size_t gap : {1u, 50u, 120u}) {
    const std::string subject = query.substr(0, 100) + test::random_codes(rng, gap, 4) + query.substr(100);
    const auto span = reference::local_span(query, subject, scoring);
    CHECK(span.subject_end - span.subject_begin <= cpu::alignment_reach(query.size(), scoring, span.score));
  }
  CHECK(cpu::alignment_reach(10, scoring, 21) == 0);  // 10 matches score 20 at most
  CHECK(cpu::alignment_reach(10, scoring, 20) == 10);
}

TEST_CASE("long subjects: the reach from a protein query's residues is tighter and still bounds alignments", "[hsps]") {
  // BLOSUM62: W-W scores 11, the matrix's maximum; A-A, the best of A's row, 4. A copy of the query with
  // a long insertion that keeps the score at the threshold is within the codes' reach.
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const Alphabet& protein = scoring.matrix().alphabet();
  const std::string alanines = protein.encode_string(std::string(40, 'A'));
  CHECK(cpu::alignment_reach(alanines, scoring, 100) == 40 + (160 - 100));
  CHECK(cpu::alignment_reach(alanines.size(), scoring, 100) == 40 + (440 - 100));
  CHECK(cpu::alignment_reach(alanines, scoring, 161) == 0);  // 40 A-A pairs score 160 at most
  std::mt19937_64 rng(19);
  for (int sample = 0; sample < 20; ++sample) {
    const std::string query = test::random_codes(rng, 150, 20);
    const std::size_t gap = 5 + 7 * static_cast<std::size_t>(sample);
    const std::string subject = test::random_codes(rng, 60, 20) + query.substr(0, 75) +
                                test::random_codes(rng, gap, 20) + query.substr(75) + test::random_codes(rng, 60, 20);
    const auto span = reference::local_span(query, subject, scoring);
    REQUIRE(span.score > 0);
    CHECK(span.subject_end - span.subject_begin <= cpu::alignment_reach(query, scoring, span.score));
    CHECK(cpu::alignment_reach(query, scoring, span.score) < cpu::alignment_reach(query.size(), scoring, span.score));
  }
}

TEST_CASE("HSPs: the rounds of locate() find reference::local_hsps, with and without hot columns", "[hsps]") {
  std::mt19937_64 rng(77);
  struct Case {
    const ScoringScheme* scoring;
    int letters;
    std::size_t query_length, subject_length;
    int copies;
    std::int64_t cutoff;
  };
  const Case cases[] = {{&dna_scoring(), 4, 120, 3000, 6, 40},
                        {&dna_scoring(), 4, 60, 2500, 9, 25},
                        {&protein_scoring(), 20, 90, 1500, 4, 40},
                        {&protein_scoring(), 20, 40, 600, 3, 20}};
  const auto backend_dna = make_cpu_backend(dna_scoring(), 2);
  const auto backend_protein = make_cpu_backend(protein_scoring(), 2);
  std::size_t total = 0;
  for (const Case& c : cases)
    for (int trial = 0; trial < 4; ++trial) {
      const std::string query = test::random_codes(rng, c.query_length, c.letters);
      const Planted planted = plant(rng, query, c.subject_length, c.copies, c.letters, 0.2, false);
      const auto expected = reference::local_hsps(query, planted.subject, *c.scoring, c.cutoff);
      ScanBackend& backend = c.letters == 4 ? *backend_dna : *backend_protein;
      // As a GPU may answer: a span below the pair's least score with its score and end only (its start
      // lost, here), so that an HSP taken from one would show.
      std::size_t below = 0;
      const LocateFunction locate = [&](const std::vector<HitPair>& pairs, std::vector<Span>& spans) {
        backend.locate(pairs, spans);
        for (std::size_t k = 0; k < pairs.size(); ++k) {
          CHECK(pairs[k].min_score == c.cutoff);
          if (spans[k].score >= pairs[k].min_score) continue;
          spans[k].query_begin = spans[k].subject_begin = 0;
          ++below;
        }
      };
      // Hot columns for a threshold below the cut-off, as the scan keeps them.
      const std::int64_t threshold = c.cutoff - 5;
      const auto hot = ranges_at_least(reference::column_maxima(query, planted.subject, *c.scoring), threshold);
      const std::uint64_t reach = cpu::alignment_reach(query.size(), *c.scoring, threshold);
      for (const bool with_hot : {false, true})
        for (const std::size_t max_hsps : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
          CAPTURE(c.query_length, c.cutoff, trial, with_hot, max_hsps);
          HspRequest request{query, planted.subject, c.cutoff, max_hsps, with_hot ? &hot : nullptr, reach};
          const auto found = find_hsps({request}, locate, c.scoring->matrix().max_score());
          REQUIRE(found.size() == 1);
          const std::size_t wanted = max_hsps == 0 ? expected.size() : std::min(max_hsps, expected.size());
          REQUIRE(found[0].size() == wanted);
          for (std::size_t k = 0; k < wanted; ++k) {
            CAPTURE(k);
            CHECK(found[0][k].score == expected[k].score);
            CHECK(found[0][k].query_begin == expected[k].query_begin);
            CHECK(found[0][k].query_end == expected[k].query_end);
            CHECK(found[0][k].subject_begin == expected[k].subject_begin);
            CHECK(found[0][k].subject_end == expected[k].subject_end);
          }
          total += wanted;
        }
      CHECK(below > 0);
    }
  CHECK(total > 100);
}

TEST_CASE("HSPs: the long-subject path changes no search output", "[hsps][search]") {
  test::TempDir dir;
  std::mt19937_64 rng(9);
  std::vector<Query> queries;
  std::string fasta;
  for (int q = 0; q < 3; ++q)
    queries.push_back({"q" + std::to_string(q), "", test::random_codes(rng, 80 + 40 * static_cast<std::size_t>(q), 4)});
  for (int s = 0; s < 40; ++s) {
    const Planted planted = plant(rng, queries[static_cast<std::size_t>(s) % 3].codes,
                                  2000 + 100 * static_cast<std::size_t>(s), 1 + s % 4, 4, 0.15, true);
    fasta += ">s" + std::to_string(s) + "\n" + Alphabet::nucleotide().decode_string(planted.subject) + "\n";
  }
  test::write_file(dir.file("db.fa"), fasta);
  // Chunks of 30,000 residues hold fewer segments than the kernel's lanes (the striped kernel's tasks);
  // one chunk holds all 40 (the inter-sequence kernel's lanes).
  for (const std::uint64_t chunk_residues : {std::uint64_t{30000}, std::uint64_t{0}}) {
    MakeDbOptions made;
    made.input = dir.file("db.fa");
    made.output = dir.file("db" + std::to_string(chunk_residues) + ".wsdb");
    if (chunk_residues > 0) made.chunk_residues = chunk_residues;
    make_database(made);
    const Database db = Database::open(made.output);
    SearchOptions options;
    options.device = Device::cpu;
    options.max_target_seqs = 100;
    const auto render = [&](const std::vector<QueryResult>& results) {
      std::ostringstream out;
      const auto format = OutputFormat::parse("6 qseqid sseqid score evalue qstart qend sstart send sstrand cigar");
      for (std::size_t q = 0; q < queries.size(); ++q) format.write(out, queries[q], results[q], db);
      return out.str();
    };
    INFO("chunks of " << chunk_residues << " residues (0: one chunk), " << db.num_chunks() << " chunks");
    const std::string inter_sequence = render(SearchEngine(db, dna_scoring(), options).search(queries));
    const std::string long_path =
        render(SearchEngine(db, dna_scoring(), options, make_cpu_backend(dna_scoring(), 2, 1)).search(queries));
    CHECK(std::count(inter_sequence.begin(), inter_sequence.end(), '\n') > 80);
    CHECK(long_path == inter_sequence);
  }
}

TEST_CASE("HSPs: few long segments (the striped kernel's tasks) change no search output", "[hsps][search]") {
  test::TempDir dir;
  std::mt19937_64 rng(31);
  // Queries as long as a good part of the subjects, which are long (65,536 residues and more): each is
  // one or two segments (the reach of a 6 kb query is about 12 k, a segment owns at least 32 k), a dozen
  // in all: the striped kernel's path, whose hot columns bound where the HSP search looks. Without
  // segments the subjects go to the inter-sequence kernel whole, and the HSP search looks everywhere.
  std::vector<Query> queries;
  for (int q = 0; q < 2; ++q)
    queries.push_back(
        {"q" + std::to_string(q), "", test::random_codes(rng, 3000 * (1 + static_cast<std::size_t>(q)), 4)});
  std::string fasta;
  for (int s = 0; s < 6; ++s) {
    const Planted planted = plant(rng, queries[static_cast<std::size_t>(s) % 2].codes,
                                  66000 + 4000 * static_cast<std::size_t>(s), 1 + s % 2, 4, 0.1, true);
    fasta += ">s" + std::to_string(s) + "\n" + Alphabet::nucleotide().decode_string(planted.subject) + "\n";
  }
  test::write_file(dir.file("db.fa"), fasta);
  MakeDbOptions made;
  made.input = dir.file("db.fa");
  made.output = dir.file("db.wsdb");
  make_database(made);
  const Database db = Database::open(made.output);
  SearchOptions options;
  options.device = Device::cpu;
  const auto render = [&](const std::vector<QueryResult>& results) {
    std::ostringstream out;
    const auto format = OutputFormat::parse("6 qseqid sseqid score evalue qstart qend sstart send sstrand cigar");
    for (std::size_t q = 0; q < queries.size(); ++q) format.write(out, queries[q], results[q], db);
    return out.str();
  };
  const std::string whole =
      render(SearchEngine(db, dna_scoring(), options, make_cpu_backend(dna_scoring(), 2, std::uint64_t{1} << 30))
                 .search(queries));
  const std::string striped = render(SearchEngine(db, dna_scoring(), options).search(queries));
  CHECK(std::count(whole.begin(), whole.end(), '\n') >= 9);
  CHECK(striped == whole);
  // The striped tasks' hot columns are the HSP search's own (SubjectRegions::hot): the same output as
  // hot columns computed again inside them, and only the hot columns given are searched.
  std::size_t hot_seen = 0, hot_requests = 0;
  const auto with_view = [&](RegionsView::Change change) {
    auto view = std::make_unique<RegionsView>(dna_scoring(), change);
    RegionsView& seen = *view;
    SearchEngine engine(db, dna_scoring(), options, std::move(view));  // owns the view: read it before the end
    const std::string out = render(engine.search(queries));
    hot_seen = seen.hot_seen;
    hot_requests = seen.hot_requests;
    return out;
  };
  CHECK(with_view(RegionsView::Change::none) == whole);
  CHECK(hot_seen >= 6);
  CHECK(hot_requests == 0);  // no hot columns computed again
  CHECK(with_view(RegionsView::Change::not_hot) == whole);
  CHECK(hot_requests > 0);
  // HSPs outside the first range are missed: fewer lines, or, where the best was there, the engine's
  // check that each hit's best HSP scores what the scan scored.
  bool missed = false;
  try {
    const std::string first_only = with_view(RegionsView::Change::first_range_only);
    missed = std::count(first_only.begin(), first_only.end(), '\n') < std::count(whole.begin(), whole.end(), '\n');
  } catch (const std::logic_error& error) {
    missed = std::string(error.what()).find("but the scan scored") != std::string::npos;
  }
  CHECK(missed);
}

TEST_CASE("HSPs: a query planted on both strands of a 5 Mb genome gives one HSP per copy, at its locus",
          "[hsps][cli]") {
  test::TempDir dir;
  std::mt19937_64 rng(2026);
  const std::string query = test::random_codes(rng, 1500, 4);
  const Planted planted = plant(rng, query, 5'000'000, 6, 4, 0.12, true);
  const Alphabet& dna = Alphabet::nucleotide();
  test::write_file(dir.file("genome.fa"), ">genome generated\n" + dna.decode_string(planted.subject) + "\n");
  test::write_file(dir.file("q.fa"), ">fragment\n" + dna.decode_string(query) + "\n");
  const auto made = test::run_warpsearch("makedb --quiet '" + dir.file("genome.fa") + "' '" + dir.file("g.wsdb") + "'");
  REQUIRE(made.exit_code == 0);
  const auto result =
      test::run_warpsearch("search --quiet --device cpu -q '" + dir.file("q.fa") + "' -d '" + dir.file("g.wsdb") +
                           "' --evalue 1e-10 --outfmt '6 sstart send sstrand score'");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::istringstream lines(result.out);
  std::vector<std::pair<std::size_t, std::size_t>> found;  // 0-based [begin, end) on the plus strand
  std::size_t minus = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::size_t sstart = 0, send = 0;
    std::string strand;
    int score = 0;
    REQUIRE(fields >> sstart >> send >> strand >> score);
    CHECK(score > 1500);
    if (strand == "minus") {
      ++minus;
      CHECK(sstart > send);
      found.emplace_back(send - 1, sstart);
    } else {
      CHECK(sstart < send);
      found.emplace_back(sstart - 1, send);
    }
  }
  REQUIRE(found.size() == planted.loci.size());
  CHECK(minus == 3);
  std::sort(found.begin(), found.end());
  for (std::size_t k = 0; k < found.size(); ++k) {
    CAPTURE(k);
    // The alignment covers nearly all of its copy and nothing outside it (mutations at the copy's ends
    // may trim a few positions).
    CHECK(found[k].first + 60 >= planted.loci[k].first);
    CHECK(found[k].first <= planted.loci[k].first + 60);
    CHECK(found[k].second + 60 >= planted.loci[k].second);
    CHECK(found[k].second <= planted.loci[k].second + 60);
  }
}
