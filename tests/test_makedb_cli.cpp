// The makedb and dbinfo commands, through the built binary: exit codes, messages, --help.
#include <fstream>
#include <string>

#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using ws::test::run_warpsearch;
using ws::test::TempDir;

namespace {
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
std::string quoted(const std::string& path) { return "'" + path + "'"; }
}  // namespace

TEST_CASE("makedb and dbinfo --help") {
  auto result = run_warpsearch("makedb --help");
  CHECK(result.exit_code == 0);
  CHECK(contains(result.out, "usage: warpsearch makedb IN DB"));
  CHECK(contains(result.out, "--chunk-size"));
  result = run_warpsearch("dbinfo --help");
  CHECK(result.exit_code == 0);
  CHECK(contains(result.out, "usage: warpsearch dbinfo DB"));
  CHECK(contains(result.out, "--verify"));
}

TEST_CASE("makedb: bad command lines exit with status 2") {
  TempDir dir;
  ws::test::write_file(dir.file("in.fa"), ">a\nMKV\n");
  const std::string in = quoted(dir.file("in.fa")), db = quoted(dir.file("db"));
  auto result = run_warpsearch("makedb");
  CHECK(result.exit_code == 2);
  CHECK(contains(result.err, "input FASTA file is missing"));
  result = run_warpsearch("makedb " + in);
  CHECK(result.exit_code == 2);
  CHECK(contains(result.err, "database directory is missing"));
  result = run_warpsearch("makedb " + in + " " + db + " --chunk-size 12X");
  CHECK(result.exit_code == 2);
  CHECK(contains(result.err, "--chunk-size"));
  result = run_warpsearch("makedb " + in + " " + db + " --chunk-size 0");
  CHECK(result.exit_code == 2);
  result = run_warpsearch("makedb " + in + " " + db + " --dbtype rna");
  CHECK(result.exit_code == 2);
  CHECK(contains(result.err, "prot or nucl"));
  result = run_warpsearch("makedb " + in + " " + db + " --no-such-option");
  CHECK(result.exit_code == 2);
  result = run_warpsearch("dbinfo");
  CHECK(result.exit_code == 2);
  CHECK(!ws::test::path_exists(dir.file("db")));
}

TEST_CASE("makedb then dbinfo") {
  TempDir dir;
  ws::test::write_file(dir.file("in.fa"), ">a one\nMKVL\n>b\nMK\n>c\nMKVLEW\n");
  const std::string db = quoted(dir.file("db"));
  auto result = run_warpsearch("makedb " + quoted(dir.file("in.fa")) + " " + db + " --chunk-size 6");
  CHECK(result.exit_code == 0);
  CHECK(contains(result.err, "3 protein sequences, 12 residues, 0 skipped, 2 chunks"));
  CHECK(contains(result.err, "MB/s"));

  result = run_warpsearch("dbinfo " + db + " --verify");
  CHECK(result.exit_code == 0);
  CHECK(contains(result.out, "type            protein"));
  CHECK(contains(result.out, "sequences       3\n"));
  CHECK(contains(result.out, "residues        12\n"));
  CHECK(contains(result.out, "longest         6\n"));
  CHECK(contains(result.out, "chunks          2\n"));
  CHECK(contains(result.out, "format version  1\n"));
  CHECK(contains(result.out, "created by      warpsearch "));
  CHECK(contains(result.out, "source          " + dir.file("in.fa")));
  CHECK(contains(result.out, "length histogram"));
  CHECK(contains(result.out, "every file matches its checksum"));

  // The makedb of an existing database is refused.
  result = run_warpsearch("makedb " + quoted(dir.file("in.fa")) + " " + db);
  CHECK(result.exit_code == 1);
  CHECK(contains(result.err, "already exists"));

  // A damaged file: dbinfo --verify names it and fails.
  {
    std::fstream file(dir.file("db/chunk-00001.lengths"), std::ios::in | std::ios::out | std::ios::binary);
    file.put('\x7F');
  }
  result = run_warpsearch("dbinfo " + db + " --verify");
  CHECK(result.exit_code == 1);
  CHECK(contains(result.err, "chunk-00001.lengths"));
}

TEST_CASE("makedb: stdin, --dbtype, --skip-invalid, --quiet") {
  TempDir dir;
  ws::test::write_file(dir.file("in.fa"), ">a\nACGT\n>bad\nAC1T\n>c\nGGGG\n");
  auto result = run_warpsearch("makedb - " + quoted(dir.file("db")) + " --dbtype nucl --skip-invalid < " +
                               quoted(dir.file("in.fa")));
  CHECK(result.exit_code == 0);
  CHECK(contains(result.err, "2 nucleotide sequences, 8 residues, 1 skipped"));
  result = run_warpsearch("dbinfo " + quoted(dir.file("db")));
  CHECK(contains(result.out, "source          standard input"));
  CHECK(contains(result.out, "skipped         1 invalid records"));

  result = run_warpsearch("makedb " + quoted(dir.file("in.fa")) + " " + quoted(dir.file("db2")) + " --quiet");
  CHECK(result.exit_code == 1);
  CHECK(contains(result.err, dir.file("in.fa")));
  CHECK(contains(result.err, "line 4"));
  CHECK(contains(result.err, "record 2 ('bad')"));
  CHECK(!ws::test::path_exists(dir.file("db2")));

  ws::test::write_file(dir.file("good.fa"), ">a\nACGT\n");
  result = run_warpsearch("makedb " + quoted(dir.file("good.fa")) + " " + quoted(dir.file("db3")) + " --quiet");
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
}
