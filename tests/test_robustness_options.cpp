// Option values of every command: numbers that are not numbers (NaN, infinities, trailing text,
// overflow, signs on counts) are usage errors (status 2) naming the option, refused before any work
// (the inputs named do not even exist); and every option a message advises is one the command accepts.
#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/catch.hpp"
#include "tests/robustness_support.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using namespace ws::test::robustness;
using ws::test::run_warpsearch;
using ws::test::source_path;
using ws::test::TempDir;
using ws::test::write_file;

TEST_CASE("robustness: numeric options refuse NaN, infinities, negatives, overflow and trailing text",
          "[robustness][cli][options]") {
  TempDir dir;
  // Inputs that do not exist: a value must be refused before anything is opened.
  const std::string missing = shell_quoted(dir.file("missing.fa"));
  const std::string search = "search -q " + missing + " -d " + shell_quoted(dir.file("missing.wsdb"));
  const std::string align = "align -q " + missing + " -t " + missing;
  const std::string makedb = "makedb " + missing + " " + shell_quoted(dir.file("db"));
  struct Option {
    std::string command, name;
    std::vector<std::string> bad;
  };
  const std::vector<std::string> not_numbers = {"nan",   "NaN",   "-nan", "inf",  "-inf", "infinity",
                                                "1e999", "12abc", "' 5'", "0x10", "''",   "5.5.5"};
  const std::vector<std::string> not_counts = {"-1", "-0", "1.5", "99999999999999999999999", "+-3"};
  std::vector<Option> options = {
      {search, "--evalue", {"0", "-1", "-1e-3"}},
      {search, "--max-target-seqs", {"0", "2000000000"}},
      {search, "--min-score", {"0", "-5", "99999999999"}},
      {search, "--query-batch", {"0", "99999999"}},
      {search, "--threads", {"5000"}},
      {search, "--gapopen", {"-1", "127", "99999999999"}},
      {search, "--gapextend", {"0", "-1", "128"}},
      {search, "--match", {"0", "-2", "300"}},
      {search, "--mismatch", {"0", "3", "-300"}},
      {search, "--gpu-memory", {"0", "999999999999999G", "1T", "-5M"}},
      {search, "--gpus", {"-1", "0,,1", "0,", "a"}},
      {align, "--xdrop", {"-1"}},
      {align, "--seed-length", {}},
      {align, "--batch", {"0"}},
      {align, "--threads", {"5000"}},
      {align, "--gapopen", {"-1"}},
      {align, "--gapextend", {"0"}},
      {makedb, "--chunk-size", {"0", "999999999999999G", "1.5G"}},
  };
  for (Option& option : options) {
    option.bad.insert(option.bad.end(), not_numbers.begin(), not_numbers.end());
    const std::set<std::string> counts = {"--max-target-seqs", "--query-batch", "--threads",   "--batch",
                                          "--seed-length",     "--chunk-size",  "--gpu-memory"};
    if (counts.count(option.name)) option.bad.insert(option.bad.end(), not_counts.begin(), not_counts.end());
  }
  for (const Option& option : options) {
    for (const std::string& value : option.bad) {
      const auto result = run_warpsearch(option.command + " --quiet " + option.name + " " + value);
      INFO(option.name << " " << value << ": " << result.err);
      CHECK(result.exit_code == 2);
      CHECK(contains(result.err, option.name));
      CHECK(!contains(result.err, "missing.fa"));  // refused before the inputs were looked at
      CHECK(result.out.empty());
    }
  }
  CHECK(entries(dir.path()).empty());
}

TEST_CASE("robustness: good numeric values are still taken", "[robustness][cli][options]") {
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(run_warpsearch("makedb --quiet --chunk-size 1M " + shell_quoted(source_path("data/uniprot_sample.fa")) + " " +
                         shell_quoted(db))
              .exit_code == 0);
  const auto result = run_warpsearch("search --quiet --device cpu -q " + shell_quoted(source_path("data/queries.fa")) +
                                     " -d " + shell_quoted(db) +
                                     " --evalue 1e-3 --max-target-seqs 3 --min-score 20 --threads 1 --query-batch 2");
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(!result.out.empty());
}

namespace {

// The long options a command's --help lists.
std::set<std::string> accepted_options(const std::string& command) {
  const auto help = run_warpsearch(command + " --help");
  REQUIRE(help.exit_code == 0);
  std::set<std::string> names;
  static const std::regex option("--[a-z][a-z-]*");
  for (auto it = std::sregex_iterator(help.out.begin(), help.out.end(), option); it != std::sregex_iterator(); ++it)
    names.insert(it->str());
  return names;
}

}  // namespace

TEST_CASE("robustness: every option a message advises is one the command accepts", "[robustness][cli][options]") {
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  REQUIRE(
      run_warpsearch("makedb --quiet " + shell_quoted(source_path("data/uniprot_sample.fa")) + " " + shell_quoted(db))
          .exit_code == 0);
  write_file(dir.file("invalid.fa"), ">a\nMK7V\n");
  write_file(dir.file("empty-record.fa"), ">a\n>b\nMKV\n");
  write_file(dir.file("good.fa"), ">a\nMKVLAAGI\n");
  write_file(dir.file("dna.fa"), ">d\nACGTACGTAC\n");
  write_file(dir.file("pairs.tsv"), "a nope\n");
  write_file(dir.file("matrix.txt"), "A R\nA 1\n");
  const std::string good = shell_quoted(dir.file("good.fa")), invalid = shell_quoted(dir.file("invalid.fa")),
                    empty = shell_quoted(dir.file("empty-record.fa")), dna = shell_quoted(dir.file("dna.fa"));
  const std::string out = " -o " + shell_quoted(dir.file("out"));
  const std::map<std::string, std::vector<std::string>> runs = {
      {"makedb",
       {"makedb " + invalid + " " + shell_quoted(dir.file("db1")),
        "makedb " + empty + " " + shell_quoted(dir.file("db2")),
        "makedb --dbtype x " + good + " " + shell_quoted(dir.file("db3")), "makedb --chunk-size 0 " + good + " x",
        "makedb " + good, "makedb " + good + " " + shell_quoted(db)}},
      {"search",
       {"search --device cpu -q " + invalid + " -d " + shell_quoted(db) + out,
        "search --device cpu -q " + empty + " -d " + shell_quoted(db) + out,
        "search --device cpu -q " + good + " -d " + shell_quoted(db) + " --gapopen 9 --gapextend 3" + out,
        "search --device cpu -q " + good + " -d " + shell_quoted(db) + " --match 2" + out,
        "search --device cpu -q " + good + " -d " + shell_quoted(db) + " --outfmt '6 bogus'" + out,
        "search --device cpu -q " + good + " -d " + shell_quoted(db) + " --matrix " +
            shell_quoted(dir.file("matrix.txt")) + out,
        "search --device cpu -q " + good + " -d " + shell_quoted(db) + " --strand x" + out,
        "search --device cpu -q " + good + " -d " + shell_quoted(db) + " --device x" + out,
        "search --device cpu -q " + good + " -d " + shell_quoted(good) + out}},
      {"align",
       {"align --device cpu -q " + invalid + " -t " + invalid + out,
        "align --device cpu -q " + empty + " -t " + empty + out,
        "align --device cpu -q " + good + " -t " + invalid + out,
        "align --device cpu -q " + good + " -t " + good + " --outfmt sam" + out,
        "align --device cpu -q " + good + " -t " + good + " --pairs " + shell_quoted(dir.file("pairs.tsv")) + out,
        "align --device cpu -q " + good + " -t " + good + " --xdrop 5" + out,
        "align --device cpu -q " + good + " -t " + good + " --mode x" + out,
        "align --device cpu -q " + dna + " -t " + dna + " --matrix BLOSUM62" + out,
        "align --device cpu -q " + good + " -t " + good + " --cigar --outfmt sam" + out}},
      {"dbinfo", {"dbinfo " + good, "dbinfo", "dbinfo --bogus " + shell_quoted(db)}},
  };
  static const std::regex option("--[a-z][a-z-]*");
  for (const auto& [command, lines] : runs) {
    const std::set<std::string> accepted = accepted_options(command);
    for (const std::string& line : lines) {
      const auto result = run_warpsearch(line);
      INFO(line << "\n" << result.err);
      CHECK(result.exit_code != 0);
      // Every option named in the message (an unknown one the user typed aside).
      std::string message = result.err;
      for (const std::string& typed : {std::string("--bogus")})
        for (auto at = message.find(typed); at != std::string::npos; at = message.find(typed))
          message.erase(at, typed.size());
      for (auto it = std::sregex_iterator(message.begin(), message.end(), option); it != std::sregex_iterator(); ++it) {
        INFO(it->str());
        CHECK(accepted.count(it->str()) == 1);
      }
    }
  }
}
