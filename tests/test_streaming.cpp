// Streamed results (SearchEngine::search with a sink): each query's result goes to the sink once, in
// query order, as soon as its batch (or the part of it that SearchOptions::hit_memory holds) is aligned;
// the output written from the sink equals the output written from the whole result vector, in every
// format, whatever the batch size, the memory budget and the backend. The progress callback is fed on a
// timer while a database part is scanned.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "db/database.hpp"
#include "db/makedb.hpp"
#include "output/output.hpp"
#include "search/scan_backend.hpp"
#include "search/warpsearch.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

struct Data {
  test::TempDir dir;
  std::vector<Query> queries;
  std::string one_chunk, many_chunks;  // database paths
};

// Queries and a database holding mutated copies of pieces of them among random subjects, so that
// every query has hits, some of them several HSPs in one subject.
void make_data(Data& data, SequenceType type, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int letters = type == SequenceType::protein ? 20 : 4;
  const Alphabet& alphabet = Alphabet::of(type);
  for (int q = 0; q < 7; ++q)
    data.queries.push_back({"q" + std::to_string(q), "query " + std::to_string(q),
                            test::random_codes(rng, 60 + 37 * static_cast<std::size_t>(q), letters)});
  std::string fasta;
  for (std::size_t s = 0; s < 240; ++s) {
    std::string codes = test::random_codes(rng, 50 + s % 300, letters);
    if (s % 3 == 0) {
      const std::string& query = data.queries[s / 3 % data.queries.size()].codes;
      const std::string piece =
          test::mutated_codes(rng, query.substr(query.size() / 5, query.size() / 2), letters, 0.2, 3);
      codes.insert(codes.size() / 3, piece);
      if (s % 9 == 0) codes += piece;  // two HSPs in one subject
    }
    fasta += ">s" + std::to_string(s) + " subject " + std::to_string(s) + "\n" + alphabet.decode_string(codes) + "\n";
  }
  test::write_file(data.dir.file("db.fa"), fasta);
  for (const auto& [path, chunk] : {std::pair<std::string*, std::uint64_t>{&data.one_chunk, 1u << 30},
                                    std::pair<std::string*, std::uint64_t>{&data.many_chunks, 4000}}) {
    MakeDbOptions options;
    options.input = data.dir.file("db.fa");
    options.output = data.dir.file(chunk == 4000 ? "many.wsdb" : "one.wsdb");
    options.chunk_residues = chunk;
    make_database(options);
    *path = options.output;
  }
}

std::vector<std::string> formats_for(SequenceType type) {
  std::vector<std::string> formats = {"0", "5", "6 std qcovs btop cigar", "7", "10", "15", "json"};
  if (type == SequenceType::nucleotide) formats.push_back("17");
  return formats;
}

// The output of a whole result vector, written after the search.
std::string write_all(const std::string& spec, const std::vector<Query>& queries,
                      const std::vector<QueryResult>& results, const Database& db, const OutputContext& context) {
  const OutputFormat format = OutputFormat::parse(spec);
  std::ostringstream out;
  format.begin(out, db, context);
  for (std::size_t q = 0; q < queries.size(); ++q) format.write(out, queries[q], results[q], db);
  format.end(out);
  return out.str();
}

// The CPU backend, optionally as the GPU backend behaves towards the engine (queries reported done one at
// a time, last first, while scan() has not returned, so that hits are aligned during the scan); it counts
// its scans and records which queries it has located hits of.
class WatchedBackend final : public ScanBackend {
 public:
  WatchedBackend(const ScoringScheme& scoring, bool overlap, std::chrono::milliseconds scan_pause = {})
      : inner_(make_cpu_backend(scoring, 2)), overlap_(overlap), scan_pause_(scan_pause) {}
  void set_queries(const std::vector<PreparedQuery>& queries) override { inner_->set_queries(queries); }
  void scan(const Chunk& chunk, const std::int8_t* subject_frames, const ScoreSink& sink,
            const QueryDone& done) override {
    std::this_thread::sleep_for(scan_pause_);
    std::vector<std::size_t> finished;
    inner_->scan(chunk, subject_frames, sink, [&](std::size_t p) { finished.push_back(p); });
    ++scans;
    for (auto p = finished.rbegin(); p != finished.rend(); ++p) {
      done(*p);
      if (overlap_) std::this_thread::yield();
    }
  }
  void locate(const std::vector<HitPair>& pairs, std::vector<Span>& spans) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const HitPair& pair : pairs) located_.insert(std::string(pair.query));
    }
    inner_->locate(pairs, spans);
  }
  bool locates_while_scanning() const override { return overlap_; }
  std::string description() const override { return "watched cpu"; }
  std::set<std::string> located() {
    std::lock_guard<std::mutex> lock(mutex_);
    return located_;
  }
  std::atomic<int> scans{0};

 private:
  std::unique_ptr<ScanBackend> inner_;
  bool overlap_;
  std::chrono::milliseconds scan_pause_;
  std::mutex mutex_;
  std::set<std::string> located_;  // query codes (plus strand) of the pairs located so far
};

}  // namespace

TEST_CASE("streaming: output written query by query from the sink equals the whole result's, in every format",
          "[search][streaming]") {
  for (const SequenceType type : {SequenceType::protein, SequenceType::nucleotide}) {
    Data data;
    make_data(data, type, type == SequenceType::protein ? 71 : 72);
    const ScoringScheme scoring =
        type == SequenceType::protein
            ? ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1})
            : ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
    OutputContext context;
    context.program = type == SequenceType::protein ? "blastp" : "blastn";
    context.scoring = &scoring;
    context.command_line = "warpsearch search";
    context.database_name = "db";  // the same name for both databases
    SearchOptions options;
    options.device = Device::cpu;
    options.threads = 2;
    options.max_target_seqs = 30;
    const Database reference_db = Database::open(data.one_chunk);
    const std::vector<QueryResult> whole = SearchEngine(reference_db, scoring, options).search(data.queries);
    std::size_t hits = 0;
    for (const auto& result : whole) hits += result.hits.size();
    REQUIRE(hits > 50);
    std::vector<std::string> expected;
    for (const std::string& spec : formats_for(type))
      expected.push_back(write_all(spec, data.queries, whole, reference_db, context));

    for (const std::string* path : {&data.one_chunk, &data.many_chunks})
      for (const std::size_t batch : {std::size_t{4096}, std::size_t{3}, std::size_t{1}})
        for (const std::uint64_t budget : {std::uint64_t{1} << 30, std::uint64_t{1}})
          for (const bool overlap : {false, true}) {
            CAPTURE(type == SequenceType::protein, *path, batch, budget, overlap);
            const Database db = Database::open(*path);
            options.query_batch = batch;
            options.hit_memory = budget;
            auto backend = std::make_unique<WatchedBackend>(scoring, overlap);
            WatchedBackend& watched = *backend;
            SearchEngine engine(db, scoring, options, std::move(backend));
            std::vector<OutputFormat> formats;
            std::vector<std::ostringstream> outs(expected.size());
            for (std::size_t f = 0; f < expected.size(); ++f) {
              formats.push_back(OutputFormat::parse(formats_for(type)[f]));
              formats[f].begin(outs[f], db, context);
            }
            std::size_t next = 0;
            bool only_earlier_located = true;
            engine.search(data.queries, [&](QueryResult&& result) {
              CHECK(result.query == next);  // once each, in query order
              ++next;
              // With a budget of one byte, the queries are aligned one at a time: none after this one yet.
              if (budget == 1 && !overlap)
                for (const std::string& located : watched.located()) {
                  std::size_t owner = data.queries.size();
                  for (std::size_t q = 0; q < data.queries.size(); ++q)
                    if (data.queries[q].codes == located) owner = q;
                  if (owner != data.queries.size() && owner > result.query) only_earlier_located = false;
                }
              for (std::size_t f = 0; f < formats.size(); ++f)
                formats[f].write(outs[f], data.queries[result.query], result, db);
            });
            CHECK(next == data.queries.size());
            CHECK(only_earlier_located);
            for (std::size_t f = 0; f < formats.size(); ++f) {
              formats[f].end(outs[f]);
              CAPTURE(formats_for(type)[f]);
              const bool same = outs[f].str() == expected[f];  // (not printed: pages of text)
              CHECK(same);
            }
          }
  }
}

TEST_CASE("streaming: the first batch's results reach the sink before the next batch is scanned",
          "[search][streaming]") {
  Data data;
  make_data(data, SequenceType::protein, 73);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const Database db = Database::open(data.many_chunks);
  SearchOptions options;
  options.device = Device::cpu;
  options.query_batch = 2;
  for (const bool overlap : {false, true}) {
    auto backend = std::make_unique<WatchedBackend>(scoring, overlap);
    WatchedBackend& watched = *backend;
    SearchEngine engine(db, scoring, options, std::move(backend));
    std::vector<int> scans_seen;
    engine.search(data.queries, [&](QueryResult&&) { scans_seen.push_back(watched.scans); });
    const int parts = static_cast<int>(db.num_chunks());
    REQUIRE(parts > 1);
    REQUIRE(scans_seen.size() == data.queries.size());
    for (std::size_t q = 0; q < scans_seen.size(); ++q) {
      CAPTURE(overlap, q);
      CHECK(scans_seen[q] == parts * static_cast<int>(q / 2 + 1));  // its batch scanned, and no more
    }
  }
}

TEST_CASE("streaming: progress is reported while a part is scanned, and adds up", "[search][streaming]") {
  Data data;
  make_data(data, SequenceType::protein, 74);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const Database db = Database::open(data.one_chunk);
  SearchOptions options;
  options.device = Device::cpu;
  options.query_batch = 3;
  // One part per batch, three batches, each scan pausing 0.8 s: the timer reports during each.
  SearchEngine engine(db, scoring, options,
                      std::make_unique<WatchedBackend>(scoring, false, std::chrono::milliseconds(800)));
  std::vector<SearchProgress> reports;
  std::size_t results = 0;
  engine.search(
      data.queries, [&](QueryResult&&) { ++results; },
      [&](const SearchProgress& progress) { reports.push_back(progress); });
  REQUIRE(results == data.queries.size());
  // Per batch: the end of its part, the scan time, each query handed over (at least one report), the
  // batch's end; the timer adds about three reports per pause (at least one).
  CHECK(reports.size() >= 3 * 4 + 3);
  for (std::size_t k = 1; k < reports.size(); ++k) {
    CHECK(reports[k].cells_done >= reports[k - 1].cells_done);
    CHECK(reports[k].queries_aligned >= reports[k - 1].queries_aligned);
  }
  CHECK(reports.back().cells_done == Approx(reports.back().cells_total));
  CHECK(reports.back().queries_aligned == data.queries.size());
  CHECK(reports.back().queries_done == data.queries.size());
}

TEST_CASE("streaming: the CPU backend counts the cells it scores, for the progress report", "[search][streaming]") {
  Data data;
  make_data(data, SequenceType::protein, 75);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const Database db = Database::open(data.one_chunk);
  auto backend = make_cpu_backend(scoring, 2);
  std::vector<PreparedQuery> prepared;
  std::uint64_t query_residues = 0;
  for (std::size_t q = 0; q < data.queries.size(); ++q) {
    prepared.push_back({q, Strand::plus, data.queries[q].codes, 1000000});
    query_residues += data.queries[q].codes.size();
  }
  backend->set_queries(prepared);
  std::atomic<std::uint64_t> cells{0};
  REQUIRE(backend->count_cells(&cells));
  backend->scan(
      db.chunk(0), nullptr, [](std::size_t, std::uint64_t, int) {}, [](std::size_t) {});
  CHECK(cells.load() == query_residues * db.info().residues);
  backend->count_cells(nullptr);
  backend->scan(
      db.chunk(0), nullptr, [](std::size_t, std::uint64_t, int) {}, [](std::size_t) {});
  CHECK(cells.load() == query_residues * db.info().residues);  // no longer counted
}
