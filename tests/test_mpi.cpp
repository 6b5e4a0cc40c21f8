// Cluster mode (built with -DWARPSEARCH_MPI=ON): 'mpirun -np N warpsearch search' gives the output of a
// single-process run, byte for byte, on real protein and DNA databases; a rank that fails, by an error or
// by a signal, ends the job with a non-zero status, names the rank and leaves no output file.
//
// The runs use Open MPI on loopback, as root where needed (--allow-run-as-root), with more ranks than
// cores (--oversubscribe). WARPSEARCH_TEST_MPIEXEC overrides the mpirun found at configure time.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/fasta.hpp"
#include "search/warpsearch.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

#include <sys/wait.h>

using warpsearch::test::read_file;
using warpsearch::test::run_warpsearch;
using warpsearch::test::source_path;
using warpsearch::test::TempDir;

namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

using warpsearch::test::contains;

std::string environment_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

// Runs 'warpsearch ARGUMENTS' as `ranks` MPI ranks; fault (empty: none) goes to WARPSEARCH_MPI_FAULT.
// launcher: a command before mpirun (e.g. `timeout -s INT 3`), or empty.
warpsearch::test::CommandResult run_ranks(int ranks, const std::string& arguments, const std::string& fault = "",
                                          const std::string& launcher = "") {
  TempDir scratch;
  const std::string out = scratch.file("stdout"), err = scratch.file("stderr");
  // Containers often forbid the cross-memory attach of Open MPI's shared-memory transport.
  std::string command = "OMPI_MCA_btl_vader_single_copy_mechanism=none ";
  command += "WARPSEARCH_MPI_FAULT=" + quoted(fault) + " ";
  command +=
      launcher + " " + quoted(environment_or("WARPSEARCH_TEST_MPIEXEC", WARPSEARCH_MPIEXEC)) +
      " --allow-run-as-root --oversubscribe -x WARPSEARCH_MPI_FAULT -x OMPI_MCA_btl_vader_single_copy_mechanism -np " +
      std::to_string(ranks) + " " + quoted(environment_or("WARPSEARCH_TEST_BINARY", WARPSEARCH_BINARY)) + " " +
      arguments + " >" + quoted(out) + " 2>" + quoted(err) + " </dev/null";
  const int status = std::system(command.c_str());
  warpsearch::test::CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

// The names in a directory other than the ones given (temporary files left behind, partial outputs).
std::vector<std::string> unexpected_files(const std::string& directory, std::initializer_list<std::string> expected) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    bool known = false;
    for (const auto& allowed : expected) known = known || name == allowed;
    if (!known) found.push_back(name);
  }
  return found;
}

std::size_t lines(const std::string& text) {
  std::size_t count = 0;
  for (char c : text) count += c == '\n';
  return count;
}

// The search of `queries` against `db` with `options`, on one process and on 1, 2 and 3 ranks: the same
// bytes every time. Returns the single-process output.
std::string check_ranks_match_single_process(const TempDir& dir, const std::string& queries, const std::string& db,
                                             const std::string& options) {
  const std::string common =
      "search --quiet --device cpu --threads 1 -q " + quoted(queries) + " -d " + quoted(db) + " " + options;
  const std::string single = dir.file("single.tsv");
  const auto reference = run_warpsearch(common + " -o " + quoted(single));
  INFO(reference.err);
  REQUIRE(reference.exit_code == 0);
  const std::string expected = read_file(single);
  for (int ranks : {1, 2, 3}) {
    const std::string out = dir.file("ranks" + std::to_string(ranks) + ".tsv");
    const auto run = run_ranks(ranks, common + " -o " + quoted(out));
    INFO(ranks << " ranks, options " << options << "\n" << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(read_file(out) == expected);
  }
  return expected;
}

}  // namespace

TEST_CASE("mpi: 1, 2 and 3 ranks give the single-process output on real proteins", "[mpi][cli]") {
  TempDir dir;
  const std::string queries = source_path("data/queries.fa");
  // Three chunks, so that the ranks' shares start and end inside chunks and some span two.
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(run_warpsearch("makedb --quiet --chunk-size 800K " + quoted(source_path("data/uniprot_sample.fa")) + " " +
                         quoted(db))
              .exit_code == 0);

  SECTION("the default columns, 20 hits per query") {
    const std::string out = check_ranks_match_single_process(dir, queries, db, "--max-target-seqs 20");
    CHECK(lines(out) > 100);  // the comparison is over many hits, not an empty file
  }
  SECTION("3 hits per query: the global top is not any rank's own top") {
    const std::string out =
        check_ranks_match_single_process(dir, queries, db,
                                         "--max-target-seqs 3 --max-hsps 1 --outfmt '6 qseqid sseqid score evalue "
                                         "bitscore qstart qend sstart send cigar'");
    CHECK(lines(out) == 30);  // 10 queries, each with at least 3 hits in the sample
  }
  SECTION("batches of 3 queries, raw scores, JSON") {
    check_ranks_match_single_process(dir, queries, db,
                                     "--max-target-seqs 7 --query-batch 3 --raw-scores --outfmt json");
  }
}

TEST_CASE("mpi: 1, 2 and 3 ranks give the single-process output on real DNA, both strands", "[mpi][cli]") {
  TempDir dir;
  const std::string db = dir.file("dna.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet --chunk-size 200K " + quoted(source_path("data/dna_sample.fa")) + " " + quoted(db))
          .exit_code == 0);
  const std::string queries = source_path("data/dna_queries.fa");
  SECTION("every hit") {
    const std::string out = check_ranks_match_single_process(
        dir, queries, db,
        "--outfmt '6 qseqid sseqid pident length evalue bitscore qstart qend sstart send sstrand qseq sseq'");
    CHECK(contains(out, "\tminus\t"));
    CHECK(contains(out, "\tplus\t"));
  }
  SECTION("the best 4 per query, in batches of 5 queries") {
    const std::string out =
        check_ranks_match_single_process(dir, queries, db, "--max-target-seqs 4 --max-hsps 1 --query-batch 5");
    CHECK(lines(out) == 32);  // 8 queries, each with at least 4 repeat hits
  }
}

TEST_CASE("mpi: SIGINT or SIGTERM to mpirun ends every rank at once and leaves no output", "[mpi][cli][signal]") {
  // No output appears, only (where mpirun killed a rank outright) that rank's named temporary file.
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  // A 100,000-residue query: minutes of work for two ranks.
  std::mt19937_64 rng(3);
  std::string query = ">long\n";
  for (int i = 0; i < 100000; ++i) query += "ACDEFGHIKLMNPQRSTVWY"[rng() % 20];
  warpsearch::test::write_file(dir.file("long.fa"), query + "\n");
  for (const char* signal_name : {"INT", "TERM"}) {
    INFO("SIG" << signal_name);
    const auto started = std::chrono::steady_clock::now();
    const auto run = run_ranks(2,
                               "search --quiet --device cpu -q " + quoted(dir.file("long.fa")) + " -d " + quoted(db) +
                                   " -o " + quoted(dir.file("hits.tsv")),
                               "", std::string("timeout --preserve-status -s ") + signal_name + " 3");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(run.err);
    CHECK(run.exit_code != 0);
    // The signal comes after 3 s; mpirun forwards it and waits for the ranks, which end within a second.
    CHECK(seconds < 3.0 + 2.5);
    CHECK(!warpsearch::test::path_exists(dir.file("hits.tsv")));
    // mpirun may kill a rank outright before it removes its temporary file (named with its process ID, so
    // that a later run on the path removes it once that process is gone: tested on one process in
    // test_robustness_signals.cpp). Nothing else may be left.
    for (const auto& name : unexpected_files(dir.path(), {"sample.wsdb", "long.fa"})) {
      INFO(name);
      CHECK(name.rfind(".hits.tsv.tmp-", 0) == 0);
      std::filesystem::remove(dir.file(name));
    }
  }
}

TEST_CASE("mpi: a failing rank ends the job, names the rank and leaves no output", "[mpi][cli]") {
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string search = "search --device cpu --threads 1 --max-target-seqs 20 -q " +
                             quoted(source_path("data/queries.fa")) + " -d " + quoted(db) + " -o " +
                             quoted(dir.file("hits.tsv"));

  SECTION("a rank that throws") {
    for (const std::string rank : {"0", "1", "2"}) {
      const auto run = run_ranks(3, search, rank + ":throw");
      INFO(run.err);
      CHECK(run.exit_code != 0);
      CHECK(contains(run.err, "rank " + rank + " of 3"));
      CHECK(contains(run.err, "fault injected"));
      CHECK(unexpected_files(dir.path(), {"sample.wsdb"}).empty());
    }
  }
  SECTION("a rank killed by SIGKILL") {
    for (const std::string rank : {"0", "1", "2"}) {
      const auto run = run_ranks(3, search, rank + ":kill");
      INFO(run.err);
      CHECK(run.exit_code != 0);
      CHECK(contains(run.err, "rank " + rank));  // Open MPI's report of the killed process
      CHECK(unexpected_files(dir.path(), {"sample.wsdb"}).empty());
    }
  }
  SECTION("an invalid query in a later batch: rank 0 names the file and the record") {
    const std::string bad = dir.file("bad.fa");
    warpsearch::test::write_file(bad, read_file(source_path("data/queries.fa")) + ">broken\nMKV1LLA\n");
    const auto run = run_ranks(2, "search --device cpu --threads 1 --query-batch 4 -q " + quoted(bad) + " -d " +
                                      quoted(db) + " -o " + quoted(dir.file("hits.tsv")));
    INFO(run.err);
    CHECK(run.exit_code == 1);
    CHECK(contains(run.err, "rank 0 of 2"));
    CHECK(contains(run.err, "bad.fa"));
    CHECK(contains(run.err, "broken"));
    CHECK(unexpected_files(dir.path(), {"sample.wsdb", "bad.fa"}).empty());
  }
}

// What the cluster mode builds on, without MPI: a chunk restricted to some subjects, and engines that
// each search a few subject ranges and align only the candidates that a global selection keeps; their
// hits, merged in the engine's order, are the hits of one engine over the whole database.
TEST_CASE("mpi: subject ranges and candidate selection add up to the whole search", "[mpi][search]") {
  using namespace warpsearch;
  TempDir dir;
  const std::string db_path = dir.file("sample.wsdb");
  REQUIRE(run_warpsearch("makedb --quiet --chunk-size 500K " + quoted(source_path("data/uniprot_sample.fa")) + " " +
                         quoted(db_path))
              .exit_code == 0);
  const Database db = Database::open(db_path);
  REQUIRE(db.num_chunks() >= 3);

  SECTION("a chunk restricted to a run of its subjects") {
    const Chunk whole = db.chunk(1);
    const std::uint64_t first = 17, count = whole.size() - 40;
    const Chunk part = db.chunk(1, first, count);
    REQUIRE(part.size() == count);
    std::uint64_t residues = 0;
    for (std::uint64_t s = 0; s < count; ++s) {
      residues += part.lengths()[s];
      CHECK(part.lengths()[s] == whole.lengths()[first + s]);
      CHECK(part.original_indices()[s] == whole.original_indices()[first + s]);
      if (s % 97 == 0) CHECK(part.subject_codes(s) == whole.subject_codes(first + s));
    }
    CHECK(part.info().residues == residues);
    CHECK(part.info().first_subject == whole.info().first_subject + first);
    CHECK(part.batch().count == count);
    CHECK_THROWS_AS(db.chunk(1, whole.size() - 1, 2), std::out_of_range);
  }

  SECTION("three engines over interleaved ranges, then a global selection") {
    std::vector<Query> queries;
    FastaReader reader(source_path("data/queries.fa"), SequenceType::protein);
    for (SequenceRecord record; reader.next(record);) queries.push_back({record.id, record.description, record.codes});
    const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
    SearchOptions options;
    options.device = Device::cpu;
    options.threads = 1;
    options.max_target_seqs = 4;
    options.max_hsps = 1;  // one hit per kept candidate: the counts below are of candidates
    const std::vector<QueryResult> expected = SearchEngine(db, scoring, options).search(queries);

    // Nine runs of subjects, dealt to three parts in turn; the runs cross chunk boundaries.
    constexpr int kParts = 3;
    std::vector<std::vector<SubjectRange>> ranges(kParts);
    const std::uint64_t subjects = db.info().subjects, step = subjects / 9 + 1;
    for (std::uint64_t first = 0, run = 0; first < subjects; first += step, ++run)
      ranges[run % kParts].push_back({first, std::min(step, subjects - first)});

    // Pass 1: every part's candidates, none aligned. Pass 2: the global top of each query, aligned where found.
    std::vector<std::vector<std::vector<CandidateKey>>> keys(kParts);
    for (int p = 0; p < kParts; ++p) {
      SearchOptions part = options;
      part.subjects = ranges[p];
      part.select_candidates = [&](const std::vector<std::vector<CandidateKey>>& found) {
        keys[p] = found;
        return std::vector<std::size_t>(found.size(), 0);
      };
      for (const QueryResult& result : SearchEngine(db, scoring, part).search(queries)) CHECK(result.hits.empty());
    }
    std::vector<std::vector<std::size_t>> keep(kParts, std::vector<std::size_t>(queries.size(), 0));
    for (std::size_t q = 0; q < queries.size(); ++q) {
      std::vector<std::pair<CandidateKey, int>> all;
      for (int p = 0; p < kParts; ++p)
        for (const CandidateKey& key : keys[p][q]) all.emplace_back(key, p);
      std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return ranks_before(a.first, b.first); });
      for (std::size_t i = 0; i < std::min(all.size(), options.max_target_seqs); ++i) ++keep[all[i].second][q];
    }
    std::vector<std::vector<Hit>> merged(queries.size());
    for (int p = 0; p < kParts; ++p) {
      SearchOptions part = options;
      part.subjects = ranges[p];
      part.select_candidates = [&](const std::vector<std::vector<CandidateKey>>&) { return keep[p]; };
      const auto results = SearchEngine(db, scoring, part).search(queries);
      for (std::size_t q = 0; q < queries.size(); ++q) {
        CHECK(results[q].hits.size() == keep[p][q]);
        merged[q].insert(merged[q].end(), results[q].hits.begin(), results[q].hits.end());
      }
    }
    std::size_t compared = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      auto& hits = merged[q];
      std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
        return ranks_before(CandidateKey{a.score, a.evalue, a.subject, a.strand},
                            CandidateKey{b.score, b.evalue, b.subject, b.strand});
      });
      REQUIRE(hits.size() == expected[q].hits.size());
      for (std::size_t i = 0; i < hits.size(); ++i, ++compared) {
        const Hit &got = hits[i], &want = expected[q].hits[i];
        CHECK(got.subject == want.subject);
        CHECK(got.score == want.score);
        CHECK(got.evalue == want.evalue);  // the whole database's statistics in every part
        CHECK(got.operations == want.operations);
        CHECK(got.subject_begin == want.subject_begin);
        CHECK(got.query_begin == want.query_begin);
      }
    }
    CHECK(compared == 4 * queries.size());
  }
}
