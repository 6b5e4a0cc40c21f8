// Output paths refused before any work (empty, a directory, an input file, a file inside the
// database, symbolic links resolved); a rewritten output keeps its mode; FIFOs and devices as inputs
// are read or refused, never waited on; user text in messages is shortened and escaped; a UTF-8
// byte-order mark is skipped.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>

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

std::string make_db(const TempDir& dir) {
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + shell_quoted(source_path("data/uniprot_sample.fa")) + " " + shell_quoted(db))
          .exit_code == 0);
  return db;
}

// A shell command line; its stdout and stderr captured.
ws::test::CommandResult run_shell(const std::string& command) {
  TempDir scratch;
  const std::string line =
      command + " >" + shell_quoted(scratch.file("out")) + " 2>" + shell_quoted(scratch.file("err"));
  const int status = std::system(("sh -c " + shell_quoted(line)).c_str());
  ws::test::CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(scratch.file("out"));
  result.err = read_file(scratch.file("err"));
  return result;
}

}  // namespace

TEST_CASE("robustness: bad output paths are refused before any work", "[robustness][cli][paths]") {
  TempDir dir;
  const std::string db = make_db(dir);
  write_file(dir.file("q.fa"), ">q\nMKVLAAGIVGLLLAMKV\n");
  const std::string query = dir.file("q.fa");
  const std::string before = read_file(query);
  fs::create_symlink(query, dir.file("link-to-query.fa"));
  fs::create_symlink(dir.file("long.fa"), dir.file("link-to-long.fa"));
  fs::create_symlink(db, dir.file("link-to-db"));
  // A query of 100,000 residues makes a search of many seconds: a refusal must come at once.
  std::mt19937_64 rng(3);
  write_file(dir.file("long.fa"), fasta_record("long", random_protein(rng, 100000)));
  const std::string search =
      "search --quiet --device cpu -q " + shell_quoted(dir.file("long.fa")) + " -d " + shell_quoted(db);
  struct Case {
    std::string output;
    int status;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"''", 2, "-o takes a file name"},
      {shell_quoted(dir.path()), 1, "it is a directory"},
      {shell_quoted(dir.file("long.fa")), 1, "it is the input file"},
      {shell_quoted(dir.file("link-to-long.fa")), 1, "it is the input file"},
      {shell_quoted(db + "/manifest.txt"), 1, "inside the database"},
      {shell_quoted(db + "/new-file"), 1, "inside the database"},
      {shell_quoted(dir.file("link-to-db") + "/headers.txt"), 1, "inside the database"},
      {shell_quoted(dir.file("no/such/dir/out.tsv")), 1, "does not exist"},
  };
  for (const Case& c : cases) {
    const auto started = std::chrono::steady_clock::now();
    const auto result = run_warpsearch(search + " -o " + c.output);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(c.output << ": " << result.err);
    CHECK(result.exit_code == c.status);
    CHECK(contains(result.err, c.expected));
    CHECK(seconds < 3.0);
  }
  // align: the query, target and pairs files.
  {
    const auto result = run_warpsearch("align --device cpu -q " + shell_quoted(query) + " -t " + shell_quoted(query) +
                                       " -o " + shell_quoted(dir.file("link-to-query.fa")));
    CHECK(result.exit_code == 1);
    CHECK(contains(result.err, "it is the input file"));
  }
  CHECK(read_file(query) == before);
  CHECK(run_warpsearch("dbinfo --verify " + shell_quoted(db)).exit_code == 0);
  // A directory this process cannot write (as root, the tool runs as user nobody to see one).
  fs::create_directory(dir.file("read-only"));
  ::chmod(dir.file("read-only").c_str(), 0555);
  std::string as_user = shell_quoted(binary_path());
  if (::geteuid() == 0) {
    if (::access("/usr/bin/setpriv", X_OK) == 0) {
      as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups " + as_user;
      ::chmod(dir.path().c_str(), 0755);
    } else {
      as_user.clear();
    }
  }
  if (as_user.empty()) {
    WARN("running as root without setpriv: the unwritable-directory case is skipped");
  } else {
    const auto started = std::chrono::steady_clock::now();
    const auto result = run_shell(as_user + " " + search + " -o " + shell_quoted(dir.file("read-only/out.tsv")));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(result.err);
    CHECK(result.exit_code == 1);
    CHECK(contains(result.err, "is not writable"));
    CHECK(seconds < 3.0);
  }
}

TEST_CASE("robustness: a rewritten output keeps its mode", "[robustness][cli][paths]") {
  TempDir dir;
  const std::string db = make_db(dir);
  const std::string out = dir.file("hits.tsv");
  write_file(out, "old\n");
  REQUIRE(::chmod(out.c_str(), 0600) == 0);
  const auto result = run_warpsearch("search --quiet --device cpu -q " + shell_quoted(source_path("data/queries.fa")) +
                                     " -d " + shell_quoted(db) + " -o " + shell_quoted(out));
  REQUIRE(result.exit_code == 0);
  struct stat status;
  REQUIRE(::stat(out.c_str(), &status) == 0);
  CHECK((status.st_mode & 07777) == 0600);
  CHECK(read_file(out) != "old\n");
  // align too, with an unusual mode.
  REQUIRE(::chmod(out.c_str(), 0640) == 0);
  write_file(dir.file("q.fa"), ">q\nMKVLAAGIVG\n");
  REQUIRE(run_warpsearch("align --quiet --device cpu -q " + shell_quoted(dir.file("q.fa")) + " -t " +
                         shell_quoted(dir.file("q.fa")) + " -o " + shell_quoted(out))
              .exit_code == 0);
  REQUIRE(::stat(out.c_str(), &status) == 0);
  CHECK((status.st_mode & 07777) == 0640);
}

TEST_CASE("robustness: FIFOs and devices as inputs are read or refused, never waited on", "[robustness][cli][paths]") {
  TempDir dir;
  const std::string db = make_db(dir);
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // `timeout` ends a hang with status 124, which fails the checks below instead of stalling the suite.
  const std::string tool = "timeout 20 " + shell_quoted(binary_path());
  const auto run = [&](const std::string& arguments) { return run_shell(tool + " " + arguments); };
  SECTION("a FIFO as the database manifest") {
    fs::create_directory(dir.file("fifo.wsdb"));
    for (const auto& entry : fs::directory_iterator(db))
      if (entry.path().filename() != "manifest.txt")
        fs::copy(entry.path(), dir.file("fifo.wsdb") / entry.path().filename());
    REQUIRE(::mkfifo(dir.file("fifo.wsdb/manifest.txt").c_str(), 0600) == 0);
    for (const std::string& command : {"dbinfo " + shell_quoted(dir.file("fifo.wsdb")),
                                       "search --device cpu -q " + shell_quoted(source_path("data/queries.fa")) +
                                           " -d " + shell_quoted(dir.file("fifo.wsdb"))}) {
      const auto result = run(command);
      INFO(command << ": " << result.err);
      CHECK(result.exit_code == 1);
      CHECK(contains(result.err, "not a regular file"));
    }
  }
  SECTION("a FIFO or a device as a matrix file") {
    for (const std::string& matrix : {fifo, std::string("/dev/zero")}) {
      const auto result = run("search --device cpu -q " + shell_quoted(source_path("data/queries.fa")) + " -d " +
                              shell_quoted(db) + " --matrix " + shell_quoted(matrix));
      INFO(matrix << ": " << result.err);
      CHECK(result.exit_code == 1);
      CHECK(contains(result.err, "not a regular file"));
    }
  }
  SECTION("devices as sequence and pairs files") {
    for (const std::string device : {"/dev/zero", "/dev/urandom"}) {
      const auto query = run("search --device cpu -q " + device + " -d " + shell_quoted(db));
      INFO(device << ": " << query.err);
      CHECK(query.exit_code == 1);
      const auto pairs = run("align --device cpu -q " + shell_quoted(source_path("data/queries.fa")) + " -t " +
                             shell_quoted(source_path("data/queries.fa")) + " --pairs " + device);
      INFO(pairs.err);
      CHECK(pairs.exit_code == 1);
    }
    const auto empty = run("search --device cpu -q /dev/null -d " + shell_quoted(db));
    CHECK(empty.exit_code == 1);
    CHECK(contains(empty.err, "no sequence records"));
  }
  SECTION("a FIFO with a writer as the query file is read") {
    const auto result =
        run_shell("cat " + shell_quoted(source_path("data/queries.fa")) + " > " + shell_quoted(fifo) + " & " + tool +
                  " search --quiet --device cpu -q " + shell_quoted(fifo) + " -d " + shell_quoted(db));
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(!result.out.empty());
  }
}

TEST_CASE("robustness: user text in messages is shortened and its control bytes escaped", "[robustness][cli][paths]") {
  TempDir dir;
  const std::string db = make_db(dir);
  const std::string long_id(1 << 20, 'I');
  // A header line of 1 MiB with an escape sequence and a bell, then an invalid letter.
  write_file(dir.file("evil.fa"), ">\x1b[31m\x07" + long_id + " description\nMK7V\n");
  const auto makedb =
      run_warpsearch("makedb " + shell_quoted(dir.file("evil.fa")) + " " + shell_quoted(dir.file("x.wsdb")));
  const auto search =
      run_warpsearch("search --device cpu -q " + shell_quoted(dir.file("evil.fa")) + " -d " + shell_quoted(db));
  const auto align = run_warpsearch("align --device cpu -q " + shell_quoted(dir.file("evil.fa")) + " -t " +
                                    shell_quoted(dir.file("evil.fa")));
  // A pairs file naming an unknown ID of 1 MiB with control bytes; a matrix file with them.
  write_file(dir.file("q.fa"), ">q\nMKVLAAG\n");
  write_file(dir.file("pairs.tsv"), "q " + long_id + "\x1b]0;title\x07\n");
  const auto pairs = run_warpsearch("align --device cpu -q " + shell_quoted(dir.file("q.fa")) + " -t " +
                                    shell_quoted(dir.file("q.fa")) + " --pairs " + shell_quoted(dir.file("pairs.tsv")));
  write_file(dir.file("matrix.txt"), "A R\nA 1 " + std::string(100000, 'x') + "\x1b[2J\n");
  const auto matrix = run_warpsearch("search --device cpu -q " + shell_quoted(dir.file("q.fa")) + " -d " +
                                     shell_quoted(db) + " --matrix " + shell_quoted(dir.file("matrix.txt")));
  // A path of control bytes.
  const auto path = run_warpsearch("search --device cpu -q " + shell_quoted(dir.file("no\x1b[31mfile\x07.fa")) +
                                   " -d " + shell_quoted(db));
  for (const auto* result : {&makedb, &search, &align, &pairs, &matrix, &path}) {
    INFO(result->err.substr(0, 2000));
    CHECK(result->exit_code == 1);
    CHECK(result->err.size() < 2000);
    for (const char c : result->err) CHECK_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n'));
  }
  CHECK(contains(search.err, "\\x1B"));
  CHECK(contains(path.err, "no\\x1B[31mfile\\x07.fa"));
}

TEST_CASE("robustness: a UTF-8 byte-order mark at the start of FASTA and FASTQ is skipped",
          "[robustness][cli][paths]") {
  TempDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  write_file(dir.file("bom.fa"), bom + ">s1 first\nMKVLAAGIVGLLLA\n>s2\nMKKLLPTAAAGLLLLA\n");
  write_file(dir.file("plain.fa"), ">s1 first\nMKVLAAGIVGLLLA\n>s2\nMKKLLPTAAAGLLLLA\n");
  write_file(dir.file("bom.fq"), bom + "@r1\nACGTACGTAC\n+\nIIIIIIIIII\n");
  REQUIRE(
      run_warpsearch("makedb --quiet " + shell_quoted(dir.file("bom.fa")) + " " + shell_quoted(dir.file("bom.wsdb")))
          .exit_code == 0);
  REQUIRE(run_warpsearch("makedb --quiet " + shell_quoted(dir.file("plain.fa")) + " " +
                         shell_quoted(dir.file("plain.wsdb")))
              .exit_code == 0);
  const auto fastq =
      run_warpsearch("makedb --quiet " + shell_quoted(dir.file("bom.fq")) + " " + shell_quoted(dir.file("fq.wsdb")));
  INFO(fastq.err);
  CHECK(fastq.exit_code == 0);
  // The same database and the same search results as without the mark.
  const std::string args = " --quiet --device cpu --raw-scores -d ";
  const auto with_bom =
      run_warpsearch("search -q " + shell_quoted(dir.file("bom.fa")) + args + shell_quoted(dir.file("plain.wsdb")));
  const auto without =
      run_warpsearch("search -q " + shell_quoted(dir.file("plain.fa")) + args + shell_quoted(dir.file("bom.wsdb")));
  INFO(with_bom.err);
  CHECK(with_bom.exit_code == 0);
  CHECK(!with_bom.out.empty());
  CHECK(with_bom.out == without.out);
  const auto align = run_warpsearch("align --quiet --device cpu -q " + shell_quoted(dir.file("bom.fa")) + " -t " +
                                    shell_quoted(dir.file("plain.fa")));
  CHECK(align.exit_code == 0);
  CHECK(contains(align.out, "s1\ts1"));
}
