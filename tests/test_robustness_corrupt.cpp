// Robustness: corrupt databases (flipped bytes in any file; truncated, missing and inconsistent files) are
// detected before search reports anything, the damaged file named.
// The robustness tests of the command-line tool are grouped by class of issue (tests/test_robustness_*.cpp);
// each failure must exit with status 1 (2 for a bad command line), never by a signal; its one-line
// message must name the file and the record or line and say what was expected; and it must leave no
// output file, database or temporary file behind. docs/robustness.md lists each case with its test.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/catch.hpp"
#include "tests/robustness_support.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
namespace fs = std::filesystem;
using namespace ws::test::robustness;
using ws::test::read_file;
using ws::test::run_warpsearch;
using ws::test::source_path;
using ws::test::TempDir;
using ws::test::write_file;

namespace {

// Rewrites a manifest with its checksum line made to match: a manifest that is well-formed but says
// something false about its files.
void write_manifest_with_checksum(const std::string& path, std::string text) {
  text.resize(text.rfind("manifest_crc32 "));
  write_file(path, text + "manifest_crc32 " + hex32(crc_of(text)) + "\n");
}

// A small database of random proteins in three chunks, and two queries that find hits in it (each
// search must read the headers of its hits, so that damage to them is found too).
struct CorruptionFixture {
  TempDir dir;
  std::string db, queries;
  CorruptionFixture() {
    std::mt19937_64 rng(41);
    std::string subjects, query_text;
    for (int i = 0; i < 300; ++i)
      subjects += fasta_record("s" + std::to_string(i) + " subject " + std::to_string(i),
                               random_protein(rng, 50 + rng() % 250));
    for (int i = 0; i < 2; ++i) query_text += fasta_record("q" + std::to_string(i), random_protein(rng, 200));
    write_file(dir.file("subjects.fa"), subjects);
    queries = dir.file("queries.fa");
    write_file(queries, query_text);
    db = dir.file("db");
    const auto made = run_warpsearch("makedb --quiet --chunk-size 20K " + shell_quoted(dir.file("subjects.fa")) + " " +
                                     shell_quoted(db));
    REQUIRE(made.exit_code == 0);
  }
  std::string search() const { return search_args(queries, db) + " --raw-scores --max-target-seqs 3"; }
};

}  // namespace

TEST_CASE("robustness: a flipped byte in any file of a database is named before anything is reported",
          "[robustness][cli][corrupt]") {
  CorruptionFixture f;
  const std::string original = f.dir.file("original");
  fs::copy(f.db, original);
  const auto clean = run_warpsearch(f.search());
  REQUIRE(clean.exit_code == 0);
  REQUIRE(!clean.out.empty());
  const std::vector<std::string> files = entries(original);
  REQUIRE(files.size() >= 15);  // the manifest, two header files and at least three chunks of four files
  for (const std::string& name : files) {
    for (const double where : {0.0, 0.5, 1.0}) {
      DYNAMIC_SECTION(name << " at " << where) {
        fs::remove_all(f.db);
        fs::copy(original, f.db);
        const std::string path = f.db + "/" + name;
        std::string bytes = read_file(path);
        REQUIRE(!bytes.empty());
        const auto at = static_cast<std::size_t>(where * static_cast<double>(bytes.size() - 1));
        bytes[at] = static_cast<char>(bytes[at] ^ 0x10);
        write_file(path, bytes);
        // On stdout: nothing may be printed before the damage is found.
        const auto to_stdout = run_warpsearch(f.search());
        check_clean_failure(to_stdout, {f.db, name});
        if (name != "manifest.txt") CHECK(contains(to_stdout.err, "fails its checksum"));
        const auto verify = run_warpsearch("dbinfo --verify " + shell_quoted(f.db));
        CHECK(verify.exit_code == 1);
        CHECK(contains(verify.err, name));
        if (where == 0.5) {
          check_clean_failure(run_warpsearch(f.search() + " -o " + shell_quoted(f.dir.file("hits.tsv"))), {name});
          CHECK(!ws::test::path_exists(f.dir.file("hits.tsv")));
        }
      }
    }
  }
  for (const auto& name : entries(f.dir.path())) CHECK(!contains(name, ".tmp-"));
}

TEST_CASE("robustness: truncated, missing and inconsistent database files", "[robustness][cli][corrupt]") {
  CorruptionFixture f;
  const std::string& db = f.db;
  const std::string search = f.search();
  const std::string manifest_path = db + "/manifest.txt";
  const std::string manifest = read_file(manifest_path);

  SECTION("a truncated chunk") {
    const std::string path = db + "/chunk-00001.residues";
    const auto size = fs::file_size(path);
    fs::resize_file(path, size / 2);
    check_clean_failure(run_warpsearch(search), {db, "chunk-00001.residues has " + std::to_string(size / 2) +
                                                         " bytes; the manifest says " + std::to_string(size)});
    check_clean_failure(run_warpsearch("dbinfo " + shell_quoted(db)), {"chunk-00001.residues"});
  }
  SECTION("a missing file") {
    fs::remove(db + "/chunk-00000.indices");
    check_clean_failure(run_warpsearch(search), {db, "is incomplete: file chunk-00000.indices is missing"});
  }
  SECTION("a missing manifest") {
    fs::remove(manifest_path);
    check_clean_failure(run_warpsearch(search), {db, "it has no manifest.txt (not a warpsearch database?)"});
  }
  SECTION("another format version") {
    write_manifest_with_checksum(manifest_path, replace_once(manifest, "\nformat_version 1\n", "\nformat_version 2\n"));
    check_clean_failure(run_warpsearch(search), {manifest_path, "format version 2", "reads format version 1"});
    // Checked before the checksum: a newer format is never reported as damage.
    write_file(manifest_path, replace_once(manifest, "\nformat_version 1\n", "\nformat_version 3\n"));
    check_clean_failure(run_warpsearch("dbinfo " + shell_quoted(db)), {"format version 3"});
  }
  SECTION("a manifest whose counts disagree with its chunks") {
    const auto subjects_at = manifest.find("\nsubjects ");
    const auto line_end = manifest.find('\n', subjects_at + 1);
    write_manifest_with_checksum(manifest_path,
                                 manifest.substr(0, subjects_at) + "\nsubjects 299" + manifest.substr(line_end));
    check_clean_failure(run_warpsearch(search), {manifest_path, "the chunks hold 300 subjects", "not the 299"});
  }
  SECTION("a manifest that lists a wrong size") {
    const std::string path = db + "/headers.txt";
    const std::string size = std::to_string(fs::file_size(path));
    write_manifest_with_checksum(manifest_path,
                                 replace_once(manifest, "file headers.txt " + size + " ", "file headers.txt 12 "));
    check_clean_failure(run_warpsearch(search), {db, "headers.txt has " + size + " bytes; the manifest says 12"});
  }
  SECTION("a chunk rewritten with a matching checksum but contents that disagree") {
    // Found by the database fuzzer (tests/fuzz/fuzz_database.cpp): lengths out of order, with the
    // manifest's CRC-32 of the file updated, used to reach the kernels unchecked.
    const std::string path = db + "/chunk-00000.lengths";
    std::string bytes = read_file(path);
    const std::string old_entry =
        "file chunk-00000.lengths " + std::to_string(bytes.size()) + " " + hex32(crc_of(bytes));
    REQUIRE(bytes.size() >= 8);
    std::swap_ranges(bytes.begin(), bytes.begin() + 4, bytes.end() - 4);
    REQUIRE(bytes != read_file(path));
    write_file(path, bytes);
    const std::string new_entry =
        "file chunk-00000.lengths " + std::to_string(bytes.size()) + " " + hex32(crc_of(bytes));
    write_manifest_with_checksum(manifest_path, replace_once(manifest, old_entry, new_entry));
    check_clean_failure(run_warpsearch(search), {db, "chunk-00000.lengths", "rebuild it with makedb"});
  }
  SECTION("a chunk whose offsets point past its residues, checksums updated") {
    const std::string path = db + "/chunk-00001.offsets";
    std::string bytes = read_file(path);
    const std::string old_entry =
        "file chunk-00001.offsets " + std::to_string(bytes.size()) + " " + hex32(crc_of(bytes));
    bytes[bytes.size() - 2] = '\x7F';  // the last subject's first word, far beyond the file
    write_file(path, bytes);
    const std::string new_entry =
        "file chunk-00001.offsets " + std::to_string(bytes.size()) + " " + hex32(crc_of(bytes));
    write_manifest_with_checksum(manifest_path, replace_once(manifest, old_entry, new_entry));
    check_clean_failure(run_warpsearch(search), {db, "chunk-00001.offsets", "offset"});
  }
}
