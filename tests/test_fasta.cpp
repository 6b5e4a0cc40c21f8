// FastaReader: formats accepted, every kind of bad input and its message, skip_invalid, gzip.
#include <zlib.h>

#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/fasta.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using ws::test::TempDir;
using ws::test::write_gzip;

namespace {

struct Letters {  // a record with its residues as upper-case letters
  std::string id, description, letters;
  std::uint64_t index;
};

std::vector<Letters> read_all(const std::string& path, std::optional<ws::SequenceType> type = std::nullopt,
                              bool skip_invalid = false, std::uint64_t* skipped = nullptr) {
  ws::FastaReader reader(path, type, skip_invalid);
  std::vector<Letters> records;
  for (ws::SequenceRecord record; reader.next(record);)
    records.push_back({record.id, record.description, reader.alphabet().decode_string(record.codes), record.index});
  if (skipped != nullptr) *skipped = reader.skipped();
  return records;
}

// The message of the exception that reading the whole of path throws.
std::string read_error(const std::string& path, std::optional<ws::SequenceType> type = std::nullopt) {
  try {
    read_all(path, type);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

using warpsearch::test::contains;

}  // namespace

TEST_CASE("FASTA: CRLF, lower case, wrapped lines, empty lines, '*' and blanks") {
  TempDir dir;
  const std::string path = dir.file("in.fa");
  ws::test::write_file(path,
                       "\r\n\n>sp|P1|ONE  first protein \r\nacdef\r\nGHIKL\r\n\r\nMNPQ*\r\n"
                       ">two\n\nMK V\tW\n\n\n>three\tdesc\twith tabs\nY*\n");
  const auto records = read_all(path, ws::SequenceType::protein);
  REQUIRE(records.size() == 3);
  CHECK(records[0].id == "sp|P1|ONE");
  CHECK(records[0].description == "first protein");
  CHECK(records[0].letters == "ACDEFGHIKLMNPQ");
  CHECK(records[0].index == 0);
  CHECK(records[1].id == "two");
  CHECK(records[1].description.empty());
  CHECK(records[1].letters == "MKVW");
  CHECK(records[2].id == "three");
  CHECK(records[2].description == "desc\twith tabs");
  CHECK(records[2].letters == "Y");
  CHECK(records[2].index == 2);
}

TEST_CASE("FASTA: a '*' inside a protein is the stop residue; only the last one is dropped") {
  TempDir dir;
  ws::test::write_file(dir.file("in.fa"), ">a\nMK*W**\n");
  const auto records = read_all(dir.file("in.fa"), ws::SequenceType::protein);
  REQUIRE(records.size() == 1);
  CHECK(records[0].letters == "MK*W*");
}

TEST_CASE("FASTA: the type is detected from the residues unless fixed") {
  TempDir dir;
  ws::test::write_file(dir.file("dna.fa"), ">d1\nACGTACGTNNacgu\n>d2\nGGGCCCAAATTT\n");
  ws::test::write_file(dir.file("prot.fa"), ">p1\nMKVLEFWQRS\n");
  CHECK(ws::FastaReader(dir.file("dna.fa")).type() == ws::SequenceType::nucleotide);
  CHECK(ws::FastaReader(dir.file("prot.fa")).type() == ws::SequenceType::protein);
  CHECK(ws::FastaReader(dir.file("dna.fa"), ws::SequenceType::protein).type() == ws::SequenceType::protein);
  const auto dna = read_all(dir.file("dna.fa"));
  REQUIRE(dna.size() == 2);
  CHECK(dna[0].letters == "ACGTACGTNNACGT");  // U reads as T
  // A protein read as nucleotide fails on the first letter that is no IUPAC code (L at byte 7).
  const std::string message = read_error(dir.file("prot.fa"), ws::SequenceType::nucleotide);
  CHECK(contains(message, "'L'"));
  CHECK(contains(message, "byte 7,"));
  CHECK(contains(message, "nucleotide"));
  // Blank CRLF lines between FASTQ records are no lines of a record: the sample still reads the
  // sequence lines (they once shifted the count of four and sampled quality lines as protein).
  std::string fastq;
  for (int r = 0; r < 40; ++r) fastq += "@q" + std::to_string(r) + "\r\nACGTACGTAC\r\n+\r\nIIIIIIIIII\r\n\r\n \r\n";
  ws::test::write_file(dir.file("blank.fq"), fastq);
  CHECK(ws::FastaReader(dir.file("blank.fq")).type() == ws::SequenceType::nucleotide);
}

TEST_CASE("FASTA: lines longer than the read block, and many blocks of records") {
  TempDir dir;
  std::mt19937_64 rng(7);
  const std::string alphabet = "ACDEFGHIKLMNPQRSTVWY";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::vector<std::string> expected;
  std::string fasta;
  for (std::size_t length : {std::size_t{3} << 20, std::size_t{1}, std::size_t{70000}, std::size_t{5} << 20}) {
    std::string letters(length, 'A');
    for (char& c : letters) c = alphabet[pick(rng)];
    expected.push_back(letters);
    fasta += ">r" + std::to_string(expected.size()) + "\n";
    if (expected.size() % 2 == 0) {  // wrapped at 61
      for (std::size_t i = 0; i < length; i += 61) fasta += letters.substr(i, 61) + "\n";
    } else {
      fasta += letters + "\n";  // one line of megabytes
    }
  }
  ws::test::write_file(dir.file("long.fa"), fasta);
  const auto records = read_all(dir.file("long.fa"));
  REQUIRE(records.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(records[i].letters == expected[i]);
}

TEST_CASE("FASTA: gzip is detected by content, also concatenated members") {
  TempDir dir;
  const std::string fasta = ">g1 gz\nMKV\nLLE\n>g2\nWWW\n";
  write_gzip(dir.file("no_suffix"), fasta);
  auto records = read_all(dir.file("no_suffix"), ws::SequenceType::protein);
  REQUIRE(records.size() == 2);
  CHECK(records[0].letters == "MKVLLE");
  CHECK(records[1].letters == "WWW");

  // Two gzip members, as `cat a.gz b.gz` makes; the record spans the boundary.
  write_gzip(dir.file("two.gz"), ">m1\nMKV\n");
  write_gzip(dir.file("two.gz"), "LLE\n>m2 second\nQQ\n", "ab");
  records = read_all(dir.file("two.gz"), ws::SequenceType::protein);
  REQUIRE(records.size() == 2);
  CHECK(records[0].letters == "MKVLLE");
  CHECK(records[1].description == "second");
}

TEST_CASE("FASTA: a truncated or corrupt gzip stream is an error naming the file") {
  TempDir dir;
  std::string fasta;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i)
    fasta += ">s" + std::to_string(i) + "\n" +
             ws::Alphabet::protein().decode_string(ws::test::random_codes(rng, 200, 20)) + "\n";
  write_gzip(dir.file("full.gz"), fasta);
  const std::string compressed = ws::test::read_file(dir.file("full.gz"));

  ws::test::write_file(dir.file("cut.gz"), compressed.substr(0, compressed.size() / 2));
  std::string message = read_error(dir.file("cut.gz"));
  CHECK(contains(message, dir.file("cut.gz")));
  CHECK(contains(message, "truncated gzip"));

  std::string corrupt = compressed;
  for (std::size_t i = 100; i < 140; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5A);
  ws::test::write_file(dir.file("corrupt.gz"), corrupt);
  message = read_error(dir.file("corrupt.gz"));
  CHECK(contains(message, dir.file("corrupt.gz")));
  CHECK(contains(message, "gzip"));
}

TEST_CASE("FASTA: each invalid byte is reported with file, record, line and byte offset") {
  TempDir dir;
  const std::string path = dir.file("bad.fa");
  const std::string prefix = ">first\nMKVL\n>second desc\nACDE\nMK";
  for (const std::string& bad : std::vector<std::string>{"1", "-", ".", std::string(1, '\0'), "\x07", ">", "\xC3"}) {
    ws::test::write_file(path, prefix + bad + "W\n>third\nMK\n");
    const std::string message = read_error(path, ws::SequenceType::protein);
    INFO(message);
    CHECK(contains(message, path));
    CHECK(contains(message, "record 2 ('second')"));
    CHECK(contains(message, "line 5"));
    CHECK(contains(message, "byte " + std::to_string(prefix.size()) + ","));
    CHECK(contains(message, "expected residue letters"));
  }
}

TEST_CASE("FASTA: structural errors name what was expected") {
  TempDir dir;
  const std::string path = dir.file("in.fa");
  SECTION("a sequence line before any header") {
    ws::test::write_file(path, "\nMKV\n>a\nMK\n");
    const std::string message = read_error(path);
    CHECK(contains(message, path));
    CHECK(contains(message, "line 2, byte 1"));
    CHECK(contains(message, "before the first header"));
  }
  SECTION("an empty record") {
    ws::test::write_file(path, ">a\nMK\n>empty one\n\n>c\nMK\n");
    const std::string message = read_error(path);
    CHECK(contains(message, "record 2 ('empty')"));
    CHECK(contains(message, "line 3, byte 6"));
    CHECK(contains(message, "no residues"));
  }
  SECTION("a record of only '*'") {
    ws::test::write_file(path, ">a\n*\n");
    CHECK(contains(read_error(path, ws::SequenceType::protein), "no residues"));
  }
  SECTION("a header without ID") {
    ws::test::write_file(path, ">\nMK\n");
    CHECK(contains(read_error(path), "no ID"));
  }
  SECTION("a control byte in the header") {
    ws::test::write_file(path, ">a\x02 b\nMK\n");
    const std::string message = read_error(path);
    CHECK(contains(message, "0x02"));
    CHECK(contains(message, "byte 2"));
  }
  SECTION("an empty file") {
    ws::test::write_file(path, "");
    const std::string message = read_error(path);
    CHECK(contains(message, path));
    CHECK(contains(message, "no sequence records"));
  }
  SECTION("only blank lines") {
    ws::test::write_file(path, "\n\r\n  \n");
    CHECK(contains(read_error(path), "no sequence records"));
  }
  SECTION("a missing file") {
    CHECK(contains(read_error(dir.file("missing.fa")), "cannot open '" + dir.file("missing.fa")));
  }
}

TEST_CASE("FASTA: skip_invalid skips and counts bad records") {
  TempDir dir;
  const std::string path = dir.file("mixed.fa");
  ws::test::write_file(path, ">ok1\nMKV\n>bad1\nMK1V\nLL\n>empty\n>ok2 two\nWW\n>bad2\nM-K\n");
  std::uint64_t skipped = 0;
  const auto records = read_all(path, ws::SequenceType::protein, true, &skipped);
  CHECK(skipped == 3);
  REQUIRE(records.size() == 2);
  CHECK(records[0].id == "ok1");
  CHECK(records[1].id == "ok2");
  CHECK(records[1].letters == "WW");
  CHECK(records[1].index == 1);  // indices count delivered records

  ws::test::write_file(path, ">bad\nM1\n");
  try {
    read_all(path, ws::SequenceType::protein, true);
    FAIL("a file of only invalid records must be an error");
  } catch (const std::runtime_error& e) {
    CHECK(contains(e.what(), "1 skipped"));
  }
}

TEST_CASE("FASTQ: four-line records") {
  TempDir dir;
  const std::string path = dir.file("reads.fq");
  ws::test::write_file(path, "@read1 lane 1\nACGTN\n+\n@@@@I\n@read2\nggcc\n+read2\nIIII\n");
  auto records = read_all(path);
  REQUIRE(records.size() == 2);
  CHECK(records[0].id == "read1");
  CHECK(records[0].description == "lane 1");
  CHECK(records[0].letters == "ACGTN");
  CHECK(records[1].letters == "GGCC");

  ws::test::write_file(path, "@read1\nACGT\n+\nIII\n");
  CHECK(contains(read_error(path), "quality line has 3 characters"));
  ws::test::write_file(path, "@read1\nACGT\nIIII\n");
  CHECK(contains(read_error(path), "'+' line"));
}
