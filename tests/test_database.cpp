// makedb -> Database: round trips, ordering, padding and chunking invariants, checksums, format
// version, atomicity; and the file utilities (AtomicFile, FileWriter, MappedFile, interruption).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/mapped_file.hpp"
#include "db/database.hpp"
#include "db/makedb.hpp"
#include "db/manifest.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
namespace fs = std::filesystem;
using ws::test::TempDir;

namespace {

struct Expected {
  std::string id, description, codes;
};

using warpsearch::test::contains;
using warpsearch::test::error_of;

std::vector<std::string> directory_entries(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// Random protein records, written as FASTA wrapped at varying widths.
std::vector<Expected> random_records(std::mt19937_64& rng, std::size_t count, std::string& fasta) {
  std::uniform_int_distribution<std::size_t> short_length(1, 700), width(1, 120);
  std::vector<Expected> records;
  const ws::Alphabet& protein = ws::Alphabet::protein();
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t length = short_length(rng);
    if (i % 97 == 5) length = 100000 + i;  // a few long subjects
    if (i % 13 == 0) length = 37;          // many ties
    Expected record{"seq" + std::to_string(i), i % 3 == 0 ? "" : "random protein " + std::to_string(i * 7),
                    ws::test::random_codes(rng, length, protein.size())};
    // A final '*' ends a FASTA protein and is dropped: keep the stop residue inside only.
    const char stop = static_cast<char>(protein.encode('*'));
    if (record.codes.back() == stop) record.codes.back() = 0;
    const std::string letters = protein.decode_string(record.codes);
    fasta += ">" + record.id + (record.description.empty() ? "" : " " + record.description) + "\n";
    const std::size_t w = width(rng);
    for (std::size_t at = 0; at < letters.size(); at += w) fasta += letters.substr(at, w) + "\n";
    records.push_back(std::move(record));
  }
  return records;
}

ws::MakeDbReport build(const std::string& fasta_path, const std::string& db_path,
                       std::uint64_t chunk_residues = std::uint64_t{1} << 30,
                       std::optional<ws::SequenceType> type = std::nullopt) {
  ws::MakeDbOptions options;
  options.input = fasta_path;
  options.output = db_path;
  options.chunk_residues = chunk_residues;
  options.type = type;
  return ws::make_database(options);
}

// Every subject, ID and description back; the layout invariants of db/FORMAT.md.
void check_database(const ws::Database& db, const std::vector<Expected>& expected, std::uint64_t chunk_residues) {
  const ws::DatabaseInfo& info = db.info();
  REQUIRE(info.subjects == expected.size());
  std::uint64_t residues = 0;
  std::uint32_t longest = 0;
  for (const auto& record : expected) {
    residues += record.codes.size();
    longest = std::max(longest, static_cast<std::uint32_t>(record.codes.size()));
  }
  CHECK(info.residues == residues);
  CHECK(info.max_length == longest);
  CHECK(info.format_version == ws::kDatabaseFormatVersion);

  const std::uint8_t pad = db.alphabet().pad_code();
  std::vector<int> seen(expected.size(), 0);
  std::uint64_t previous_length = 0, previous_index = 0, subjects_before = 0;
  bool first = true;
  for (std::size_t c = 0; c < db.num_chunks(); ++c) {
    const ws::Chunk chunk = db.chunk(c);
    const ws::ChunkInfo& ci = chunk.info();
    CHECK(ci.first_subject == subjects_before);
    subjects_before += ci.subjects;
    REQUIRE(ci.subjects > 0);
    std::uint64_t chunk_residue_count = 0, expected_offset = 0;
    const ws::SubjectBatch batch = chunk.batch();
    CHECK(batch.count == chunk.size());
    CHECK(batch.num_words == ci.words);
    CHECK(ci.words % 16 == 0);
    const auto* bytes = reinterpret_cast<const unsigned char*>(chunk.words());
    for (std::size_t s = 0; s < chunk.size(); ++s) {
      const std::uint32_t length = chunk.lengths()[s];
      const std::uint64_t index = chunk.original_indices()[s];
      REQUIRE(index < expected.size());
      ++seen[index];
      // Sorted by length, ties in FASTA order.
      if (!first) CHECK((length > previous_length || (length == previous_length && index > previous_index)));
      first = false;
      previous_length = length;
      previous_index = index;
      CHECK(chunk.word_offsets()[s] == expected_offset);
      expected_offset += (length + 3) / 4;
      chunk_residue_count += length;
      REQUIRE(length == expected[index].codes.size());
      CHECK(chunk.subject_codes(s) == expected[index].codes);
      bool batch_matches = true;
      for (std::uint32_t i = 0; i < length; ++i)
        batch_matches &= batch.residue(s, i) == static_cast<std::uint8_t>(expected[index].codes[i]);
      CHECK(batch_matches);
      for (std::uint64_t i = length; i % 4 != 0; ++i) CHECK(bytes[chunk.word_offsets()[s] * 4 + i] == pad);
    }
    for (std::uint64_t i = expected_offset * 4; i < ci.words * 4; ++i) REQUIRE(bytes[i] == pad);
    CHECK(ci.words == (expected_offset + 15) / 16 * 16);
    CHECK(ci.residues == chunk_residue_count);
    // A chunk exceeds the chunk size only when it holds one subject longer than it.
    CHECK((chunk_residue_count <= chunk_residues || chunk.size() == 1));
    CHECK(ci.min_length == chunk.lengths()[0]);
    CHECK(ci.max_length == chunk.lengths()[chunk.size() - 1]);
  }
  CHECK(subjects_before == expected.size());
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(db.id(i) == expected[i].id);
    CHECK(db.description(i) == expected[i].description);
  }
}

void flip_byte(const std::string& path, std::size_t offset) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  file.get(c);
  file.seekp(static_cast<std::streamoff>(offset));
  file.put(static_cast<char>(c ^ 0x01));
}

}  // namespace

TEST_CASE("makedb round trip: random records, many chunks") {
  TempDir dir;
  std::mt19937_64 rng(42);
  std::string fasta;
  const auto expected = random_records(rng, 600, fasta);
  ws::test::write_file(dir.file("in.fa"), fasta);
  for (std::uint64_t chunk_residues : {std::uint64_t{1} << 30, std::uint64_t{20000}, std::uint64_t{1}}) {
    const std::string db_path = dir.file("db" + std::to_string(chunk_residues));
    const auto report = build(dir.file("in.fa"), db_path, chunk_residues);
    CHECK(report.sequences == expected.size());
    CHECK(report.type == ws::SequenceType::protein);
    const ws::Database db = ws::Database::open(db_path);
    check_database(db, expected, chunk_residues);
    if (chunk_residues == 1) CHECK(db.num_chunks() == expected.size());
    if (chunk_residues == (std::uint64_t{1} << 30)) CHECK(db.num_chunks() == 1);
    db.verify();
  }
}

TEST_CASE("makedb: chunk boundaries, and a subject longer than the chunk size") {
  TempDir dir;
  // Lengths 3, 5, 2, 10, 4: sorted 2, 3, 4, 5, 10. With 9 residues per chunk: {2,3,4} {5} {10}.
  ws::test::write_file(dir.file("in.fa"), ">a\nMKV\n>b\nMKVLE\n>c\nMK\n>d\nMKVLEMKVLE\n>e\nMKVL\n");
  build(dir.file("in.fa"), dir.file("db"), 9, ws::SequenceType::protein);
  const ws::Database db = ws::Database::open(dir.file("db"));
  REQUIRE(db.num_chunks() == 3);
  CHECK(db.info().chunks[0].subjects == 3);
  CHECK(db.info().chunks[0].residues == 9);
  CHECK(db.info().chunks[1].subjects == 1);
  CHECK(db.info().chunks[2].residues == 10);
  const ws::Chunk first = db.chunk(0);
  CHECK(first.original_indices()[0] == 2);
  CHECK(first.original_indices()[1] == 0);
  CHECK(first.original_indices()[2] == 4);
  CHECK(db.chunk(2).original_indices()[0] == 3);
  CHECK(db.id(3) == "d");
  CHECK(contains(error_of([&] { db.chunk(3); }), "out of range"));
  CHECK(contains(error_of([&] { db.id(5); }), "out of range"));
}

TEST_CASE("makedb round trip: the bundled UniProt sample") {
  TempDir dir;
  // An independent reading of the (well-formed, unwrapped-or-wrapped) sample.
  std::vector<Expected> expected;
  std::ifstream in(ws::test::source_path("data/uniprot_sample.fa"));
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '>') {
      const std::size_t space = line.find(' ');
      expected.push_back({line.substr(1, space - 1), space == std::string::npos ? "" : line.substr(space + 1), ""});
    } else {
      expected.back().codes += ws::Alphabet::protein().encode_string(line);
    }
  }
  REQUIRE(expected.size() > 1000);
  build(ws::test::source_path("data/uniprot_sample.fa"), dir.file("db"), 300000);
  const ws::Database db = ws::Database::open(dir.file("db"));
  CHECK(db.info().type == ws::SequenceType::protein);
  CHECK(db.num_chunks() > 1);
  check_database(db, expected, 300000);
}

TEST_CASE("makedb: nucleotide databases") {
  TempDir dir;
  ws::test::write_file(dir.file("dna.fa"), ">x chr\nACGTN\nacgtu\n>y\nRYK\n");
  build(dir.file("dna.fa"), dir.file("db"), std::uint64_t{1} << 30, ws::SequenceType::nucleotide);
  const ws::Database db = ws::Database::open(dir.file("db"));
  CHECK(db.info().type == ws::SequenceType::nucleotide);
  const ws::Chunk chunk = db.chunk(0);
  CHECK(db.alphabet().decode_string(chunk.subject_codes(0)) == "NNN");
  CHECK(db.alphabet().decode_string(chunk.subject_codes(1)) == "ACGTNACGTT");
}

TEST_CASE("Database: a flipped byte fails the checksum, naming the file") {
  TempDir dir;
  std::mt19937_64 rng(5);
  std::string fasta;
  random_records(rng, 50, fasta);
  ws::test::write_file(dir.file("in.fa"), fasta);
  build(dir.file("in.fa"), dir.file("db"));

  SECTION("a residue file") {
    flip_byte(dir.file("db/chunk-00000.residues"), 1000);
    const ws::Database db = ws::Database::open(dir.file("db"));
    const std::string chunk_error = error_of([&] { db.chunk(0); });
    CHECK(contains(chunk_error, "chunk-00000.residues"));
    CHECK(contains(chunk_error, "checksum"));
    const std::string verify_error = error_of([&] { db.verify(); });
    CHECK(contains(verify_error, "chunk-00000.residues"));
    CHECK(!contains(verify_error, "headers.txt"));
  }
  SECTION("the headers") {
    flip_byte(dir.file("db/headers.txt"), 3);
    const ws::Database db = ws::Database::open(dir.file("db"));
    CHECK(contains(error_of([&] { db.id(0); }), "headers.txt"));
    CHECK(contains(error_of([&] { db.verify(); }), "headers.txt"));
  }
  SECTION("the manifest") {
    flip_byte(dir.file("db/manifest.txt"), 60);
    const std::string message = error_of([&] { ws::Database::open(dir.file("db")); });
    CHECK(contains(message, "manifest.txt"));
  }
  SECTION("a missing file") {
    fs::remove(dir.file("db/chunk-00000.lengths"));
    CHECK(contains(error_of([&] { ws::Database::open(dir.file("db")); }), "chunk-00000.lengths"));
  }
}

// Large buffers are checksummed in pieces on every core (db/manifest.cpp): the same CRC-32 as one pass,
// at every size around the piece boundaries, and a flipped byte anywhere changes it.
TEST_CASE("bytes_crc32 of large buffers equals zlib's one-pass CRC-32") {
  std::mt19937_64 rng(29);
  std::vector<unsigned char> bytes((std::size_t{8} << 20) * 5 + 12345);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  const auto one_pass = [&](std::size_t size) {
    return static_cast<std::uint32_t>(::crc32_z(0, bytes.data(), static_cast<z_size_t>(size)));
  };
  for (const std::size_t size : {std::size_t{1}, std::size_t{8} << 20, (std::size_t{8} << 20) * 4 - 1,
                                 (std::size_t{8} << 20) * 4, (std::size_t{8} << 20) * 4 + 1, bytes.size()})
    CHECK(ws::detail::bytes_crc32(bytes.data(), size) == one_pass(size));
  const std::uint32_t before = ws::detail::bytes_crc32(bytes.data(), bytes.size());
  bytes[(std::size_t{8} << 20) * 3 + 7] ^= 0x10u;
  CHECK(ws::detail::bytes_crc32(bytes.data(), bytes.size()) != before);
  CHECK(ws::detail::bytes_crc32(bytes.data(), bytes.size()) == one_pass(bytes.size()));
}

TEST_CASE("Database: another format version is refused, naming both versions") {
  TempDir dir;
  ws::test::write_file(dir.file("in.fa"), ">a\nMKV\n");
  build(dir.file("in.fa"), dir.file("db"));
  std::string manifest = ws::test::read_file(dir.file("db/manifest.txt"));
  const std::string line = "\nformat_version " + std::to_string(ws::kDatabaseFormatVersion) + "\n";
  REQUIRE(contains(manifest, line));
  manifest.replace(manifest.find(line), line.size(), "\nformat_version 7\n");
  ws::test::write_file(dir.file("db/manifest.txt"), manifest);
  const std::string message = error_of([&] { ws::Database::open(dir.file("db")); });
  CHECK(contains(message, "format version 7"));
  CHECK(contains(message, "reads format version " + std::to_string(ws::kDatabaseFormatVersion)));
  CHECK(contains(error_of([&] { ws::Database::open(dir.file("in.fa")); }), "not a directory"));
  CHECK(contains(error_of([&] { ws::Database::open(dir.path()); }), "manifest"));
}

TEST_CASE("makedb is atomic: a failure leaves neither database nor temporary directory") {
  TempDir dir;
  std::mt19937_64 rng(9);
  std::string fasta;
  random_records(rng, 300, fasta);
  fasta.insert(fasta.size() / 2, "\n>broken\nMK7V\n");
  ws::test::write_file(dir.file("in.fa"), fasta);
  const std::string message = error_of([&] { build(dir.file("in.fa"), dir.file("db")); });
  CHECK(contains(message, "'broken'"));
  CHECK(directory_entries(dir.path()) == std::vector<std::string>{"in.fa"});

  SECTION("an interruption") {
    ws::install_interrupt_handlers();
    ::raise(SIGINT);
    const std::string interrupted = error_of([&] { build(dir.file("in.fa"), dir.file("db2")); });
    ws::clear_interrupt();
    ::signal(SIGINT, SIG_DFL);
    CHECK(contains(interrupted, "interrupted by SIGINT"));
    CHECK(directory_entries(dir.path()) == std::vector<std::string>{"in.fa"});
  }
  SECTION("an existing output is refused and left alone") {
    fs::create_directory(dir.file("db"));
    ws::test::write_file(dir.file("db/keep"), "x");
    ws::test::write_file(dir.file("good.fa"), ">a\nMK\n");
    CHECK(contains(error_of([&] { build(dir.file("good.fa"), dir.file("db")); }), "already exists"));
    CHECK(ws::test::read_file(dir.file("db/keep")) == "x");
  }
  SECTION("a missing parent directory") {
    ws::test::write_file(dir.file("good.fa"), ">a\nMK\n");
    const std::string missing = error_of([&] { build(dir.file("good.fa"), dir.file("no/db")); });
    CHECK(contains(missing, dir.file("no")));
  }
}

// makedb reads an uncompressed input again in its second pass; MakeDbOptions::between_passes (a
// test hook) changes the file after the first. Each change must fail the run, naming the file and
// saying it changed, and leave neither database nor temporary directory.
TEST_CASE("makedb: an input changed between the passes is an error", "[makedb]") {
  TempDir dir;
  std::mt19937_64 rng(5);
  std::string fasta;
  const std::vector<Expected> expected = random_records(rng, 120, fasta);
  const std::string input = dir.file("in.fa");

  struct Change {
    const char* what;
    void (*apply)(const std::string& path);
    const char* found;  // what the message says was found
  };
  const Change changes[] = {
      {"the modification time only",
       [](const std::string& path) {
         const timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 0}};
         REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
       },
       "changed (size or modification time) while it was being read"},
      {"bytes appended",
       [](const std::string& path) { std::ofstream(path, std::ios::binary | std::ios::app) << ">late\nMKV\n"; },
       "changed (size or modification time) while it was being read"},
      {"truncated to half",
       [](const std::string& path) {
         REQUIRE(::truncate(path.c_str(), static_cast<off_t>(fs::file_size(path) / 2)) == 0);
       },
       "end of the file"},
      // Same size and modification time: only the bytes read again can tell.
      {"residues overwritten, size and time restored",
       [](const std::string& path) {
         struct stat before {};
         REQUIRE(::stat(path.c_str(), &before) == 0);
         std::string text = ws::test::read_file(path);
         std::replace(text.begin(), text.end(), 'M', '1');  // no 'M' in the headers
         ws::test::write_file(path, text);
         const timespec times[2] = {before.st_atim, before.st_mtim};
         REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
       },
       "a byte that is not a residue"},
  };
  SECTION("each change fails the run") {
    for (const std::uint64_t chunk_residues : {std::uint64_t{1} << 30, std::uint64_t{5000}}) {
      for (const Change& change : changes) {
        INFO(change.what << ", chunk size " << chunk_residues);
        ws::test::write_file(input, fasta);
        int calls = 0;
        ws::MakeDbOptions options;
        options.input = input;
        options.output = dir.file("db");
        options.chunk_residues = chunk_residues;
        options.between_passes = [&] {
          ++calls;
          change.apply(input);
        };
        const std::string message = error_of([&] { ws::make_database(options); });
        INFO(message);
        CHECK(calls == 1);
        CHECK(contains(message, input));
        CHECK(contains(message, change.found));
        CHECK(contains(message, "changed"));
        CHECK(directory_entries(dir.path()) == std::vector<std::string>{"in.fa"});
      }
    }
  }

  SECTION("an unchanged input: the hook runs once, and the database is complete") {
    ws::test::write_file(input, fasta);
    int calls = 0;
    ws::MakeDbOptions options;
    options.input = input;
    options.output = dir.file("db");
    options.chunk_residues = 5000;
    options.between_passes = [&] { ++calls; };
    ws::make_database(options);
    CHECK(calls == 1);
    check_database(ws::Database::open(dir.file("db")), expected, 5000);
  }
}

TEST_CASE("Interrupted carries the signal") {
  ws::clear_interrupt();
  CHECK(ws::pending_interrupt() == 0);
  ws::throw_if_interrupted();
  ws::install_interrupt_handlers();
  ::raise(SIGTERM);
  CHECK(ws::pending_interrupt() == SIGTERM);
  try {
    ws::throw_if_interrupted();
    FAIL("expected Interrupted");
  } catch (const ws::Interrupted& e) {
    CHECK(e.signal_number() == SIGTERM);
  }
  ws::clear_interrupt();
  ::signal(SIGTERM, SIG_DFL);
}

TEST_CASE("AtomicFile: appears on commit only") {
  TempDir dir;
  const std::string path = dir.file("out.txt");
  {
    ws::AtomicFile file(path);
    file.write("hello ");
    file.stream() << 42 << '\n';
    CHECK(!ws::test::path_exists(path));
    file.commit();
  }
  CHECK(ws::test::read_file(path) == "hello 42\n");
  {
    ws::AtomicFile file(path);
    file.write("replacement that is never committed");
  }
  CHECK(ws::test::read_file(path) == "hello 42\n");
  CHECK(directory_entries(dir.path()) == std::vector<std::string>{"out.txt"});
  const std::string missing = error_of([&] { ws::AtomicFile file(dir.file("nowhere/out.txt")); });
  CHECK(contains(missing, dir.file("nowhere/out.txt")));
  CHECK(contains(missing, "does not exist"));
}

TEST_CASE("FileWriter: a full disk is an error naming the path") {
  if (!ws::test::path_exists("/dev/full")) return;
  const std::string message = error_of([] {
    ws::FileWriter writer("/dev/full");
    const std::string block(4 << 20, 'x');
    writer.write(block);
    writer.close(false);
  });
  CHECK(contains(message, "/dev/full"));
  CHECK(contains(message, "No space left"));
}

TEST_CASE("MappedFile: maps a file, and names a missing one") {
  TempDir dir;
  ws::test::write_file(dir.file("a"), "abc");
  ws::MappedFile mapped(dir.file("a"));
  CHECK(mapped.view() == "abc");
  ws::MappedFile moved = std::move(mapped);
  CHECK(moved.size() == 3);
  CHECK(mapped.data() == nullptr);
  ws::test::write_file(dir.file("empty"), "");
  CHECK(ws::MappedFile(dir.file("empty")).size() == 0);
  CHECK(contains(error_of([&] { ws::MappedFile m(dir.file("missing")); }), dir.file("missing")));
}
