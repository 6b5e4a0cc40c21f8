// Robustness: unknown matrices, malformed matrix files, scoring values out of range.
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

TEST_CASE("robustness: unknown matrices, malformed matrix files, scoring values out of range", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  const std::string queries = source_path("data/queries.fa");
  const std::string search = search_args(queries, db) + " -o " + shell_quoted(dir.file("hits.tsv"));

  SECTION("unknown matrix names list the known ones") {
    for (const std::string name : {"BLOSUM99", "blosum", "PAM", "''"}) {
      const auto result = run_warpsearch(search + " --matrix " + name);
      check_usage_failure(result, "--matrix",
                          {"unknown matrix", "BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, BLOSUM90, PAM30, PAM70, PAM250",
                           "or the path of an NCBI matrix file"});
    }
  }
  SECTION("malformed matrix files name the file and line") {
    const std::string path = dir.file("matrix.txt");
    const std::string header = "   A  R  N  D  C  Q  E  G  H  I  L  K  M  F  P  S  T  W  Y  V  B  J  Z  X  *\n";
    struct Case {
      std::string contents, where, expected;
    };
    const std::vector<Case> cases = {
        {"", path, "no header line of letters"},
        {"# nothing but a comment\n", path, "no header line of letters"},
        {"1 2 3\n", path + ":1:", "expected a header of single letters"},
        {header + "A 4 -1\n", path + ":2:", "fewer scores than the header has letters"},
        {header + "7 4\n", path + ":2:", "expected a row letter"},
        {header + "A 4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 -1 -1 x\n",
         path + ":2:", "is not an integer"},
        {header + "A 4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 -1 -1 900\n",
         path + ":2:", "outside -127..127"},
        {header + "A 4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 -1 -1 -4\n", path,
         "the matrix has no row for 'R'"},
        {std::string("\x01\x02\xff\xfe garbage\n", 13), path + ":1:", "expected a header of single letters"},
    };
    for (const Case& c : cases) {
      write_file(path, c.contents);
      check_clean_failure(run_warpsearch(search + " --matrix " + shell_quoted(path)), {c.where, c.expected});
    }
  }
  SECTION("gap costs and scores out of range") {
    struct Case {
      std::string options, expected;
      int status;
    };
    const std::vector<Case> cases = {
        {"--gapopen -1 --raw-scores", "--gapopen takes a gap open cost from 0 to 126, not -1", 2},
        {"--gapextend 0 --raw-scores", "--gapextend takes a gap extend cost from 1 to 127, not 0", 2},
        {"--gapopen 126 --gapextend 2 --raw-scores", "--gapopen + --gapextend must be at most 127, not 128", 2},
        {"--gapopen 99999999999", "the argument ('99999999999') for option '--gapopen' is invalid", 2},
        {"--gapopen eleven", "for option '--gapopen' is invalid", 2},
        {"--gapopen 9 --gapextend 3", "--gapopen, --gapextend: no E-values for BLOSUM62 with gap open 9, extend 3", 2},
        {"--evalue 0", "--evalue must be positive", 2},
        {"--evalue -1", "--evalue must be positive", 2},
        {"--max-target-seqs 0", "--max-target-seqs takes a number of hits from 1", 2},
        {"--max-target-seqs -1", "for option '--max-target-seqs' is invalid", 2},
        {"--threads -1", "for option '--threads' is invalid", 2},
        {"--match 2", "--match and --mismatch are for nucleotide databases", 2},
    };
    for (const Case& c : cases) {
      const auto result = run_warpsearch(search + " " + c.options);
      INFO(c.options << ": " << result.err);
      CHECK(result.exit_code == c.status);
      CHECK(contains(result.err, c.expected));
      CHECK(result.out.empty());
    }
  }
  SECTION("nucleotide scores out of range") {
    write_file(dir.file("dna.fa"), ">chr1\nACGTACGTAAACCCGGGTTT\n");
    REQUIRE(
        run_warpsearch("makedb --quiet " + shell_quoted(dir.file("dna.fa")) + " " + shell_quoted(dir.file("dna.wsdb")))
            .exit_code == 0);
    const std::string dna_search = search_args(dir.file("dna.fa"), dir.file("dna.wsdb")) + " --raw-scores";
    for (const auto& [options, expected] : std::vector<std::pair<std::string, std::string>>{
             {" --match 0", "--match takes a positive score up to 127, not 0"},
             {" --mismatch 1", "--mismatch takes a negative score down to -127, not 1"},
             {" --match 300", "--match takes a positive score up to 127, not 300"}}) {
      const auto result = run_warpsearch(dna_search + options);
      INFO(result.err);
      CHECK(result.exit_code == 2);
      CHECK(contains(result.err, expected));
    }
    const auto matrix = run_warpsearch(dna_search + " --matrix BLOSUM62");
    CHECK(matrix.exit_code == 2);
    CHECK(contains(matrix.err, "--matrix is for protein databases"));
  }
  CHECK(!ws::test::path_exists(dir.file("hits.tsv")));
}
