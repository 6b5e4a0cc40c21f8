// The search engine against brute force with the 64-bit reference: which hits, in which order, with
// which scores and alignment coordinates; and the same results whatever the thread count or chunking.
// The CPU backend's locate() (the spans of the hits) against reference::span, on planted and real pairs;
// every hit's alignment equals cpu::align_local's (the traceback inside the located span). Hits aligned
// while the scan goes on (as with a GPU) give the same output.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "db/database.hpp"
#include "db/fasta.hpp"
#include "db/makedb.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/reference/reference.hpp"
#include "output/output.hpp"
#include "search/scan_backend.hpp"
#include "search/warpsearch.hpp"
#include "statistics/statistics.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

struct Fixture {
  test::TempDir dir;
  std::vector<std::string> subjects;  // codes, in FASTA order
  std::vector<Query> queries;
};

// Random subjects of many lengths, some of them mutated copies of the queries, so that there are
// strong hits, weak hits and ties (exact duplicates).
void make_fixture(Fixture& f, SequenceType type, std::uint64_t seed, std::size_t subject_count) {
  std::mt19937_64 rng(seed);
  const Alphabet& alphabet = Alphabet::of(type);
  const int letters = type == SequenceType::protein ? 20 : 4;  // ordinary residues only
  // Codes 0..19 are the twenty amino acids in matrix order, 0..3 the four bases.
  auto letter_codes = [&](std::size_t length) { return test::random_codes(rng, length, letters); };
  for (int q = 0; q < 4; ++q) {
    const std::size_t length = std::uniform_int_distribution<std::size_t>(20, 300)(rng);
    f.queries.push_back({"query" + std::to_string(q), "test query", letter_codes(length)});
  }
  std::uniform_int_distribution<std::size_t> length_of(1, 700);
  for (std::size_t s = 0; s < subject_count; ++s) {
    std::string codes = letter_codes(length_of(rng));
    if (s % 7 == 0) {  // a mutated piece of a query, inside random flanks
      const std::string& query = f.queries[s / 7 % f.queries.size()].codes;
      std::string piece = query.substr(query.size() / 4, query.size() / 2);
      for (auto& c : piece)
        if (rng() % 5 == 0) c = static_cast<char>(rng() % letters);
      codes.insert(codes.size() / 2, piece);
    }
    if (s % 50 == 1) codes = f.subjects[s - 1];  // an exact duplicate: a tie broken by FASTA order
    f.subjects.push_back(codes);
  }
  std::string fasta;
  for (std::size_t s = 0; s < f.subjects.size(); ++s)
    fasta += ">subject" + std::to_string(s) + " description " + std::to_string(s) + "\n" +
             alphabet.decode_string(f.subjects[s]) + "\n";
  test::write_file(f.dir.file("db.fa"), fasta);
}

std::string make_db(const Fixture& f, const std::string& name, std::uint64_t chunk_residues) {
  MakeDbOptions options;
  options.input = f.dir.file("db.fa");
  options.output = f.dir.file(name);
  options.chunk_residues = chunk_residues;
  make_database(options);
  return options.output;
}

// What the search must report for one query: every subject, scored by the reference, ranked by score,
// then E-value, then FASTA position, cut at the thresholds and at max_target_seqs; each kept subject
// with its HSPs (reference::local_hsps, the cut-off being the lowest score that passes both thresholds).
struct ExpectedHit {
  std::uint64_t subject;
  Span span;
};
std::vector<ExpectedHit> brute_force(const Fixture& f, const Query& query, const ScoringScheme& scoring,
                                     const EvalueCalculator& statistics, const SearchOptions& options) {
  struct Expected {
    std::uint64_t subject;
    int score;
    double evalue;
  };
  std::vector<Expected> all;
  const auto m = static_cast<std::uint32_t>(query.codes.size());
  for (std::size_t s = 0; s < f.subjects.size(); ++s) {
    const auto score = static_cast<int>(reference::local_score(query.codes, f.subjects[s], scoring));
    const double evalue = statistics.evalue(score, m, static_cast<std::uint32_t>(f.subjects[s].size()));
    if (score >= options.min_score && evalue <= options.max_evalue) all.push_back({s, score, evalue});
  }
  std::sort(all.begin(), all.end(), [](const Expected& a, const Expected& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.evalue != b.evalue) return a.evalue < b.evalue;
    return a.subject < b.subject;
  });
  if (all.size() > options.max_target_seqs) all.resize(options.max_target_seqs);
  std::vector<ExpectedHit> kept;
  for (const auto& e : all) {
    const auto n = static_cast<std::uint32_t>(f.subjects[e.subject].size());
    int cutoff = std::max(options.min_score, 1);
    while (statistics.evalue(cutoff, m, n) > options.max_evalue) ++cutoff;
    for (const auto& span : reference::local_hsps(query.codes, f.subjects[e.subject], scoring, cutoff))
      kept.push_back({e.subject, span});
  }
  return kept;
}

std::string render(const std::vector<Query>& queries, const std::vector<QueryResult>& results, const Database& db) {
  std::ostringstream out;
  const auto format = OutputFormat::parse(
      "6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score cigar qseq sseq");
  for (std::size_t q = 0; q < queries.size(); ++q) format.write(out, queries[q], results[q], db);
  return out.str();
}

struct CodesPair {
  std::string query, subject;
};

// Local pairs with every kind of span: a mutated (gapped) piece of the query inside random flanks,
// unrelated pairs, identical pairs, tandem repeats on either side (co-optimal ends and starts: the
// tie-break decides), one-residue sides, and pairs that score 0.
std::vector<CodesPair> planted_pairs(std::uint64_t seed, int letters, std::size_t count) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> length_of(1, 400);
  std::vector<CodesPair> pairs;
  for (std::size_t k = 0; k < count; ++k) {
    const std::string query = test::random_codes(rng, length_of(rng), letters);
    const std::string piece = query.substr(query.size() / 5, std::max<std::size_t>(1, query.size() / 2));
    CodesPair pair{query, {}};
    switch (k % 6) {
      case 0:
        pair.subject = test::random_codes(rng, rng() % 200, letters) +
                       test::mutated_codes(rng, piece, letters, 0.2, 6) + test::random_codes(rng, rng() % 200, letters);
        break;
      case 1: pair.subject = test::random_codes(rng, length_of(rng), letters); break;
      case 2: pair.subject = query; break;
      case 3:
        pair.subject = test::random_codes(rng, 7, letters) + piece + test::random_codes(rng, 3, letters) + piece;
        break;
      case 4: pair = {piece + piece + piece, piece}; break;
      default: pair.subject = test::random_codes(rng, 1 + rng() % 3, letters); break;
    }
    pairs.push_back(std::move(pair));
  }
  pairs.push_back({test::random_codes(rng, 1, letters), test::random_codes(rng, 1, letters)});
  return pairs;
}

// locate() of the backend on every pair in one call, each span field by field against reference::span.
void check_locate(ScanBackend& backend, const ScoringScheme& scoring, const std::vector<CodesPair>& pairs) {
  std::vector<HitPair> hit_pairs;
  for (const auto& pair : pairs) hit_pairs.push_back({pair.query, pair.subject});
  std::vector<Span> spans(3);  // resized by locate()
  backend.locate(hit_pairs, spans);
  REQUIRE(spans.size() == pairs.size());
  std::size_t differences = 0, zero = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto expected = reference::span(pairs[k].query, pairs[k].subject, scoring, AlignmentMode::local);
    const Span& got = spans[k];
    zero += expected.score == 0 ? 1 : 0;
    if (got.score == expected.score && got.query_begin == expected.query_begin && got.query_end == expected.query_end &&
        got.subject_begin == expected.subject_begin && got.subject_end == expected.subject_end)
      continue;
    if (++differences <= 5)
      UNSCOPED_INFO("pair " << k << " (" << pairs[k].query.size() << " x " << pairs[k].subject.size() << "): got "
                            << got.score << " q[" << got.query_begin << "," << got.query_end << ") s["
                            << got.subject_begin << "," << got.subject_end << "), reference " << expected.score << " q["
                            << expected.query_begin << "," << expected.query_end << ") s[" << expected.subject_begin
                            << "," << expected.subject_end << ")");
  }
  CHECK(differences == 0);
  CHECK(zero < pairs.size());
}

}  // namespace

TEST_CASE("search: hits, ranking, scores and coordinates equal brute force with the reference", "[search]") {
  Fixture f;
  make_fixture(f, SequenceType::protein, 7, 400);
  const Database db = Database::open(make_db(f, "small-chunks.wsdb", 5000));
  REQUIRE(db.num_chunks() > 3);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  SearchOptions options;
  options.device = Device::cpu;
  options.max_target_seqs = 60;
  options.min_score = 25;
  const EvalueCalculator statistics(scoring, db.info().residues, db.info().subjects);
  for (double max_evalue : {1e9, 1.0}) {
    options.max_evalue = max_evalue;
    const auto results = SearchEngine(db, scoring, options).search(f.queries);
    REQUIRE(results.size() == f.queries.size());
    for (std::size_t q = 0; q < f.queries.size(); ++q) {
      CAPTURE(q, max_evalue);
      const auto expected = brute_force(f, f.queries[q], scoring, statistics, options);
      const auto& hits = results[q].hits;
      REQUIRE(hits.size() == expected.size());
      for (std::size_t h = 0; h < hits.size(); ++h) {
        CAPTURE(h);
        CHECK(hits[h].subject == expected[h].subject);
        const auto& span = expected[h].span;
        CHECK(hits[h].score == span.score);
        CHECK(hits[h].query_begin == span.query_begin);
        CHECK(hits[h].query_end == span.query_end);
        CHECK(hits[h].subject_begin == span.subject_begin);
        CHECK(hits[h].subject_end == span.subject_end);
        CHECK(hits[h].evalue == statistics.evalue(hits[h].score, static_cast<std::uint32_t>(f.queries[q].codes.size()),
                                                  static_cast<std::uint32_t>(f.subjects[hits[h].subject].size())));
      }
    }
  }
}

TEST_CASE("search: the output does not depend on threads, chunking or query batching", "[search]") {
  Fixture f;
  make_fixture(f, SequenceType::protein, 11, 300);
  const Database one_chunk = Database::open(make_db(f, "one.wsdb", 1u << 30));
  const Database many_chunks = Database::open(make_db(f, "many.wsdb", 3000));
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  SearchOptions options;
  options.device = Device::cpu;
  options.max_target_seqs = 25;
  options.threads = 1;
  const std::string reference_output =
      render(f.queries, SearchEngine(one_chunk, scoring, options).search(f.queries), one_chunk);
  REQUIRE(!reference_output.empty());
  options.threads = 3;
  CHECK(render(f.queries, SearchEngine(one_chunk, scoring, options).search(f.queries), one_chunk) == reference_output);
  CHECK(render(f.queries, SearchEngine(many_chunks, scoring, options).search(f.queries), many_chunks) ==
        reference_output);
  options.query_batch = 1;
  CHECK(render(f.queries, SearchEngine(many_chunks, scoring, options).search(f.queries), many_chunks) ==
        reference_output);
}

namespace {

// The CPU backend as the GPU backend behaves towards the engine: it reports each query done one at a
// time, after a pause, while its scan() has not returned, and its locate() may run meanwhile, so the
// engine aligns hits during the scan. Optionally, locate() fails.
class AligningWhileScanning final : public ScanBackend {
 public:
  explicit AligningWhileScanning(const ScoringScheme& scoring, bool fail_locate = false)
      : inner_(make_cpu_backend(scoring, 2)), fail_locate_(fail_locate) {}
  void set_queries(const std::vector<PreparedQuery>& queries) override { inner_->set_queries(queries); }
  void scan(const Chunk& chunk, const std::int8_t* subject_frames, const ScoreSink& sink,
            const QueryDone& done) override {
    std::vector<std::size_t> finished;
    inner_->scan(chunk, subject_frames, sink, [&](std::size_t p) { finished.push_back(p); });
    for (auto p = finished.rbegin(); p != finished.rend(); ++p) {  // last first: any order must do
      done(*p);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  void locate(const std::vector<HitPair>& pairs, std::vector<Span>& spans) override {
    ++locate_calls;
    if (fail_locate_) throw std::runtime_error("injected locate failure");
    inner_->locate(pairs, spans);
  }
  bool locates_while_scanning() const override { return true; }
  std::string description() const override { return "cpu, aligning while scanning"; }
  std::atomic<int> locate_calls{0};

 private:
  std::unique_ptr<ScanBackend> inner_;
  bool fail_locate_;
};

}  // namespace

TEST_CASE("search: hits aligned during the scan give the same output", "[search]") {
  const ScoringScheme blosum62(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const ScoringScheme blastn(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  for (const SequenceType type : {SequenceType::protein, SequenceType::nucleotide}) {
    Fixture f;
    make_fixture(f, type, 31, 300);
    const ScoringScheme& scoring = type == SequenceType::protein ? blosum62 : blastn;
    const Database one_chunk = Database::open(make_db(f, "one.wsdb", 1u << 30));
    const Database many_chunks = Database::open(make_db(f, "many.wsdb", 3000));
    SearchOptions options;
    options.device = Device::cpu;
    options.max_target_seqs = 20;
    const std::string expected =
        render(f.queries, SearchEngine(one_chunk, scoring, options).search(f.queries), one_chunk);
    REQUIRE(!expected.empty());
    for (const std::size_t batch : {std::size_t{4096}, std::size_t{2}}) {
      CAPTURE(type == SequenceType::protein, batch);
      options.query_batch = batch;
      for (const Database* db : {&one_chunk, &many_chunks}) {
        auto backend = std::make_unique<AligningWhileScanning>(scoring);
        AligningWhileScanning& used = *backend;
        SearchEngine engine(*db, scoring, options, std::move(backend));
        CHECK(render(f.queries, engine.search(f.queries), *db) == expected);
        CHECK(used.locate_calls > 1);  // hits located query by query, not in one call after the scan
      }
    }
  }
  // A failure while aligning during the scan ends the search with that error (no hang, no partial output).
  Fixture f;
  make_fixture(f, SequenceType::protein, 32, 100);
  const Database db = Database::open(make_db(f, "fail.wsdb", 3000));
  SearchEngine failing(db, blosum62, SearchOptions{}, std::make_unique<AligningWhileScanning>(blosum62, true));
  CHECK_THROWS_WITH(failing.search(f.queries), "injected locate failure");
}

TEST_CASE("search: nucleotide queries are searched on both strands", "[search]") {
  Fixture f;
  make_fixture(f, SequenceType::nucleotide, 5, 120);
  const Alphabet& dna = Alphabet::nucleotide();
  // A subject holding the reverse complement of query 0's middle, exactly.
  const std::string& query = f.queries[0].codes;
  const std::string piece = query.substr(5, query.size() - 10);
  std::string reverse_complement(piece.rbegin(), piece.rend());
  for (auto& c : reverse_complement) c = static_cast<char>(dna.complement(static_cast<std::uint8_t>(c)));
  const std::string planted = dna.encode_string("ACGTACGTAC") + reverse_complement + dna.encode_string("TTTT");
  test::write_file(f.dir.file("db.fa"),
                   test::read_file(f.dir.file("db.fa")) + ">planted\n" + dna.decode_string(planted) + "\n");
  f.subjects.push_back(planted);
  const Database db = Database::open(make_db(f, "dna.wsdb", 1u << 30));
  const ScoringScheme scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  SearchOptions options;
  options.device = Device::cpu;
  options.max_target_seqs = 5;
  for (Strand strand : {Strand::both, Strand::minus, Strand::plus}) {
    options.strand = strand;
    const auto results = SearchEngine(db, scoring, options).search({f.queries[0]});
    const bool found = !results[0].hits.empty() && results[0].hits[0].subject == f.subjects.size() - 1;
    CHECK(found == (strand != Strand::plus));
    if (!found) continue;
    const Hit& hit = results[0].hits[0];
    CHECK(hit.strand == Strand::minus);
    CHECK(hit.score >= 2 * static_cast<int>(piece.size()));
    std::ostringstream out;
    OutputFormat::parse("6 qstart qend sstart send sstrand").write(out, f.queries[0], results[0], db);
    std::istringstream first_line(out.str());
    long qstart, qend, sstart, send;
    std::string strand_name;
    first_line >> qstart >> qend >> sstart >> send >> strand_name;
    CHECK(qstart < qend);
    CHECK(sstart > send);  // BLAST's convention for the minus strand
    CHECK(strand_name == "minus");
    // The same alignment by the reference, on the reverse complement of the query, mapped back to the
    // query's plus strand: BLAST's minus-strand convention.
    std::string searched(query.rbegin(), query.rend());
    for (auto& c : searched) c = static_cast<char>(dna.complement(static_cast<std::uint8_t>(c)));
    const auto span = reference::local_span(searched, planted, scoring);
    const long m = static_cast<long>(query.size());
    CHECK(qstart == m - static_cast<long>(span.query_end) + 1);
    CHECK(qend == m - static_cast<long>(span.query_begin));
    CHECK(sstart == static_cast<long>(span.subject_end));
    CHECK(send == static_cast<long>(span.subject_begin) + 1);
  }
}

TEST_CASE("search: scoring and database must agree, and a GPU asked for must exist", "[search]") {
  Fixture f;
  make_fixture(f, SequenceType::protein, 3, 20);
  const Database db = Database::open(make_db(f, "p.wsdb", 1u << 30));
  SearchOptions options;
  try {
    SearchEngine engine(db, ScoringScheme(SubstitutionMatrix::nucleotide(1, -2), GapOpen{5}, GapExtend{2}), options);
    FAIL("a nucleotide scoring scheme was accepted for a protein database");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("protein") != std::string::npos);
  }
  try {
    SearchEngine engine(db, ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{3}, GapExtend{3}), options);
    FAIL("a gap pair without published statistics was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("11/1") != std::string::npos);  // the message lists supported pairs
  }
  options.raw_scores_only = true;
  options.device = Device::cpu;
  SearchEngine raw(db, ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{3}, GapExtend{3}), options);
  CHECK(!raw.search(f.queries).empty());
}

TEST_CASE("output: E-values and bit scores are printed as BLAST prints them", "[output]") {
  // Strings as blastp 2.12 printed them in outfmt 6 for these values.
  CHECK(format_evalue(2.69e-40) == "2.69e-40");
  CHECK(format_evalue(1.2e-181) == "0.0");
  CHECK(format_evalue(1.42e-4) == "1.42e-04");
  CHECK(format_evalue(0.002) == "0.002");
  CHECK(format_evalue(0.042) == "0.042");
  CHECK(format_evalue(0.22) == "0.22");
  CHECK(format_evalue(7.3) == "7.3");
  CHECK(format_evalue(14.2) == "14");
  CHECK(format_bitscore(123.4) == "123");
  CHECK(format_bitscore(25.8) == "25.8");
  CHECK(format_bitscore(415.9) == "415");
}

TEST_CASE("search: the CPU backend locates hits as reference::span does, tie-break included", "[search][locate]") {
  const ScoringScheme blosum62(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  SECTION("protein, two matrices, one and three threads") {
    const auto pairs = planted_pairs(41, 20, 240);
    for (unsigned threads : {1u, 3u}) {
      CAPTURE(threads);
      check_locate(*make_cpu_backend(blosum62, threads), blosum62, pairs);
    }
    const ScoringScheme pam30(SubstitutionMatrix::builtin("PAM30"), GapOpen{9}, GapExtend{1});
    check_locate(*make_cpu_backend(pam30, 2), pam30, planted_pairs(42, 27, 120));  // every code, B Z X * too
  }
  SECTION("nucleotide, ordinary and tie-heavy scoring") {
    const ScoringScheme blastn(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
    check_locate(*make_cpu_backend(blastn, 2), blastn, planted_pairs(43, 4, 180));
    const ScoringScheme ties(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
    check_locate(*make_cpu_backend(ties, 2), ties, planted_pairs(44, 4, 180));
  }
  SECTION("no pairs") {
    std::vector<Span> spans(2);
    make_cpu_backend(blosum62, 2)->locate({}, spans);
    CHECK(spans.empty());
  }
}

TEST_CASE("search: locate() on the real hits of the bundled sample equals reference::span", "[search][locate]") {
  test::TempDir dir;
  MakeDbOptions made;
  made.input = test::source_path("data/uniprot_sample.fa");
  made.output = dir.file("sample.wsdb");
  make_database(made);
  const Database db = Database::open(made.output);
  std::vector<std::string> subjects;  // codes in FASTA order
  FastaReader sample(made.input, SequenceType::protein);
  for (SequenceRecord record; sample.next(record);) subjects.push_back(record.codes);
  std::vector<Query> queries;
  FastaReader query_file(test::source_path("data/queries.fa"), SequenceType::protein);
  for (SequenceRecord record; query_file.next(record);)
    queries.push_back({record.id, record.description, record.codes});

  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  SearchOptions options;
  options.device = Device::cpu;
  options.threads = 2;
  options.max_target_seqs = 12;
  options.max_hsps = 1;  // the best alignment of each subject: reference::span
  const auto results = SearchEngine(db, scoring, options).search(queries);
  std::vector<CodesPair> pairs;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const Hit& hit : results[q].hits) {
      const auto span = reference::span(queries[q].codes, subjects.at(hit.subject), scoring, AlignmentMode::local);
      CHECK(hit.score == span.score);
      CHECK(hit.query_begin == span.query_begin);
      CHECK(hit.query_end == span.query_end);
      CHECK(hit.subject_begin == span.subject_begin);
      CHECK(hit.subject_end == span.subject_end);
      pairs.push_back({queries[q].codes, subjects.at(hit.subject)});
    }
  REQUIRE(pairs.size() >= 60);
  check_locate(*make_cpu_backend(scoring, 2), scoring, pairs);
}

TEST_CASE("search: every hit's alignment is cpu::align_local's, on both DNA strands too", "[search][locate]") {
  struct Case {
    SequenceType type;
    std::uint64_t seed;
    ScoringScheme scoring;
  };
  const Case cases[] = {
      {SequenceType::protein, 21, ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1})},
      {SequenceType::nucleotide, 22, ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2})}};
  for (const Case& c : cases) {
    Fixture f;
    make_fixture(f, c.type, c.seed, 250);
    const Database db = Database::open(make_db(f, "db.wsdb", 20000));
    SearchOptions options;
    options.device = Device::cpu;
    options.threads = 2;
    options.max_target_seqs = 40;
    options.raw_scores_only = true;  // every hit above min_score, weak ones too
    options.min_score = 15;
    options.max_hsps = 1;  // the best alignment of each subject: cpu::align_local
    const auto results = SearchEngine(db, c.scoring, options).search(f.queries);
    const Alphabet& alphabet = Alphabet::of(c.type);
    std::size_t hits = 0, minus = 0;
    for (std::size_t q = 0; q < f.queries.size(); ++q)
      for (const Hit& hit : results[q].hits) {
        CAPTURE(q, hit.subject);
        std::string searched = f.queries[q].codes;
        if (hit.strand == Strand::minus) {
          std::reverse(searched.begin(), searched.end());
          for (auto& code : searched) code = static_cast<char>(alphabet.complement(static_cast<std::uint8_t>(code)));
          ++minus;
        }
        const std::string& subject = f.subjects.at(hit.subject);
        const PairAlignment expected = cpu::align_local(searched, subject, c.scoring);
        ++hits;
        CHECK(hit.score == expected.score);
        CHECK(hit.subject_length == subject.size());
        CHECK(hit.query_begin == expected.query_begin);
        CHECK(hit.query_end == expected.query_end);
        CHECK(hit.subject_begin == expected.subject_begin);
        CHECK(hit.subject_end == expected.subject_end);
        CHECK(hit.operations == expected.operations);
        CHECK(hit.identities == expected.identities);
        CHECK(hit.mismatches == expected.mismatches);
        CHECK(hit.gap_opens == expected.gap_opens);
        CHECK(hit.gaps == expected.gaps);
        CHECK(hit.subject_aligned_codes ==
              subject.substr(expected.subject_begin, expected.subject_end - expected.subject_begin));
      }
    CHECK(hits >= 100);
    if (c.type == SequenceType::nucleotide) CHECK(minus > 0);
  }
}
