// warpsearch search from the command line: the end-to-end golden run on the bundled data, and the
// errors a user can make.
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using warpsearch::test::read_file;
using warpsearch::test::run_warpsearch;
using warpsearch::test::source_path;
using warpsearch::test::TempDir;

namespace {

using warpsearch::test::contains;

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Files in a directory other than the ones named.
std::size_t other_files(const std::string& directory, std::initializer_list<std::string> expected) {
  std::size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    bool known = false;
    for (const auto& name : expected) known = known || entry.path().filename() == name;
    count += known ? 0 : 1;
  }
  return count;
}

}  // namespace

TEST_CASE("search cli: makedb then search on the bundled sample gives the golden output", "[cli][search]") {
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string out = dir.file("hits.tsv");
  const auto result = run_warpsearch("search --quiet --device cpu -q " + quoted(source_path("data/queries.fa")) +
                                     " -d " + quoted(db) + " -o " + quoted(out) + " --max-target-seqs 20");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  // The golden file was checked against ssearch36 (scores, end positions) and blastp (E-values) when it
  // was made; any change to it must be checked again (bench/ssearch_check.sh, bench/evalue_check.sh).
  const std::string golden = read_file(source_path("tests/golden/sample_search.tsv"));
  CHECK(read_file(out) == golden);
  CHECK(other_files(dir.path(), {"sample.wsdb", "hits.tsv"}) == 0);  // no temporary file left behind

  // --max-hsps 1: each subject's best alignment only, the first of its lines in the full output.
  const auto best_only = run_warpsearch("search --quiet --device cpu -q " + quoted(source_path("data/queries.fa")) +
                                        " -d " + quoted(db) + " --max-target-seqs 20 --max-hsps 1");
  REQUIRE(best_only.exit_code == 0);
  std::string first_lines;
  std::set<std::string> pairs_seen;
  std::istringstream golden_lines(golden);
  for (std::string line; std::getline(golden_lines, line);) {
    const std::size_t second_tab = line.find('\t', line.find('\t') + 1);
    if (pairs_seen.insert(line.substr(0, second_tab)).second) first_lines += line + "\n";
  }
  CHECK(best_only.out == first_lines);
  CHECK(pairs_seen.size() < static_cast<std::size_t>(std::count(golden.begin(), golden.end(), '\n')));

  // The same search on stdout, in JSON Lines: one object per line, as many as tabular rows.
  const auto json = run_warpsearch("search --quiet --device cpu -q " + quoted(source_path("data/queries.fa")) + " -d " +
                                   quoted(db) + " --outfmt json --max-target-seqs 20");
  REQUIRE(json.exit_code == 0);
  const auto lines = [](const std::string& text) { return std::count(text.begin(), text.end(), '\n'); };
  CHECK(lines(json.out) == lines(read_file(out)));
  CHECK(json.out.rfind("{\"qseqid\":", 0) == 0);
}

TEST_CASE("search cli: user errors are named, exit non-zero and leave no output", "[cli][search]") {
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string queries = quoted(source_path("data/queries.fa"));

  SECTION("a missing query file") {
    const auto r = run_warpsearch("search -q " + quoted(dir.file("nope.fa")) + " -d " + quoted(db));
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "nope.fa"));
  }
  SECTION("a missing database") {
    const auto r = run_warpsearch("search -q " + queries + " -d " + quoted(dir.file("nope.wsdb")));
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "nope.wsdb"));
  }
  SECTION("an output file in a missing directory") {
    const auto r =
        run_warpsearch("search -q " + queries + " -d " + quoted(db) + " -o " + quoted(dir.file("no/such/dir/out.tsv")));
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "no/such/dir"));
  }
  SECTION("an unknown matrix lists the built-in ones") {
    const auto r = run_warpsearch("search -q " + queries + " -d " + quoted(db) + " --matrix BLOSUM99");
    CHECK(r.exit_code == 2);  // an option value: a usage error
    CHECK(contains(r.err, "BLOSUM99"));
    CHECK(contains(r.err, "PAM250"));
  }
  SECTION("a gap pair without statistics lists the supported pairs") {
    const auto r = run_warpsearch("search -q " + queries + " -d " + quoted(db) + " --gapopen 2 --gapextend 7");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "11/1"));
  }
  SECTION("a negative gap extend") {
    const auto r = run_warpsearch("search -q " + queries + " -d " + quoted(db) + " --gapextend -1 --raw-scores");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "extend"));
  }
  SECTION("an unknown output column") {
    const auto r = run_warpsearch("search -q " + queries + " -d " + quoted(db) + " --outfmt '6 qseqid bogus'");
    CHECK(r.exit_code == 2);  // a bad option value is a usage error
    CHECK(contains(r.err, "bogus"));
  }
  SECTION("a bad command line") {
    const auto r = run_warpsearch("search -q " + queries);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "-d DB"));
  }
  CHECK(other_files(dir.path(), {"sample.wsdb"}) == 0);
}

TEST_CASE("search cli: --device gpu without a usable GPU is an error that says so", "[cli][search]") {
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const auto r = run_warpsearch("search --quiet --device gpu -q " + quoted(source_path("data/queries.fa")) + " -d " +
                                quoted(db) + " --max-target-seqs 20");
  if (r.exit_code == 0) {
    // A GPU is usable here: then its output must equal the golden (CPU-checked) output.
    CHECK(r.out == read_file(source_path("tests/golden/sample_search.tsv")));
  } else {
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "GPU"));
  }
}

TEST_CASE("search cli: --device auto says so in one line when it runs on the CPU", "[cli][search]") {
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string args =
      " -q " + quoted(source_path("data/queries.fa")) + " -d " + quoted(db) + " --max-target-seqs 5";
  const auto count = [](const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
  };
  const std::string notice = "warpsearch search: no ";
  const auto automatic = run_warpsearch("search --device auto" + args);
  INFO(automatic.err);
  REQUIRE(automatic.exit_code == 0);
  if (contains(automatic.err, " on cpu (")) {
    CHECK(count(automatic.err, notice) == 1);
    CHECK(contains(automatic.err, "running on the cpu ("));
  } else {
    CHECK(contains(automatic.err, " on gpu ("));  // a usable GPU: no notice
    CHECK(count(automatic.err, notice) == 0);
  }
  // Asked for the CPU, or quiet: no notice.
  const auto cpu = run_warpsearch("search --device cpu" + args);
  REQUIRE(cpu.exit_code == 0);
  CHECK(count(cpu.err, notice) == 0);
  const auto quiet = run_warpsearch("search --quiet --device auto" + args);
  REQUIRE(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  // The output does not depend on the notice.
  CHECK(automatic.out == cpu.out);
}
