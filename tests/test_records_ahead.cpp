// RecordsAhead: records read ahead in blocks on several threads equal the reader's own, batch by batch,
// with the same messages for bad input; other inputs (FASTQ, gzip) go through the reader.
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/records_ahead.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using ws::test::error_of;
using ws::test::TempDir;

namespace {

// Every field of the records a serial reader delivers, in order.
std::vector<ws::SequenceRecord> serial_records(const std::string& path) {
  ws::FastaReader reader(path);
  std::vector<ws::SequenceRecord> records;
  for (ws::SequenceRecord record; reader.next(record);) records.push_back(record);
  return records;
}

// The records RecordsAhead delivers in batches of batch_size (and a residue limit).
std::vector<ws::SequenceRecord> ahead_records(const std::string& path, unsigned threads, std::uint64_t block_bytes,
                                              std::size_t batch_size, std::uint64_t residues) {
  ws::FastaReader reader(path);
  ws::RecordsAhead ahead(reader, threads, block_bytes);
  std::vector<ws::SequenceRecord> records, batch;
  for (;;) {
    ahead.fill(batch_size, residues);
    const std::size_t count = std::min(ahead.held(), batch_size);
    if (count == 0) {
      CHECK(ahead.ended());
      break;
    }
    ahead.take(count, batch);
    REQUIRE(batch.size() == count);
    records.insert(records.end(), batch.begin(), batch.end());
  }
  return records;
}

void check_same(const std::vector<ws::SequenceRecord>& got, const std::vector<ws::SequenceRecord>& expected) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t r = 0; r < got.size(); ++r) {
    INFO("record " << r);
    CHECK(got[r].id == expected[r].id);
    CHECK(got[r].description == expected[r].description);
    CHECK(got[r].codes == expected[r].codes);
    CHECK(got[r].length == expected[r].length);
    CHECK(got[r].index == expected[r].index);
    CHECK(got[r].sequence_offset == expected[r].sequence_offset);
  }
}

// A FASTA text of `records` protein records: wrapped at varied widths, some lines CRLF, empty lines
// between some records, some ending in '*'.
std::string random_fasta(std::size_t records, std::mt19937& random) {
  const std::string letters = "ACDEFGHIKLMNPQRSTVWYacdefghiklmnpqrstvwy";
  std::string text;
  for (std::size_t r = 0; r < records; ++r) {
    text += ">r" + std::to_string(r);
    if (random() % 2) text += " a description " + std::to_string(random() % 1000);
    text += random() % 5 == 0 ? "\r\n" : "\n";
    const std::size_t length = 1 + random() % 400, width = 10 + random() % 70;
    for (std::size_t i = 0; i < length; ++i) {
      text += letters[random() % letters.size()];
      if ((i + 1) % width == 0 && i + 1 < length) text += '\n';
    }
    if (random() % 7 == 0) text += '*';
    text += '\n';
    if (random() % 6 == 0) text += '\n';
  }
  return text;
}

}  // namespace

TEST_CASE("records ahead: blocks on several threads give the reader's records, batch by batch", "[fasta][ahead]") {
  TempDir dir;
  std::mt19937 random(7);
  const std::string path = dir.file("proteins.fa");
  ws::test::write_file(path, "\xEF\xBB\xBF" + random_fasta(500, random));  // a byte-order mark too
  const auto expected = serial_records(path);
  REQUIRE(expected.size() == 500);
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (std::uint64_t block : {1u, 97u, 4096u, 1u << 20}) {
      INFO("threads " << threads << ", blocks of " << block << " bytes");
      check_same(ahead_records(path, threads, block, 37, 1u << 30), expected);
      check_same(ahead_records(path, threads, block, 1000, 2000), expected);  // the residue limit
    }
}

TEST_CASE("records ahead: FASTQ, gzip and a lone record go through the reader", "[fasta][ahead]") {
  TempDir dir;
  const std::string fastq = dir.file("reads.fq");
  ws::test::write_file(fastq, "@a\nACGT\n+\nIIII\n@b\nGGA\n+\nIII\n");
  check_same(ahead_records(fastq, 4, 3, 1, 100), serial_records(fastq));
  const std::string gz = dir.file("p.fa.gz");
  ws::test::write_gzip(gz, ">p1\nMKV\n>p2\nLLA\n");
  check_same(ahead_records(gz, 4, 3, 1, 100), serial_records(gz));
  const std::string one = dir.file("one.fa");
  ws::test::write_file(one, ">only one record\n" + std::string(5000, 'W') + "\n");
  check_same(ahead_records(one, 4, 64, 10, 100), serial_records(one));
}

TEST_CASE("records ahead: bad input gives the reader's message, from any block", "[fasta][ahead]") {
  TempDir dir;
  std::mt19937 random(11);
  const std::string good = random_fasta(200, random);
  const auto check_message = [&](const std::string& text) {
    const std::string path = dir.file("bad.fa");
    ws::test::write_file(path, text);
    const std::string expected = error_of([&] { serial_records(path); });
    INFO(expected);
    CHECK(expected != "(no error)");
    for (unsigned threads : {2u, 5u})
      for (std::uint64_t block : {50u, 333u, 1u << 20})
        CHECK(error_of([&] { ahead_records(path, threads, block, 16, 1u << 30); }) == expected);
  };
  // A bad residue late in the input, an empty record in the middle, sequence before any header, an
  // empty file, a file of headers only.
  check_message(good + ">late\nMKV1L\n");
  const std::size_t middle = good.find(">r100");
  check_message(good.substr(0, middle) + ">empty\n" + good.substr(middle));
  check_message("MKVL\n" + good);
  check_message("");
  check_message(">a\n>b\n");
}

TEST_CASE("records ahead: count_rest counts the held records and the rest", "[fasta][ahead]") {
  TempDir dir;
  std::mt19937 random(3);
  const std::string path = dir.file("p.fa");
  ws::test::write_file(path, random_fasta(300, random));
  for (unsigned threads : {1u, 4u}) {
    ws::FastaReader reader(path);
    ws::RecordsAhead ahead(reader, threads, 128);
    std::vector<ws::SequenceRecord> batch;
    ahead.fill(50, 1u << 30);
    ahead.take(50, batch);
    CHECK(ahead.count_rest() == 250);
    CHECK(ahead.ended());
  }
}
