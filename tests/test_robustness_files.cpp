// Robustness: missing and unreadable files, and outputs that cannot be written (permissions, a full
// device, a file-size limit).
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

TEST_CASE("robustness: missing and unreadable files, and outputs that cannot be written", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  const std::string queries = source_path("data/queries.fa");

  SECTION("missing inputs") {
    check_clean_failure(
        run_warpsearch("makedb " + shell_quoted(dir.file("nope.fa")) + " " + shell_quoted(dir.file("out.wsdb"))),
        {dir.file("nope.fa"), "No such file or directory"});
    check_clean_failure(run_warpsearch(search_args(dir.file("nope.fa"), db)), {dir.file("nope.fa"), "No such file"});
    check_clean_failure(run_warpsearch(search_args(queries, dir.file("nope.wsdb"))),
                        {dir.file("nope.wsdb"), "No such file"});
    check_clean_failure(run_warpsearch("dbinfo " + shell_quoted(dir.file("nope.wsdb"))),
                        {dir.file("nope.wsdb"), "No such file"});
  }
  SECTION("a directory where a file is expected, a file where a database is expected") {
    fs::create_directory(dir.file("folder"));
    check_clean_failure(
        run_warpsearch("makedb " + shell_quoted(dir.file("folder")) + " " + shell_quoted(dir.file("out.wsdb"))),
        {dir.file("folder"), "Is a directory"});
    check_clean_failure(run_warpsearch(search_args(queries, queries)), {queries, "not a directory"});
    check_clean_failure(run_warpsearch("dbinfo " + shell_quoted(dir.file("folder"))),
                        {dir.file("folder"), "manifest.txt"});
    check_clean_failure(run_warpsearch(search_args(queries, db) + " -o " + shell_quoted(dir.file("folder"))),
                        {dir.file("folder"), "is a directory"});
  }
  SECTION("unreadable files") {
    const std::string locked = dir.file("locked.fa");
    write_file(locked, ">a\nMKV\n");
    ::chmod(locked.c_str(), 0);
    // Root reads a file of mode 000: as root, the tool runs as user nobody (setpriv, util-linux) instead.
    std::string as_user = "\"$WARPSEARCH\"";
    if (::access(locked.c_str(), R_OK) == 0) {
      if (::geteuid() == 0 && ::access("/usr/bin/setpriv", X_OK) == 0) {
        as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups " + as_user;
        ::chmod(dir.path().c_str(), 0755);
      } else {
        as_user.clear();
      }
    }
    if (as_user.empty()) {
      WARN("a file of mode 000 stays readable here (root without setpriv): the unreadable-file case is skipped");
    } else {
      check_clean_failure(
          // The database in /tmp, which user nobody may write: the input must be what fails.
          run_tool_shell(as_user + " makedb " + shell_quoted(locked) + " " +
                         shell_quoted((fs::temp_directory_path() /
                                       ("warpsearch-unreadable-" + std::to_string(::getpid()) + ".wsdb"))
                                          .string())),
          {locked, "Permission denied"});
      check_clean_failure(run_tool_shell(as_user + " " + search_args(locked, db)), {locked, "Permission denied"});
      // The database itself unreadable.
      ::chmod((db + "/manifest.txt").c_str(), 0);
      check_clean_failure(run_tool_shell(as_user + " " + search_args(queries, db)),
                          {db + "/manifest.txt", "Permission denied"});
    }
  }
  SECTION("outputs in a missing directory") {
    check_clean_failure(
        run_warpsearch("makedb " + shell_quoted(queries) + " " + shell_quoted(dir.file("no/such/out.wsdb"))),
        {dir.file("no/such/out.wsdb"), "directory '" + dir.file("no/such") + "' does not exist"});
    check_clean_failure(run_warpsearch(search_args(queries, db) + " -o " + shell_quoted(dir.file("no/such/hits.tsv"))),
                        {dir.file("no/such/hits.tsv"), "does not exist"});
  }
  SECTION("a full disk: /dev/full as the output, and stdout on /dev/full") {
    if (!ws::test::path_exists("/dev/full")) {
      WARN("no /dev/full here: the full-disk case is skipped");
    } else {
      check_clean_failure(run_warpsearch(search_args(queries, db) + " -o /dev/full"),
                          {"/dev/full", "No space left on device"});
      // /dev/full is written in place: it must still be the device, not a file renamed over it.
      struct stat device;
      REQUIRE(::stat("/dev/full", &device) == 0);
      CHECK(S_ISCHR(device.st_mode));
      for (const auto& name : entries("/dev")) CHECK(!contains(name, ".tmp-"));
      // Standard output on a full disk, for search and for dbinfo (whose printf() reports nothing itself).
      for (const std::string& arguments : {search_args(queries, db), "dbinfo " + shell_quoted(db)})
        check_clean_failure(run_tool_shell("\"$WARPSEARCH\" " + arguments, "/dev/full"),
                            {"standard output", "No space left on device"});
    }
  }
  SECTION("a full disk during makedb: a file size limit stops the writes half way") {
    // RLIMIT_FSIZE with SIGXFSZ ignored makes write() fail with EFBIG once a file would exceed the limit
    // (128 blocks of 512 or 1024 bytes, by the shell),
    // the way a full disk makes it fail with ENOSPC: makedb must fail cleanly and leave nothing.
    check_clean_failure(
        run_tool_shell("trap '' XFSZ; ulimit -f 128; \"$WARPSEARCH\" makedb " +
                       shell_quoted(source_path("data/uniprot_sample.fa")) + " " + shell_quoted(dir.file("big.wsdb"))),
        {dir.file(""), "File too large"});
    CHECK(!ws::test::path_exists(dir.file("big.wsdb")));
    for (const auto& name : entries(dir.path())) CHECK(!contains(name, ".tmp-"));
  }
  SECTION("other special outputs are written in place: /dev/null, /dev/stdout") {
    const auto null = run_warpsearch(search_args(queries, db) + " -o /dev/null");
    CHECK(null.exit_code == 0);
    CHECK(null.out.empty());
    const auto out = run_warpsearch(search_args(queries, db) + " -o /dev/stdout");
    CHECK(out.exit_code == 0);
    CHECK(out.out == run_warpsearch(search_args(queries, db)).out);
    CHECK(!out.out.empty());
  }
  SECTION("a symbolic link as the output: the file it names is replaced, the link kept") {
    fs::create_directory(dir.file("real"));
    fs::create_symlink(dir.file("real/hits.tsv"), dir.file("link.tsv"));
    const auto result = run_warpsearch(search_args(queries, db) + " -o " + shell_quoted(dir.file("link.tsv")));
    CHECK(result.exit_code == 0);
    CHECK(fs::is_symlink(dir.file("link.tsv")));
    CHECK(read_file(dir.file("real/hits.tsv")) == run_warpsearch(search_args(queries, db)).out);
    CHECK(entries(dir.file("real")) == std::vector<std::string>{"hits.tsv"});
  }
  CHECK(!ws::test::path_exists(dir.file("out.wsdb")));
  for (const auto& name : entries(dir.path())) CHECK(!contains(name, ".tmp-"));
}
