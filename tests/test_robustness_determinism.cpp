// Robustness: search output is byte-identical across runs, thread counts and chunkings.
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

TEST_CASE("robustness: search output is byte-identical across runs, thread counts and chunkings",
          "[robustness][cli][determinism]") {
  // tests/test_search.cpp checks the engine across threads and chunkings; this checks the whole
  // command, with every column that depends on the alignment, on the bundled data.
  TempDir dir;
  const std::string one_chunk = make_sample_db(dir, "one.wsdb");
  const std::string many_chunks = make_sample_db(dir, "many.wsdb", "--chunk-size 100K");
  REQUIRE(contains(run_warpsearch("dbinfo " + shell_quoted(many_chunks)).out, "chunks          "));
  CHECK(!contains(run_warpsearch("dbinfo " + shell_quoted(many_chunks)).out, "chunks          1\n"));
  const std::string queries = source_path("data/queries.fa");
  const std::string format =
      " --outfmt '6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score cigar "
      "qseq sseq'";

  std::string reference;
  for (const std::string& db : {one_chunk, many_chunks}) {
    for (const int threads : {1, 2, 3}) {
      for (int run = 0; run < (threads == 2 ? 2 : 1); ++run) {
        const auto result = run_warpsearch(search_args(queries, db) + " --threads " + std::to_string(threads) + format);
        INFO(db << ", " << threads << " threads, run " << run << ": " << result.err);
        REQUIRE(result.exit_code == 0);
        REQUIRE(!result.out.empty());
        if (reference.empty()) reference = result.out;
        CHECK(result.out == reference);
      }
    }
  }
  // JSON Lines as well, across chunkings.
  const auto json_one = run_warpsearch(search_args(queries, one_chunk) + " --outfmt json --threads 1");
  const auto json_many = run_warpsearch(search_args(queries, many_chunks) + " --outfmt json --threads 3");
  CHECK(json_one.exit_code == 0);
  CHECK(!json_one.out.empty());
  CHECK(json_one.out == json_many.out);
}
