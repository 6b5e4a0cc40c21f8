// The public API (include/warpsearch/) against the command-line tool: the same database, the same
// queries and options give the same hits, field by field (the tool's columns as BLAST's names); the same
// pairs give the same alignments; errors carry the tool's messages. Only public headers are included:
// this file is also the proof that the API needs nothing internal.
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/catch.hpp"
#include "tests/test_support.hpp"
#include "warpsearch/warpsearch.hpp"

namespace {

using warpsearch::test::run_warpsearch;
using warpsearch::test::source_path;
using warpsearch::test::TempDir;

std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
    rows.push_back(fields);
  }
  return rows;
}

// A number the tool printed with a few digits (rounded, or truncated as BLAST prints large bit scores),
// against the API's double: they differ by less than one unit of the last printed digit.
void check_close(const std::string& printed, double value) {
  if (printed == "NA") {
    CHECK(std::isnan(value));
    return;
  }
  const auto e = printed.find('e');
  const std::string mantissa = printed.substr(0, e);
  const auto point = mantissa.find('.');
  const int decimals = point == std::string::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
  const int exponent = e == std::string::npos ? 0 : std::stoi(printed.substr(e + 1));
  const double unit = std::pow(10.0, exponent - decimals);
  CHECK(std::fabs(std::stod(printed) - value) <= unit * 1.0001);
}

constexpr const char* kColumns =
    "qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore "
    "score qlen slen cigar qseq sseq qcovhsp sstrand nident gaps";

// Every hit of results against the tool's rows in kColumns.
// sstrand is N/A for protein, as BLAST prints it.
void check_same_hits(const std::vector<warpsearch::QueryResult>& results, const std::string& tool_output,
                     bool nucleotide) {
  const auto rows = rows_of(tool_output);
  std::size_t row = 0;
  for (const auto& result : results) {
    for (const auto& hit : result.hits) {
      REQUIRE(row < rows.size());
      const auto& r = rows[row++];
      REQUIRE(r.size() == 22);
      CHECK(r[0] == hit.qseqid);
      CHECK(r[1] == hit.sseqid);
      check_close(r[2], hit.pident);
      CHECK(r[3] == std::to_string(hit.length));
      CHECK(r[4] == std::to_string(hit.mismatch));
      CHECK(r[5] == std::to_string(hit.gapopen));
      CHECK(r[6] == std::to_string(hit.qstart));
      CHECK(r[7] == std::to_string(hit.qend));
      CHECK(r[8] == std::to_string(hit.sstart));
      CHECK(r[9] == std::to_string(hit.send));
      check_close(r[10], hit.evalue);
      check_close(r[11], hit.bitscore);
      CHECK(r[12] == std::to_string(hit.score));
      CHECK(r[13] == std::to_string(hit.qlen));
      CHECK(r[14] == std::to_string(hit.slen));
      CHECK(r[15] == hit.cigar);
      CHECK(r[16] == hit.qseq);
      CHECK(r[17] == hit.sseq);
      CHECK(r[18] == std::to_string(hit.qcovhsp));
      CHECK(r[19] == (!nucleotide ? "N/A" : hit.sstrand == warpsearch::Strand::minus ? "minus" : "plus"));
      CHECK(r[20] == std::to_string(hit.nident));
      CHECK(r[21] == std::to_string(hit.gaps));
    }
  }
  CHECK(row == rows.size());
}

}  // namespace

TEST_CASE("public API: version() is the tool's version and the headers'", "[api]") {
  CHECK(std::string(warpsearch::version()) == WARPSEARCH_VERSION_STRING);
  const auto tool = run_warpsearch("--version");
  CHECK(tool.out.substr(0, tool.out.find('\n')) == std::string("warpsearch ") + warpsearch::version());
}

TEST_CASE("public API: a protein search gives the tool's hits, field by field", "[api]") {
  TempDir dir;
  const std::string db_path = dir.file("db");
  const auto report = warpsearch::make_database(source_path("data/uniprot_sample.fa"), db_path);
  CHECK(report.type == warpsearch::SequenceType::protein);
  CHECK(report.sequences == 4000);
  const auto db = warpsearch::Database::open(db_path);
  CHECK(db.info().subjects == 4000);

  warpsearch::SearchOptions options;
  options.max_target_seqs = 7;
  options.aligned_sequences = true;
  options.scoring.matrix = "BLOSUM50";
  options.scoring.gap_open = 13;
  options.scoring.gap_extend = 2;
  const auto queries = warpsearch::read_fasta(source_path("data/queries.fa"));
  const auto results = warpsearch::search(db, queries, options);
  REQUIRE(results.size() == queries.size());
  for (std::size_t q = 0; q < results.size(); ++q) {
    CHECK(results[q].query == q);
    CHECK(results[q].qseqid == queries[q].id);
    CHECK(!results[q].hits.empty());
  }
  const auto tool = run_warpsearch("search --quiet -q '" + source_path("data/queries.fa") + "' -d '" + db_path +
                                   "' --max-target-seqs 7 --matrix BLOSUM50 --gapopen 13 --gapextend 2 --outfmt '6 " +
                                   kColumns + "'");
  REQUIRE(tool.exit_code == 0);
  check_same_hits(results, tool.out, false);
  // The FASTA form reads the same queries.
  warpsearch::Searcher searcher(db, options);
  const auto from_fasta = searcher.search_fasta(source_path("data/queries.fa"));
  check_same_hits(from_fasta, tool.out, false);
  const std::string backend = searcher.backend();
  CHECK((backend.rfind("cpu (", 0) == 0 || backend.rfind("gpu (", 0) == 0));
  // stitle and subject name the subject.
  const auto& first = results[0].hits[0];
  CHECK(db.id(first.subject) == first.sseqid);
  CHECK(first.stitle == first.sseqid + " " + db.description(first.subject));
}

TEST_CASE("public API: a nucleotide search on both strands gives the tool's hits", "[api]") {
  TempDir dir;
  const std::string db_path = dir.file("db");
  // Built from memory: the same records as the FASTA file, so the same database.
  const auto subjects = warpsearch::read_fasta(source_path("data/dna_sample.fa"));
  const auto report = warpsearch::make_database(subjects, db_path);
  CHECK(report.type == warpsearch::SequenceType::nucleotide);
  CHECK(report.sequences == subjects.size());
  const auto db = warpsearch::Database::open(db_path);
  CHECK(db.id(2) == subjects[2].id);
  CHECK(db.description(2) == subjects[2].description);

  warpsearch::SearchOptions options;
  options.max_target_seqs = 5;
  options.aligned_sequences = true;
  options.threads = 2;
  const auto results = warpsearch::search_fasta(db, source_path("data/dna_queries.fa"), options);
  bool minus = false;
  for (const auto& result : results)
    for (const auto& hit : result.hits) minus = minus || hit.sstrand == warpsearch::Strand::minus;
  CHECK(minus);
  const auto tool = run_warpsearch("search --quiet -q '" + source_path("data/dna_queries.fa") + "' -d '" + db_path +
                                   "' --max-target-seqs 5 --outfmt '6 " + kColumns + "'");
  REQUIRE(tool.exit_code == 0);
  check_same_hits(results, tool.out, true);
}

TEST_CASE("public API: pairs align as the tool aligns them, in every mode", "[api]") {
  const std::vector<warpsearch::Sequence> queries = {
      {"a", "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ"},
      {"b", "GSHMSLFDFFKNKGSAATATDRLKLNDVAVVGL"},
      {"c", "WWWWW"}};
  const std::vector<warpsearch::Sequence> targets = {
      {"x", "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQKPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ"},
      {"y", "MSLFDFFKNKGSAATATDRLKLNDVAVVGLQWGSHM"},
      {"z", "PPPPPPPP"}};
  TempDir dir;
  std::string q_text, t_text;
  for (const auto& s : queries) q_text += ">" + s.id + "\n" + s.residues + "\n";
  for (const auto& s : targets) t_text += ">" + s.id + "\n" + s.residues + "\n";
  warpsearch::test::write_file(dir.file("q.fa"), q_text);
  warpsearch::test::write_file(dir.file("t.fa"), t_text);
  for (const auto mode : {warpsearch::AlignMode::local, warpsearch::AlignMode::global,
                          warpsearch::AlignMode::semiglobal, warpsearch::AlignMode::xdrop}) {
    SECTION(warpsearch::align_mode_name(mode)) {
      warpsearch::AlignOptions options;
      options.mode = mode;
      options.cigar = true;
      options.aligned = true;
      const auto alignments = warpsearch::align(queries, targets, options);
      REQUIRE(alignments.size() == 3);
      const auto tool =
          run_warpsearch(std::string("align --quiet --cigar --aligned --mode ") + warpsearch::align_mode_name(mode) +
                         " -q '" + dir.file("q.fa") + "' -t '" + dir.file("t.fa") + "'");
      REQUIRE(tool.exit_code == 0);
      const auto rows = rows_of(tool.out);
      REQUIRE(rows.size() == 4);  // the header line, then the pairs
      for (std::size_t p = 0; p < 3; ++p) {
        const auto& r = rows[p + 1];
        const auto& a = alignments[p];
        REQUIRE(r.size() == 10);
        CHECK(r[2] == std::to_string(a.score));
        CHECK(r[3] == std::to_string(a.query_start));
        CHECK(r[4] == std::to_string(a.query_end));
        CHECK(r[5] == std::to_string(a.target_start));
        CHECK(r[6] == std::to_string(a.target_end));
        CHECK(r[7] == (a.cigar.empty() ? "*" : a.cigar));
        CHECK(r[8] == (a.query_aligned.empty() ? "*" : a.query_aligned));
        CHECK(r[9] == (a.target_aligned.empty() ? "*" : a.target_aligned));
        CHECK(a.length == a.query_aligned.size());
        CHECK(a.nident + a.mismatch + a.gaps == a.length);
      }
    }
  }
}

TEST_CASE("public API: xdrop seeds are 1-based and checked", "[api]") {
  warpsearch::AlignOptions options;
  options.mode = warpsearch::AlignMode::xdrop;
  options.cigar = true;
  const std::vector<warpsearch::Sequence> queries = {{"q", "ACGTACGTAAAACCCCGGGG"}};
  const std::vector<warpsearch::Sequence> targets = {{"t", "TTACGTACGTAAAACCCCGGGG"}};
  warpsearch::Aligner aligner(options);
  const auto seeded = aligner.align(queries, targets, {{5, 7, 4}});
  REQUIRE(seeded.size() == 1);
  CHECK(seeded[0].query_start == 1);
  CHECK(seeded[0].target_start == 3);
  CHECK(seeded[0].query_end == 20);
  CHECK(seeded[0].cigar == "20M");
  const std::string backend = aligner.backend();
  CHECK((backend.rfind("cpu (", 0) == 0 || backend.rfind("gpu (", 0) == 0));
  CHECK_THROWS_AS(aligner.align(queries, targets, {{19, 1, 5}}), std::out_of_range);
  CHECK_THROWS_AS(aligner.align(queries, targets, {{0, 1, 1}}), std::invalid_argument);
}

TEST_CASE("public API: an empty sequence aligns globally as one gap", "[api]") {
  warpsearch::AlignOptions options;
  options.mode = warpsearch::AlignMode::global;
  options.type = warpsearch::SequenceType::protein;
  options.cigar = true;
  const auto alignments = warpsearch::align({{"empty", ""}}, {{"t", "MKVL"}}, options);
  REQUIRE(alignments.size() == 1);
  CHECK(alignments[0].score == -(11 + 4 * 1));  // open + k * extend
  CHECK(alignments[0].cigar == "4D");
  CHECK(alignments[0].query_start == 0);
  CHECK(alignments[0].query_end == 0);
  CHECK(alignments[0].target_start == 1);
  CHECK(alignments[0].target_end == 4);
}

TEST_CASE("public API: errors carry the tool's messages", "[api]") {
  TempDir dir;
  // A missing database: the message after the tool's "error: ".
  std::string message;
  try {
    (void)warpsearch::Database::open(dir.file("missing"));
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  REQUIRE(!message.empty());
  warpsearch::test::write_file(dir.file("q.fa"), ">q\nMKV\n");
  const auto tool = run_warpsearch("search -q '" + dir.file("q.fa") + "' -d '" + dir.file("missing") + "'");
  CHECK(tool.exit_code == 1);
  CHECK(tool.err == "warpsearch search: error: " + message + "\n");

  // A bad matrix name: ScoringScheme's message, as the tool prints it (a usage error there, naming
  // the option).
  const std::vector<warpsearch::Sequence> subjects = {{"s1", "MKTAYIAKQRQISFVK"}, {"s2", "GSHMSLFDFFKNKGSA"}};
  warpsearch::make_database(subjects, dir.file("db"));
  const auto db = warpsearch::Database::open(dir.file("db"));
  warpsearch::SearchOptions options;
  options.scoring.matrix = "BLOSUM63";
  try {
    warpsearch::Searcher searcher(db, options);
    FAIL("no error for an unknown matrix");
  } catch (const std::invalid_argument& e) {
    const auto bad =
        run_warpsearch("search -q '" + dir.file("q.fa") + "' -d '" + dir.file("db") + "' --matrix BLOSUM63");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.rfind(std::string("warpsearch search: --matrix: ") + e.what() + "\n", 0) == 0);
  }
  // Options of the other sequence type, and values out of range.
  options.scoring = {};
  options.scoring.match = 1;
  CHECK_THROWS_WITH(warpsearch::Searcher(db, options), "match and mismatch are for nucleotide databases");
  options.scoring = {};
  options.evalue = 0;
  CHECK_THROWS_WITH(warpsearch::Searcher(db, options), "evalue must be positive");
  // A letter that is not a residue names the query and the position.
  CHECK_THROWS_WITH(warpsearch::search(db, {{"q1", "MKV"}, {"q2", "MK1V"}}),
                    "query 2 ('q2'): '1' at position 3 is not a protein residue");
  CHECK_THROWS_WITH(warpsearch::search(db, {{"q1", ""}}), "query 1 ('q1') has no residues");
  // makedb from memory: IDs, an existing output, bad letters.
  CHECK_THROWS_WITH(warpsearch::make_database({{"two words", "MKV"}}, dir.file("db2")),
                    "sequence 1 ('two words'): an ID is one word, without blanks or line breaks");
  CHECK_THROWS_WITH(warpsearch::make_database({{"a", "MKV", "two\nlines"}}, dir.file("db2")),
                    "sequence 1 ('a'): the header holds a line break or another control byte");
  CHECK_THROWS_AS(warpsearch::make_database(subjects, dir.file("db")), std::runtime_error);
  CHECK_THROWS_WITH(warpsearch::make_database({{"a", "MKV"}, {"b", "MK#"}}, dir.file("db3"),
                                              {warpsearch::SequenceType::protein, 1u << 30, false}),
                    "sequence 2 ('b'): '#' at position 3 is not a protein residue");
  const auto skipped = warpsearch::make_database({{"a", "MKV"}, {"b", "MK#"}}, dir.file("db4"),
                                                 {warpsearch::SequenceType::protein, 1u << 30, true});
  CHECK(skipped.sequences == 1);
  CHECK(skipped.skipped == 1);
  // No temporary file is left beside the databases.
  std::size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    entries += entry.path().filename().string()[0] == '.';
  CHECK(entries == 0);
  CHECK_THROWS_AS(db.id(2), std::out_of_range);
}

TEST_CASE("public API: searchers on one database in several threads, and a searcher outliving its handle", "[api]") {
  TempDir dir;
  warpsearch::make_database(source_path("data/uniprot_sample.fa"), dir.file("db"));
  const auto queries = warpsearch::read_fasta(source_path("data/queries.fa"));
  warpsearch::SearchOptions options;
  options.max_target_seqs = 20;
  options.threads = 1;
  std::optional<warpsearch::Searcher> kept;
  std::vector<warpsearch::QueryResult> expected;
  {
    const auto db = warpsearch::Database::open(dir.file("db"));
    expected = warpsearch::search(db, queries, options);
    std::vector<std::vector<warpsearch::QueryResult>> results(3);
    std::vector<std::thread> threads;
    for (auto& result : results)
      threads.emplace_back([&db, &queries, &options, &result] {
        warpsearch::Searcher searcher(db, options);  // one per thread, one Database for all
        result = searcher.search(queries);
      });
    for (auto& thread : threads) thread.join();
    for (const auto& result : results) {
      REQUIRE(result.size() == expected.size());
      for (std::size_t q = 0; q < result.size(); ++q) {
        REQUIRE(result[q].hits.size() == expected[q].hits.size());
        for (std::size_t h = 0; h < result[q].hits.size(); ++h) {
          CHECK(result[q].hits[h].sseqid == expected[q].hits[h].sseqid);
          CHECK(result[q].hits[h].score == expected[q].hits[h].score);
          CHECK(result[q].hits[h].cigar == expected[q].hits[h].cigar);
        }
      }
    }
    kept.emplace(db, options);
  }
  // The Database handle is gone; the Searcher keeps the files mapped.
  const auto again = kept->search(queries);
  REQUIRE(again.size() == expected.size());
  CHECK(again[0].hits[0].sseqid == expected[0].hits[0].sseqid);
  CHECK(again[0].hits[0].evalue == expected[0].hits[0].evalue);
}
