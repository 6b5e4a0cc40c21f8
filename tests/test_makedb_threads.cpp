// makedb on several threads (MakeDbOptions::threads, makedb --threads): the database is the same, byte
// for byte, for any number of threads and any size of the blocks and windows the threads work on; an
// error names the same line, byte and record as a reader of the whole input (FastaReader, the oracle).
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "db/fasta.hpp"
#include "db/makedb.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using ws::test::database_files;
using ws::test::TempDir;
using ws::test::write_gzip;

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }
// Many protein records in every form the reader accepts: a byte-order mark, upper and lower case, LF
// and CRLF, empty and blank lines, blanks inside sequence lines, lines of 1 to 120 residues, a final
// '*', equal lengths, a few records of tens of thousands of residues (longer than the blocks and
// windows of the tests), '>' inside headers; with bad, invalid records among them (a digit, no
// residues, no ID, a control byte in the header).
std::string many_records(std::mt19937_64& rng, std::size_t count, bool bad) {
  const std::string letters = "ACDEFGHIKLMNPQRSTVWYBZXUOJ";
  std::uniform_int_distribution<std::size_t> letter(0, letters.size() - 1), length(1, 900), width(1, 120),
      percent(0, 99);
  std::string out = "\xEF\xBB\xBF";
  for (std::size_t i = 0; i < count; ++i) {
    const std::string eol = percent(rng) < 30 ? "\r\n" : "\n";
    if (percent(rng) < 10) out += percent(rng) < 50 ? eol : " \t" + eol;
    std::size_t n = i % 9 == 0 ? 64 : length(rng);
    if (i % 500 == 17) n = 30000 + i;
    std::string residues;
    for (std::size_t k = 0; k < n; ++k) residues += letters[letter(rng)];
    if (percent(rng) < 30)
      for (char& c : residues) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += ">r" + std::to_string(i) + (i % 4 == 0 ? "" : " desc > " + std::to_string(i * 3)) + eol;
    const std::size_t w = width(rng);
    for (std::size_t at = 0; at < n; at += w) {
      std::string line = residues.substr(at, w);
      if (percent(rng) < 5) line.insert(line.size() / 2, " ");
      out += line;
      if (at + w >= n && percent(rng) < 20) out += "*";
      out += eol;
    }
    if (bad && i % 13 == 5) {
      switch ((i / 13) % 4) {
        case 0: out += ">bad" + std::to_string(i) + eol + "MK1V" + eol; break;
        case 1: out += ">bad" + std::to_string(i) + " no residues" + eol + eol; break;
        case 2: out += "> " + eol + "MKV" + eol; break;
        default: out += ">bad" + std::to_string(i) + " x\x02y" + eol + "MKV" + eol; break;
      }
    }
  }
  return out;
}

ws::MakeDbReport make(const std::string& input, const std::string& output, unsigned threads, std::size_t unit_bytes,
                      bool skip_invalid, std::uint64_t chunk_residues = std::uint64_t{1} << 30) {
  ws::MakeDbOptions options;
  options.input = input;
  options.output = output;
  options.threads = threads;
  options.unit_bytes = unit_bytes;
  options.skip_invalid = skip_invalid;
  options.chunk_residues = chunk_residues;
  options.taxid_of = [](std::string_view id) { return static_cast<std::uint32_t>(id.size() * 1000 + id.back()); };
  return ws::make_database(options);
}

void check_same_files(const std::map<std::string, std::string>& expected, const std::string& db) {
  const auto files = database_files(db);
  REQUIRE(files.size() == expected.size());
  for (const auto& [name, bytes] : expected) {
    INFO(name);
    const auto found = files.find(name);
    REQUIRE(found != files.end());
    CHECK(found->second.size() == bytes.size());
    CHECK((found->second == bytes));
  }
}

// The message of the first error a reader of the whole input meets, or "" when there is none.
std::string reader_error(const std::string& path, bool skip_invalid) {
  try {
    ws::FastaReader reader(path, std::nullopt, skip_invalid);
    reader.keep_codes(false);
    ws::SequenceRecord record;
    while (reader.next(record)) {
    }
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("makedb: the same database, byte for byte, for 1, 2 and 7 threads", "[makedb]") {
  TempDir dir;
  for (const bool bad : {false, true}) {
    std::mt19937_64 rng(bad ? 71 : 70);
    const std::string text = many_records(rng, 3000, bad);
    const std::string path = dir.file(bad ? "bad.fa" : "good.fa");
    ws::test::write_file(path, text);
    write_gzip(path + ".gz", text);
    for (const std::uint64_t chunk : {std::uint64_t{1} << 30, std::uint64_t{70000}}) {
      INFO("bad records " << bad << ", chunk size " << chunk);
      // The reference: one thread, the default blocks and windows, the gzip input (read on one thread).
      const std::string reference = dir.file("reference");
      const ws::MakeDbReport expected_report = make(path + ".gz", reference, 1, 0, bad, chunk);
      CHECK(expected_report.skipped == (bad ? 231u : 0u));
      const auto expected = database_files(reference);
      std::filesystem::remove_all(reference);
      for (const std::string& input : {path, path + ".gz"}) {
        for (const unsigned threads : {1u, 2u, 7u}) {
          // Blocks and windows smaller than many records and than one line: boundaries everywhere.
          for (const std::size_t unit : {std::size_t{0}, std::size_t{333}}) {
            if (input != path && (threads == 1 || unit == 0)) continue;  // the gzip reference has those
            INFO(input << ", " << threads << " threads, unit " << unit);
            const std::string db = dir.file("db");
            const ws::MakeDbReport report = make(input, db, threads, unit, bad, chunk);
            CHECK(report.sequences == expected_report.sequences);
            CHECK(report.skipped == expected_report.skipped);
            CHECK(report.input_bytes == text.size());
            CHECK(report.chunks == expected_report.chunks);
            check_same_files(expected, db);
            std::filesystem::remove_all(db);
          }
        }
      }
    }
  }
}

TEST_CASE("makedb: an error names the same line, byte and record for any number of threads", "[makedb]") {
  TempDir dir;
  std::mt19937_64 rng(72);
  const std::string good = many_records(rng, 400, false);
  struct Case {
    const char* what;
    std::string text;
    bool skip_invalid;
  };
  const Case cases[] = {
      {"an invalid letter late in the input", good + ">late\nMKV\nMK1V\n" + good, false},
      {"two bad records: the first is reported", good + ">one\nMK-V\n" + good + ">two\nMK1V\n", false},
      {"a record without residues", good + ">empty\n\r\n" + good, false},
      {"a header without ID", good + "> \t\nMKV\n", false},
      {"a control byte in a header",
       good + ">x a\x7f"
              "b\nMKV\n",
       false},
      {"sequence data before the first header", "\n\nMKV\n" + good, false},
      {"a blank before a '>'", good + " >r\nMKV\n" + good, false},
      {"no records", "\n\r\n  \n", false},
      {"no valid records", ">a\nMK1\n>b\n\n>c\nM-K\n", true},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::string path = dir.file("in.fa");
    ws::test::write_file(path, c.text);
    const std::string expected = reader_error(path, c.skip_invalid);
    REQUIRE(!expected.empty());
    for (const unsigned threads : {1u, 2u, 7u}) {
      for (const std::size_t unit : {std::size_t{0}, std::size_t{512}, std::size_t{37}}) {
        INFO(threads << " threads, unit " << unit);
        std::string message;
        try {
          make(path, dir.file("db"), threads, unit, c.skip_invalid);
        } catch (const std::runtime_error& error) {
          message = error.what();
        }
        CHECK(message == expected);
        CHECK(!ws::test::path_exists(dir.file("db")));
      }
    }
  }
}

TEST_CASE("makedb --threads: the same database for any N; out of range is a usage error", "[makedb][cli]") {
  TempDir dir;
  std::mt19937_64 rng(73);
  const std::string path = dir.file("in.fa");
  ws::test::write_file(path, many_records(rng, 2000, true));
  auto result =
      ws::test::run_warpsearch("makedb --skip-invalid --threads 1 " + quoted(path) + " " + quoted(dir.file("db1")));
  REQUIRE(result.exit_code == 0);
  const auto expected = database_files(dir.file("db1"));
  for (const char* threads : {"3", "0"}) {
    INFO(threads);
    const std::string db = dir.file(std::string("db-") + threads);
    result = ws::test::run_warpsearch("makedb --skip-invalid --threads " + std::string(threads) + " " + quoted(path) +
                                      " " + quoted(db));
    REQUIRE(result.exit_code == 0);
    check_same_files(expected, db);
  }
  result = ws::test::run_warpsearch("makedb --threads 5000 " + quoted(path) + " " + quoted(dir.file("db-x")));
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("--threads") != std::string::npos);
}

TEST_CASE("makedb: a truncated gzip file decompressed ahead on a thread of its own fails as on one thread",
          "[makedb]") {
  TempDir dir;
  std::mt19937_64 rng(74);
  const std::string text = many_records(rng, 3000, false);
  const std::string whole = dir.file("whole.fa.gz"), cut = dir.file("cut.fa.gz");
  write_gzip(whole, text);
  const std::string compressed = ws::test::read_file(whole);
  ws::test::write_file(cut, compressed.substr(0, compressed.size() * 2 / 3));
  std::string expected;
  for (const unsigned threads : {1u, 2u, 5u}) {
    INFO(threads << " threads");
    std::string message;
    try {
      make(cut, dir.file("db"), threads, 0, false);
    } catch (const std::runtime_error& error) {
      message = error.what();
    }
    CHECK(message.find("truncated gzip stream") != std::string::npos);
    if (threads == 1) expected = message;
    CHECK(message == expected);
    CHECK(!ws::test::path_exists(dir.file("db")));
  }
}
