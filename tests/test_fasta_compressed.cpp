// FASTA compressed with bzip2, xz or zstd: recognised by content, read as the plain file is, with
// concatenated streams; truncated and corrupt streams named. The compressed files are made with the
// libraries themselves (not the command-line tools), at several sizes around the read block (1 MiB).
#include <bzlib.h>
#include <lzma.h>
#include <zstd.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/decompress.hpp"
#include "db/fasta.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using ws::test::read_file;
using ws::test::TempDir;
using ws::test::write_file;

namespace {

std::string bzip2(const std::string& data) {
  std::vector<char> out(data.size() + data.size() / 100 + 1024);
  auto size = static_cast<unsigned>(out.size());
  REQUIRE(BZ2_bzBuffToBuffCompress(out.data(), &size, const_cast<char*>(data.data()),
                                   static_cast<unsigned>(data.size()), 9, 0, 0) == BZ_OK);
  return std::string(out.data(), size);
}

std::string xz(const std::string& data) {
  std::vector<std::uint8_t> out(lzma_stream_buffer_bound(data.size()));
  std::size_t size = 0;
  REQUIRE(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const std::uint8_t*>(data.data()),
                                  data.size(), out.data(), &size, out.size()) == LZMA_OK);
  return std::string(reinterpret_cast<const char*>(out.data()), size);
}

std::string zstd(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t size = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  REQUIRE(!ZSTD_isError(size));
  out.resize(size);
  return out;
}

std::string random_fasta(std::size_t records, std::size_t length, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> letter(0, 19);
  std::string text;
  for (std::size_t r = 0; r < records; ++r) {
    text += ">seq" + std::to_string(r) + " record " + std::to_string(r) + "\n";
    for (std::size_t i = 0; i < length; ++i) {
      text += "ACDEFGHIKLMNPQRSTVWY"[letter(rng)];
      if (i % 60 == 59) text += '\n';
    }
    text += '\n';
  }
  return text;
}

struct Record {
  std::string id, description, codes;
  bool operator==(const Record& other) const {
    return id == other.id && description == other.description && codes == other.codes;
  }
};

std::vector<Record> read_all(const std::string& path) {
  ws::FastaReader reader(path, ws::SequenceType::protein);
  std::vector<Record> records;
  for (ws::SequenceRecord record; reader.next(record);)
    records.push_back({record.id, record.description, record.codes});
  return records;
}

std::string read_error(const std::string& path) {
  try {
    read_all(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

using Compressor = std::string (*)(const std::string&);
struct Format {
  const char* name;
  Compressor compress;
};
const Format kFormats[] = {{"bzip2", bzip2}, {"xz", xz}, {"zstd", zstd}};

}  // namespace

TEST_CASE("FASTA: bzip2, xz and zstd are detected by content and read as the plain file", "[fasta][compressed]") {
  TempDir dir;
  for (const auto& [records, length] : {std::pair<std::size_t, std::size_t>{1, 10}, {50, 333}, {3000, 700}}) {
    const std::string plain = random_fasta(records, length, records);
    write_file(dir.file("plain.fa"), plain);
    const auto expected = read_all(dir.file("plain.fa"));
    for (const Format& format : kFormats) {
      INFO(format.name << ", " << records << " records of " << length);
      const std::string path = dir.file("in.fa");  // no telling suffix: detection is by content
      write_file(path, format.compress(plain));
      CHECK(read_all(path) == expected);
      // Two streams one after the other read as one file.
      write_file(path, format.compress(plain) + format.compress(plain));
      auto twice = expected;
      twice.insert(twice.end(), expected.begin(), expected.end());
      CHECK(read_all(path) == twice);
    }
  }
}

TEST_CASE("FASTA: a truncated or corrupt bzip2, xz or zstd stream is named", "[fasta][compressed]") {
  TempDir dir;
  const std::string plain = random_fasta(200, 500, 7);
  for (const Format& format : kFormats) {
    INFO(format.name);
    const std::string compressed = format.compress(plain);
    const std::string path = dir.file("in.fa");
    write_file(path, compressed.substr(0, compressed.size() / 2));
    const std::string truncated = read_error(path);
    CHECK(truncated.find(std::string("truncated ") + format.name) != std::string::npos);
    CHECK(truncated.find("in.fa") != std::string::npos);
    std::string damaged = compressed;
    for (std::size_t i = damaged.size() / 3; i < damaged.size() / 3 + 64; ++i)
      damaged[i] = static_cast<char>(~damaged[i]);
    write_file(path, damaged);
    const std::string corrupt = read_error(path);
    CHECK(!corrupt.empty());
    CHECK(corrupt.find("in.fa") != std::string::npos);
  }
}

TEST_CASE("FASTA: compression magic bytes", "[fasta][compressed]") {
  auto detect = [](const std::string& bytes) {
    return ws::detect_compression(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  };
  CHECK(detect(std::string("\x1F\x8B\x08", 3)) == ws::Compression::gzip);
  CHECK(detect("BZh91AY") == ws::Compression::bzip2);
  CHECK(detect(std::string("\xFD"
                           "7zXZ\0",
                           6)) == ws::Compression::xz);
  CHECK(detect(std::string("\x28\xB5\x2F\xFD", 4)) == ws::Compression::zstd);
  CHECK(detect(">seq1\nACGT\n") == ws::Compression::none);
  CHECK(detect(std::string("\xFD"
                           "7zX",
                           4)) == ws::Compression::none);  // too short to tell
}
