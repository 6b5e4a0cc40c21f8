// warpsearch search writes its results as they come: every format is the same written in parts (query
// batches of one, a memory budget of one byte) as in one piece, on stdout and in a file; stdout gets the
// first query's hits while the search goes on; the progress line appears on a terminal only. Usage
// errors of every command exit 2 with a first line naming the option; runtime errors exit 1.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/alphabet.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using warpsearch::test::have_tool;
using warpsearch::test::read_file;
using warpsearch::test::run_shell;
using warpsearch::test::run_warpsearch;
using warpsearch::test::source_path;
using warpsearch::test::TempDir;
using warpsearch::test::write_file;

namespace {

using warpsearch::test::contains;

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::string binary() {
  const char* given = std::getenv("WARPSEARCH_TEST_BINARY");
  return given != nullptr && *given != '\0' ? given : WARPSEARCH_BINARY;
}

// The first `count` records of a bundled FASTA file, written to path: a shorter run.
std::string first_records(const std::string& fasta, std::size_t count, const std::string& path) {
  std::istringstream lines(read_file(source_path(fasta)));
  std::string kept;
  std::size_t records = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '>' && ++records > count) break;
    kept += line + "\n";
  }
  write_file(path, kept);
  return path;
}

// SAM's @PG line records the command line, which differs between the runs compared.
std::string without_pg_line(const std::string& text) {
  std::istringstream lines(text);
  std::string kept;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("@PG", 0) != 0) kept += line + "\n";
  return kept;
}

}  // namespace

TEST_CASE("streaming cli: every format written batch by batch equals the one-piece output", "[cli][streaming]") {
  TempDir dir;
  struct Data {
    std::string fasta, queries;
    std::vector<std::string> formats;
  };
  const std::vector<Data> data = {
      {"data/uniprot_sample.fa", "data/queries.fa", {"0", "5", "6 std qcovs btop", "7", "15", "json"}},
      {"data/dna_sample.fa", "data/dna_queries.fa", {"0", "5", "7", "15", "17"}},
  };
  for (const Data& d : data) {
    const std::string db = dir.file("db.wsdb");
    std::filesystem::remove_all(db);
    REQUIRE(run_warpsearch("makedb --quiet " + quoted(source_path(d.fasta)) + " " + quoted(db)).exit_code == 0);
    const std::string queries = first_records(d.queries, 4, dir.file("queries.fa"));
    const std::string search =
        "search --quiet --device cpu --max-target-seqs 40 -q " + quoted(queries) + " -d " + quoted(db);
    for (const std::string& format : d.formats) {
      CAPTURE(d.fasta, format);
      const auto whole = run_warpsearch(search + " --outfmt '" + format + "'");
      REQUIRE(whole.exit_code == 0);
      REQUIRE(whole.out.size() > 1000);
      const auto parts = run_warpsearch(search + " --outfmt '" + format + "' --query-batch 1 --hit-memory 1");
      REQUIRE(parts.exit_code == 0);
      const auto file = run_warpsearch(search + " --outfmt '" + format + "' --query-batch 2 --hit-memory 1 -o " +
                                       quoted(dir.file("out")));
      REQUIRE(file.exit_code == 0);
      const bool stdout_same = without_pg_line(parts.out) == without_pg_line(whole.out);
      const bool file_same = without_pg_line(read_file(dir.file("out"))) == without_pg_line(whole.out);
      CHECK(stdout_same);
      CHECK(file_same);
    }
  }
}

TEST_CASE("streaming cli: stdout gets the first query's hits while the search goes on", "[cli][streaming]") {
  // Many queries searched one per batch against a database that takes a while to scan: the first
  // batch's lines must come out long before the last batch is searched.
  TempDir dir;
  std::mt19937_64 rng(91);
  const auto& alphabet = warpsearch::Alphabet::of(warpsearch::SequenceType::protein);
  std::string subjects, queries;
  for (int s = 0; s < 3000; ++s)
    subjects +=
        ">s" + std::to_string(s) + "\n" +
        alphabet.decode_string(warpsearch::test::random_codes(rng, 300 + static_cast<std::size_t>(s % 200), 20)) + "\n";
  for (int q = 0; q < 400; ++q)
    queries +=
        ">q" + std::to_string(q) + "\n" + alphabet.decode_string(warpsearch::test::random_codes(rng, 250, 20)) + "\n";
  write_file(dir.file("db.fa"), subjects);
  write_file(dir.file("q.fa"), queries);
  REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("db.fa")) + " " + quoted(dir.file("db.wsdb"))).exit_code ==
          0);

  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  const std::vector<std::string> args = {binary(),
                                         "search",
                                         "--quiet",
                                         "--device",
                                         "cpu",
                                         "--threads",
                                         "1",
                                         "--query-batch",
                                         "1",
                                         "--evalue",
                                         "1000",
                                         "--max-target-seqs",
                                         "1",
                                         "--outfmt",
                                         "6 qseqid",
                                         "-q",
                                         dir.file("q.fa"),
                                         "-d",
                                         dir.file("db.wsdb")};
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(pipe_ends[1], STDOUT_FILENO);
    ::close(pipe_ends[0]);
    ::close(pipe_ends[1]);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDERR_FILENO);
    std::vector<char*> argv;
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(pipe_ends[1]);
  std::string first_line;
  char c = 0;
  while (::read(pipe_ends[0], &c, 1) == 1 && c != '\n') first_line += c;
  // A search that wrote everything at its end would exit right after its first line (the whole output,
  // a few KiB, fits the pipe): this one keeps searching (the whole run takes many seconds).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int status = 0;
  const pid_t ended = ::waitpid(child, &status, WNOHANG);
  CHECK(ended == 0);
  CHECK(first_line == "q0");
  if (ended == 0) {
    ::kill(child, SIGTERM);
    ::waitpid(child, &status, 0);
  }
  ::close(pipe_ends[0]);
}

TEST_CASE("streaming cli: the progress line goes to a terminal, never to a pipe or with --quiet", "[cli][streaming]") {
  if (!have_tool("script")) {
    WARN("script (util-linux / bsdutils) is not installed: the terminal half is skipped");
    return;
  }
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string queries = first_records("data/queries.fa", 4, dir.file("queries.fa"));
  const std::string search = "search --device cpu --query-batch 2 -q " + quoted(queries) + " -d " + quoted(db) +
                             " -o " + quoted(dir.file("out.tsv"));
  // script runs the command on a pseudo-terminal and copies what it writes there to its stdout.
  const auto on_terminal = [&](const std::string& extra) {
    return run_shell("WARPSEARCH_PROGRESS_DELAY=0 script -qec " + quoted(quoted(binary()) + " " + search + extra) +
                     " /dev/null");
  };
  const auto shown = on_terminal("");
  INFO(shown.out);
  REQUIRE(shown.exit_code == 0);
  CHECK(contains(shown.out, "\r"));
  CHECK(contains(shown.out, "scan 100.0%"));
  CHECK(contains(shown.out, "queries aligned 4/4, written 4"));
  CHECK(contains(shown.out, "GCUPS"));
  CHECK(contains(shown.out, " left"));
  const auto quiet = on_terminal(" --quiet");
  REQUIRE(quiet.exit_code == 0);
  CHECK(!contains(quiet.out, "scan "));
  CHECK(!contains(quiet.out, "\r"));
  // stderr a pipe (or a file): the summary lines only.
  const auto piped = run_shell("WARPSEARCH_PROGRESS_DELAY=0 " + quoted(binary()) + " " + search + " 2>&1 | cat");
  REQUIRE(piped.exit_code == 0);
  CHECK(contains(piped.out, "warpsearch search: 4 queries"));
  CHECK(!contains(piped.out, "\r"));
  CHECK(!contains(piped.out, "queries aligned"));
}

TEST_CASE("cli: usage errors exit 2 with a first line naming the option; runtime errors exit 1", "[cli][streaming]") {
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string q = quoted(source_path("data/queries.fa"));
  const std::string out = " -o " + quoted(dir.file("out"));
  const std::string search = "search --device cpu -q " + q + " -d " + quoted(db) + out;
  const std::string align = "align --device cpu -q " + q + " -t " + q + out;
  const std::string blastp = "blastp -query " + q + " -db " + quoted(db) + " -out " + quoted(dir.file("out"));
  struct Case {
    std::string arguments, named;
  };
  const std::vector<Case> usage = {
      // unknown options
      {search + " --bogus", "--bogus"},
      {align + " --bogus", "--bogus"},
      {"makedb --bogus " + q + " " + quoted(dir.file("x.wsdb")), "--bogus"},
      {"dbinfo --bogus " + quoted(db), "--bogus"},
      {blastp + " -bogus", "-bogus"},
      // bad values
      {search + " --outfmt 99", "--outfmt"},
      {search + " --threads x", "--threads"},
      {search + " --hit-memory 0", "--hit-memory"},
      {search + " --hit-memory 5Q", "--hit-memory"},
      {search + " --strand sideways", "--strand"},
      {align + " --mode sideways", "--mode"},
      {"makedb --dbtype x " + q + " " + quoted(dir.file("x.wsdb")), "--dbtype"},
      {"makedb --chunk-size 0 " + q + " " + quoted(dir.file("x.wsdb")), "--chunk-size"},
      {blastp + " -outfmt 99", "-outfmt"},
      {blastp + " -evalue x", "-evalue"},
      {blastp + " -max_target_seqs 0", "-max_target_seqs"},
      // unknown matrices, gap costs the matrix has no statistics for, out of range
      {search + " --matrix BLOSUM99", "--matrix"},
      {align + " --matrix BLOSUM99", "--matrix"},
      {blastp + " -matrix BLOSUM99", "-matrix"},
      {search + " --matrix PAM30 --gapopen 11 --gapextend 1", "--matrix, --gapopen, --gapextend"},
      {search + " --gapopen 2 --gapextend 7", "--gapopen, --gapextend"},
      {blastp + " -gapopen 2 -gapextend 7", "-gapopen, -gapextend"},
      {search + " --gapextend 120", "--gapopen + --gapextend"},
      {align + " --gapopen 200", "--gapopen"},
      // missing required options
      {"search -q " + q, "-d DB"},
      {"align -q " + q, "--target"},
      {"makedb " + q, "DB"},
      {"dbinfo", "DB"},
      {"blastp -query " + q, "-db"},
  };
  for (const Case& c : usage) {
    const auto r = run_warpsearch(c.arguments);
    INFO(c.arguments << "\n" << r.err);
    CHECK(r.exit_code == 2);
    const std::string first_line = r.err.substr(0, r.err.find('\n'));
    CHECK(contains(first_line, c.named));
    CHECK(contains(r.err, "--help"));
    CHECK(!contains(first_line, "error:"));
  }
  const std::vector<std::string> runtime = {
      "search --device cpu -q " + quoted(dir.file("nope.fa")) + " -d " + quoted(db),
      "search --device cpu -q " + q + " -d " + quoted(dir.file("nope.wsdb")),
      "align --device cpu -q " + quoted(dir.file("nope.fa")) + " -t " + q,
      "makedb " + quoted(dir.file("nope.fa")) + " " + quoted(dir.file("x.wsdb")),
      "dbinfo " + quoted(dir.file("nope.wsdb")),
      "blastp -query " + quoted(dir.file("nope.fa")) + " -db " + quoted(db),
  };
  write_file(dir.file("bad.fa"), ">a\nMK7V\n");
  const std::vector<std::string> bad_input = {"search --device cpu -q " + quoted(dir.file("bad.fa")) + " -d " +
                                              quoted(db)};
  for (const auto& list : {runtime, bad_input})
    for (const std::string& arguments : list) {
      const auto r = run_warpsearch(arguments);
      INFO(arguments << "\n" << r.err);
      CHECK(r.exit_code == 1);
      CHECK(contains(r.err, "error: "));
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}
