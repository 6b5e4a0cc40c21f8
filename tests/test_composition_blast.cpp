// blastp (Debian ncbi-blast+) as the oracle of composition-based statistics and SEG: the same command line
// run by blastp and by `warpsearch blastp` must give the same raw score, E-value and bit score on the
// (query, subject) pairs both report (tests/composition_compare.py prints the fraction and every
// exception). Both of blastp's realignments are compared: the default X-drop realignment (warpsearch's
// emulation starts from points on its exact hits, docs/composition_statistics.md) and -use_sw_tback's
// Smith-Waterman, each against the same option of warpsearch blastp; at least 95% of the pairs must agree.
// Skipped with a message where BLAST+ or python3 is missing.
#include <string>
#include <vector>

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

std::string quoted(const std::string& path) { return "'" + path + "'"; }

bool blast_available() {
  for (const char* tool : {"blastp", "makeblastdb", "python3"})
    if (!have_tool(tool)) {
      WARN(tool << " not installed (Debian: ncbi-blast+, python3): comparison with blastp skipped");
      return false;
    }
  return true;
}

constexpr const char* kColumns = "6 qseqid sseqid score evalue bitscore";

// Runs blastp ARGUMENTS, compares with warpsearch's output file, requires the fraction.
void check_against_blastp(const TempDir& dir, const std::string& arguments, const std::string& ours,
                          double minimum_fraction, int minimum_shared) {
  INFO("blastp " << arguments);
  const std::string blast = dir.file("blast.tsv");
  const auto b = run_shell("blastp " + arguments + " -outfmt '" + kColumns + "' > " + quoted(blast));
  INFO(b.out);
  REQUIRE(b.exit_code == 0);
  const auto c =
      run_shell("python3 " + quoted(source_path("tests/composition_compare.py")) + " " + quoted(blast) + " " +
                quoted(ours) + " " + std::to_string(minimum_fraction) + " " + std::to_string(minimum_shared));
  UNSCOPED_INFO(c.out);
  WARN(c.out.substr(0, c.out.find('\n')));  // the measured agreement, in the test log
  CHECK(c.exit_code == 0);
}

}  // namespace

namespace {

// Both databases of the bundled sample in dir: BLAST's and warpsearch's, at dir/sample.
std::string make_databases(const TempDir& dir) {
  const std::string db = dir.file("sample");
  REQUIRE(run_shell("makeblastdb -in " + quoted(source_path("data/uniprot_sample.fa")) +
                    " -dbtype prot -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  return db;
}

// For each composition mode ("" is blastp's default, -comp_based_stats 2), warpsearch blastp against blastp
// with its default realignment and with -use_sw_tback.
void check_modes(const TempDir& dir, const std::string& base, const std::vector<std::string>& modes,
                 int minimum_shared) {
  for (const std::string& mode : modes) {
    for (const std::string traceback : {"", " -use_sw_tback"}) {
      INFO("mode: " << (mode.empty() ? "default" : mode) << traceback);
      const std::string ours = dir.file("ours.tsv");
      const auto w = run_warpsearch("blastp " + base + " " + mode + traceback + " -outfmt '" + kColumns + "' -out " +
                                    quoted(ours));
      INFO(w.err);
      REQUIRE(w.exit_code == 0);
      check_against_blastp(dir, base + " " + mode + traceback, ours, 0.95, minimum_shared);
    }
  }
}

}  // namespace

TEST_CASE("composition blast: warpsearch blastp gives blastp's composition-adjusted scores and E-values",
          "[blast][composition]") {
  if (!blast_available()) return;
  TempDir dir;
  const std::string db = make_databases(dir);
  const std::string base = "-query " + quoted(source_path("data/queries.fa")) + " -db " + quoted(db);
  check_modes(dir, base, {"", "-comp_based_stats 1", "-comp_based_stats 3"}, 80);
}

// The larger set of docs/composition_statistics.md: the 10 bundled queries and every 133rd protein of the
// sample (the 1st, the 134th, ...), 41 queries. Hidden (a few minutes): run it by name.
TEST_CASE("composition blast: 41 queries", "[.][blast][composition]") {
  if (!blast_available()) return;
  TempDir dir;
  const std::string db = make_databases(dir);
  std::string queries = read_file(source_path("data/queries.fa"));
  const std::string sample = read_file(source_path("data/uniprot_sample.fa"));
  std::size_t record = 0;
  for (std::size_t at = sample.find('>'); at != std::string::npos; ++record) {
    const std::size_t next = sample.find('>', at + 1);
    if (record % 133 == 0) queries += sample.substr(at, next == std::string::npos ? std::string::npos : next - at);
    at = next;
  }
  write_file(dir.file("q41.fa"), queries);
  const std::string base = "-query " + quoted(dir.file("q41.fa")) + " -db " + quoted(db);
  check_modes(dir, base, {"", "-comp_based_stats 1", "-comp_based_stats 3"}, 400);
}

TEST_CASE("composition blast: -seg masks the query as blastp does", "[blast][composition][seg]") {
  if (!blast_available()) return;
  TempDir dir;
  const std::string db = make_databases(dir);
  // The bundled queries, and one of them with a low-complexity stretch spliced in (a poly-Q and a
  // proline-rich run, as in many eukaryotic proteins).
  std::string queries = read_file(source_path("data/queries.fa"));
  const std::size_t second = queries.find('>', 1);
  const std::size_t line = queries.find('\n', queries.find('\n') + 1);
  std::string spliced = ">low_complexity\n" + queries.substr(queries.find('\n') + 1, line - queries.find('\n')) +
                        "QQQQQQQQQQQQQQQQQQQQQQQQPPPPAPPPPSPPPPAPPPPQQQQQQQQQQ\n" +
                        queries.substr(line + 1, second - line - 1);
  write_file(dir.file("q.fa"), queries + spliced);
  const std::string base =
      "-query " + quoted(dir.file("q.fa")) + " -db " + quoted(db) + " -seg yes -comp_based_stats 0";
  const std::string ours = dir.file("ours.tsv");
  const auto w = run_warpsearch("blastp " + base + " -outfmt '" + kColumns + "' -out " + quoted(ours));
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  check_against_blastp(dir, base + " -use_sw_tback", ours, 0.95, 80);
}

TEST_CASE("composition cli: the options' values", "[composition][cli]") {
  TempDir dir;
  const std::string db = dir.file("sample");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string query = " -query " + quoted(source_path("data/queries.fa")) + " -db " + quoted(db) +
                            " -outfmt '6 qseqid sseqid score evalue' -max_target_seqs 5";
  const auto two = run_warpsearch("blastp" + query + " -comp_based_stats 2");
  REQUIRE(two.exit_code == 0);
  CHECK(two.err.empty());
  // blastp's letters: T and D mean 2, F means 0; the default is 2.
  CHECK(run_warpsearch("blastp" + query + " -comp_based_stats T").out == two.out);
  CHECK(run_warpsearch("blastp" + query + " -comp_based_stats D").out == two.out);
  CHECK(run_warpsearch("blastp" + query).out == two.out);
  const auto off = run_warpsearch("blastp" + query + " -comp_based_stats F");
  CHECK(off.out == run_warpsearch("blastp" + query + " -comp_based_stats 0").out);
  CHECK(off.out != two.out);
  // search's default is 0.
  CHECK(run_warpsearch("search -q " + quoted(source_path("data/queries.fa")) + " -d " + quoted(db) +
                       " --outfmt '6 qseqid sseqid score evalue' --max-target-seqs 5 --quiet")
            .out == off.out);
  // blastp realigns by X-drop unless -use_sw_tback: search --realign xdrop and sw (search's default).
  const std::string search =
      "search -q " + quoted(source_path("data/queries.fa")) + " -d " + quoted(db) +
      " --outfmt '6 qseqid sseqid score evalue' --max-target-seqs 5 --quiet --comp-based-stats 2";
  const auto smith_waterman = run_warpsearch("blastp" + query + " -use_sw_tback");
  REQUIRE(smith_waterman.exit_code == 0);
  CHECK(run_warpsearch(search + " --realign xdrop").out == two.out);
  CHECK(run_warpsearch(search + " --realign sw").out == smith_waterman.out);
  CHECK(run_warpsearch(search).out == smith_waterman.out);
  for (const std::string& bad :
       {"blastp" + query + " -comp_based_stats 4", "blastp" + query + " -seg '10 1.8'",
        "search -q x.fa -d " + quoted(db) + " --comp-based-stats 5", search + " --realign banded"}) {
    INFO(bad);
    CHECK(run_warpsearch(bad).exit_code == 2);
  }
  // Soft masking (blastp -soft_masking true) only removes seeds: -seg is then noted and not applied.
  const auto soft = run_warpsearch("blastp" + query + " -seg yes -soft_masking true");
  CHECK(soft.out == two.out);
  CHECK(soft.err.find("not applied") != std::string::npos);
}
