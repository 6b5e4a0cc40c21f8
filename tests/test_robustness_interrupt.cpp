// Robustness: SIGINT and SIGTERM during makedb, search and align leave nothing behind and end with status
// 128 + the signal (tests/test_robustness_signals.cpp covers every signal at every phase).
// The robustness tests of the command-line tool are grouped by class of issue (tests/test_robustness_*.cpp);
// each failure must exit with status 1 (2 for a bad command line), never by a signal; its one-line
// message must name the file and the record or line and say what was expected; and it must leave no
// output file, database or temporary file behind. docs/robustness.md lists each case with its test.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/catch.hpp"
#include "tests/robustness_support.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
namespace fs = std::filesystem;
using namespace ws::test::robustness;
using ws::test::read_file;
using ws::test::run_warpsearch;
using ws::test::source_path;
using ws::test::TempDir;
using ws::test::write_file;

namespace {

// makedb reading standard input from a pipe that the test keeps open: the process is certainly in the
// middle of its run (its temporary directory exists, it waits for more input) when the signal comes.
void interrupt_makedb(int signal_number) {
  TempDir dir;
  int pipe_fds[2];
  REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
  Process makedb({"makedb", "-", dir.file("db")}, dir.file("makedb"), pipe_fds[0]);
  ::close(pipe_fds[0]);
  std::mt19937_64 rng(31);
  std::string fasta;
  for (int i = 0; i < 2000; ++i) fasta += fasta_record("s" + std::to_string(i), random_protein(rng, 300));
  REQUIRE(::write(pipe_fds[1], fasta.data(), fasta.size()) == static_cast<ssize_t>(fasta.size()));
  const bool started = wait_for_entry(dir.path(), ".db.tmp-", makedb);
  CHECK(started);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(makedb.running());
  ::kill(makedb.pid(), signal_number);
  makedb.wait();
  ::close(pipe_fds[1]);
  INFO(makedb.err());
  CHECK(makedb.exited());
  CHECK(makedb.exit_status() == 128 + signal_number);
  CHECK(contains(makedb.err(), "interrupted by signal " + std::to_string(signal_number)));
  // Nothing left: no database, no temporary directory.
  CHECK(entries(dir.path()) == std::vector<std::string>{"makedb.stderr", "makedb.stdout"});
}

// Sends the signal to a running process and checks that it stops, within 20 s, as main() ends an
// interrupted command: exit status 128 + signal and a line naming the signal on stderr.
void signal_and_check_exit(Process& process, int signal_number) {
  CHECK(process.running());
  const auto signalled = std::chrono::steady_clock::now();
  ::kill(process.pid(), signal_number);
  process.wait();
  const double seconds_to_stop = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  INFO(process.err());
  CHECK(process.exited());
  CHECK(process.exit_status() == 128 + signal_number);
  CHECK(contains(process.err(), "interrupted by signal " + std::to_string(signal_number)));
  // search checks for the signal between scan tasks of a fraction of a second, align before every pair.
  CHECK(seconds_to_stop < 20.0);
}

// search with enough work (about 3e11 cells on two threads) to be in its scan when the signal comes.
void interrupt_search(int signal_number) {
  TempDir dir;
  std::mt19937_64 rng(37);
  std::string subjects, queries;
  for (int i = 0; i < 8000; ++i) subjects += fasta_record("s" + std::to_string(i), random_protein(rng, 500));
  for (int i = 0; i < 20; ++i) queries += fasta_record("q" + std::to_string(i), random_protein(rng, 4000));
  write_file(dir.file("subjects.fa"), subjects);
  write_file(dir.file("queries.fa"), queries);
  REQUIRE(run_warpsearch("makedb --quiet " + shell_quoted(dir.file("subjects.fa")) + " " + shell_quoted(dir.file("db")))
              .exit_code == 0);
  Process search({"search", "--quiet", "--device", "cpu", "--threads", "2", "-q", dir.file("queries.fa"), "-d",
                  dir.file("db"), "-o", dir.file("hits.tsv")},
                 dir.file("search"));
  // The output's temporary file exists from before the scan until the end.
  const bool started = wait_for_entry(dir.path(), ".hits.tsv.tmp-", search);
  CHECK(started);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  signal_and_check_exit(search, signal_number);
  CHECK(entries(dir.path()) ==
        std::vector<std::string>{"db", "queries.fa", "search.stderr", "search.stdout", "subjects.fa"});
}

// align with enough work to be in the middle of aligning when the signal comes: 2,000 global pairs of
// 3,000 residues with their CIGARs (tens of milliseconds each; about a minute on two shared cores). The
// output's temporary file exists from before the first pair is read; a second of CPU time later the
// inputs are read and the pairs are being aligned (reading them takes a fraction of that).
void interrupt_align(int signal_number) {
  TempDir dir;
  std::mt19937_64 rng(41);
  std::string queries, targets;
  for (int i = 0; i < 2000; ++i) {
    queries += fasta_record("q" + std::to_string(i), random_protein(rng, 3000));
    targets += fasta_record("t" + std::to_string(i), random_protein(rng, 3000));
  }
  write_file(dir.file("queries.fa"), queries);
  write_file(dir.file("targets.fa"), targets);
  Process align({"align", "--quiet", "--device", "cpu", "--threads", "2", "--mode", "global", "--cigar", "-q",
                 dir.file("queries.fa"), "-t", dir.file("targets.fa"), "-o", dir.file("pairs.tsv")},
                dir.file("align"));
  const bool started = wait_for_entry(dir.path(), ".pairs.tsv.tmp-", align);
  CHECK(started);
  const bool working = wait_for_cpu_time(align, 1.0, std::chrono::seconds(120));
  CHECK(working);
  signal_and_check_exit(align, signal_number);
  // No output file, no temporary file.
  CHECK(entries(dir.path()) == std::vector<std::string>{"align.stderr", "align.stdout", "queries.fa", "targets.fa"});
}

}  // namespace

TEST_CASE("robustness: SIGINT during makedb leaves nothing and exits 130", "[robustness][cli][signal]") {
  interrupt_makedb(SIGINT);
}
TEST_CASE("robustness: SIGTERM during makedb leaves nothing and exits 143", "[robustness][cli][signal]") {
  interrupt_makedb(SIGTERM);
}
TEST_CASE("robustness: SIGINT during search leaves no output and exits 130", "[robustness][cli][signal]") {
  interrupt_search(SIGINT);
}
TEST_CASE("robustness: SIGTERM during search leaves no output and exits 143", "[robustness][cli][signal]") {
  interrupt_search(SIGTERM);
}
TEST_CASE("robustness: SIGINT during align leaves no output and exits 130", "[robustness][cli][signal]") {
  interrupt_align(SIGINT);
}
TEST_CASE("robustness: SIGTERM during align leaves no output and exits 143", "[robustness][cli][signal]") {
  interrupt_align(SIGTERM);
}
