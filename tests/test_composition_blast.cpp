// blastp (Debian ncbi-blast+) as the oracle of composition-based statistics and SEG: the same command line
// run by blastp and by `warpsearch blastp` must give the same raw score, E-value and bit score on the
// (query, subject) pairs both report (tests/composition_compare.py prints the fraction and every
// exception). Against blastp -use_sw_tback, whose realignment is a full Smith-Waterman as warpsearch's,
// at least 95% must agree; against default blastp, whose realignment is an X-drop extension that can
// stop early or split an alignment in two (docs/composition_statistics.md), at least 85%. Skipped with
// a message where BLAST+ or python3 is missing.
#include <string>

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

TEST_CASE("composition blast: warpsearch blastp gives blastp's composition-adjusted scores and E-values",
          "[blast][composition]") {
  if (!blast_available()) return;
  TempDir dir;
  const std::string db = dir.file("sample");
  REQUIRE(run_shell("makeblastdb -in " + quoted(source_path("data/uniprot_sample.fa")) +
                    " -dbtype prot -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string base = "-query " + quoted(source_path("data/queries.fa")) + " -db " + quoted(db);
  // "" is blastp's default, -comp_based_stats 2.
  for (const std::string mode : {"", "-comp_based_stats 1", "-comp_based_stats 3"}) {
    INFO("mode: " << (mode.empty() ? "default" : mode));
    const std::string ours = dir.file("ours.tsv");
    const auto w = run_warpsearch("blastp " + base + " " + mode + " -outfmt '" + kColumns + "' -out " + quoted(ours));
    INFO(w.err);
    REQUIRE(w.exit_code == 0);
    check_against_blastp(dir, base + " " + mode + " -use_sw_tback", ours, 0.95, 80);
    check_against_blastp(dir, base + " " + mode, ours, 0.85, 80);
  }
}

TEST_CASE("composition blast: -seg masks the query as blastp does", "[blast][composition][seg]") {
  if (!blast_available()) return;
  TempDir dir;
  const std::string db = dir.file("sample");
  REQUIRE(run_shell("makeblastdb -in " + quoted(source_path("data/uniprot_sample.fa")) +
                    " -dbtype prot -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
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
  for (const std::string& bad : {"blastp" + query + " -comp_based_stats 4", "blastp" + query + " -seg '10 1.8'",
                                 "search -q x.fa -d " + quoted(db) + " --comp-based-stats 5"}) {
    INFO(bad);
    CHECK(run_warpsearch(bad).exit_code == 2);
  }
  // Soft masking (blastp -soft_masking true) only removes seeds: -seg is then noted and not applied.
  const auto soft = run_warpsearch("blastp" + query + " -seg yes -soft_masking true");
  CHECK(soft.out == two.out);
  CHECK(soft.err.find("not applied") != std::string::npos);
}
