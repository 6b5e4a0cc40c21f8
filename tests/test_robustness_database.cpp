// Forged databases: files rewritten together with their checksums in the manifest (and the manifest's
// own checksum), so that only the consistency checks can tell. dbinfo --verify and search must refuse
// them naming the file, and never read outside a mapping.
#include <zlib.h>

#include <cstdio>
#include <random>
#include <string>

#include "tests/catch.hpp"
#include "tests/robustness_support.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using namespace ws::test::robustness;
using ws::test::read_file;
using ws::test::run_warpsearch;
using ws::test::TempDir;
using ws::test::write_file;

namespace {

// A manifest rewritten with its own checksum line made to match.
void write_manifest(const std::string& path, std::string text) {
  text.resize(text.rfind("manifest_crc32 "));
  write_file(path, text + "manifest_crc32 " + hex32(crc_of(text)) + "\n");
}

struct Forgery {
  TempDir dir;
  std::string db, queries, manifest_path;
  // 200 short subjects, and one of long_subject residues where that is not 0.
  explicit Forgery(bool nucleotide, std::size_t long_subject = 0) {
    std::mt19937_64 rng(61);
    std::string subjects;
    for (int i = 0; i < (long_subject > 0 ? 201 : 200); ++i) {
      std::string letters = random_protein(rng, i == 200 ? long_subject : 40 + rng() % 200);
      if (nucleotide)
        for (char& c : letters) c = "ACGT"[static_cast<unsigned char>(c) % 4];
      subjects += fasta_record("s" + std::to_string(i), letters);
      if (i == 0) queries = fasta_record("q", letters);
    }
    write_file(dir.file("subjects.fa"), subjects);
    write_file(dir.file("queries.fa"), queries);
    queries = dir.file("queries.fa");
    db = dir.file("db");
    REQUIRE(
        run_warpsearch("makedb --quiet " + shell_quoted(dir.file("subjects.fa")) + " " + shell_quoted(db)).exit_code ==
        0);
    manifest_path = db + "/manifest.txt";
    REQUIRE(ws::test::path_exists(manifest_path));
  }
  // Replaces a chunk file's bytes and its manifest entry (size and CRC-32 made to match).
  void forge(const std::string& name, const std::string& bytes) const {
    const std::string old_bytes = read_file(db + "/" + name);
    const std::string manifest = read_file(manifest_path);
    write_file(db + "/" + name, bytes);
    write_manifest(
        manifest_path,
        replace_once(manifest, "file " + name + " " + std::to_string(old_bytes.size()) + " " + hex32(crc_of(old_bytes)),
                     "file " + name + " " + std::to_string(bytes.size()) + " " + hex32(crc_of(bytes))));
  }
  void check_refused(std::initializer_list<std::string> parts) const {
    const std::string search = "search --quiet --device cpu --raw-scores -q " + shell_quoted(queries) + " -d " +
                               shell_quoted(db) + " -o " + shell_quoted(dir.file("hits.tsv"));
    for (const std::string& command : {"dbinfo --verify " + shell_quoted(db), search}) {
      const auto result = run_warpsearch(command);
      INFO(command << "\n" << result.err);
      // (search may stop earlier, a usage error: a protein query in a database relabelled nucleotide)
      CHECK((result.exit_code == 1 || (result.exit_code == 2 && contains(result.err, "queries.fa"))));
      if (command.rfind("dbinfo", 0) == 0 || !contains(result.err, "queries.fa"))
        for (const std::string& part : parts) CHECK(contains(result.err, part));
    }
    CHECK(!ws::test::path_exists(dir.file("hits.tsv")));
  }
};

}  // namespace

TEST_CASE("robustness: forged databases with matching checksums are refused", "[robustness][cli][corrupt]") {
  SECTION("a residue code outside the alphabet") {
    Forgery forgery(false);
    std::string residues = read_file(forgery.db + "/chunk-00000.residues");
    residues[5] = static_cast<char>(200);
    forgery.forge("chunk-00000.residues", residues);
    forgery.check_refused({"chunk-00000.residues", "byte 5", "not a residue"});
  }
  SECTION("a residue code outside the alphabet far into a long subject (the check runs in pieces)") {
    Forgery forgery(true, 9000000);
    std::string residues = read_file(forgery.db + "/chunk-00000.residues");
    REQUIRE(residues.size() > 9000000);
    const std::size_t at = residues.size() - 1000;
    residues[at] = static_cast<char>(200);
    forgery.forge("chunk-00000.residues", residues);
    forgery.check_refused({"chunk-00000.residues", "byte " + std::to_string(at), "not a residue"});
  }
  SECTION("a residue code of the padding inside a subject") {
    Forgery forgery(false);
    std::string residues = read_file(forgery.db + "/chunk-00000.residues");
    residues[1] = static_cast<char>(27);  // the protein padding code
    forgery.forge("chunk-00000.residues", residues);
    forgery.check_refused({"chunk-00000.residues", "not a residue"});
  }
  SECTION("a residue byte where the padding is") {
    Forgery forgery(false);
    std::string residues = read_file(forgery.db + "/chunk-00000.residues");
    residues[residues.size() - 1] = 0;
    forgery.forge("chunk-00000.residues", residues);
    forgery.check_refused({"chunk-00000.residues", "padding"});
  }
  SECTION("a protein database relabelled nucleotide") {
    Forgery forgery(false);
    write_manifest(forgery.manifest_path,
                   replace_once(read_file(forgery.manifest_path), "alphabet protein", "alphabet nucleotide"));
    forgery.check_refused({"chunk-00000.residues", "nucleotide alphabet"});
  }
  SECTION("a nucleotide database relabelled protein") {
    Forgery forgery(true);
    write_manifest(forgery.manifest_path,
                   replace_once(read_file(forgery.manifest_path), "alphabet nucleotide", "alphabet protein"));
    forgery.check_refused({"chunk-00000.residues", "protein alphabet"});
  }
  SECTION("a manifest whose length range disagrees with its chunks") {
    Forgery forgery(false);
    const std::string manifest = read_file(forgery.manifest_path);
    const auto at = manifest.find("\nmax_length ");
    REQUIRE(at != std::string::npos);
    const auto end = manifest.find('\n', at + 1);
    write_manifest(forgery.manifest_path, manifest.substr(0, at) + "\nmax_length 999999" + manifest.substr(end));
    forgery.check_refused({"max_length", "disagree"});
  }
  SECTION("a manifest whose histogram miscounts") {
    Forgery forgery(false);
    const std::string manifest = read_file(forgery.manifest_path);
    const auto at = manifest.find("\nlength_histogram ");
    REQUIRE(at != std::string::npos);
    const auto end = manifest.find('\n', at + 1);
    write_manifest(forgery.manifest_path,
                   manifest.substr(0, at) + "\nlength_histogram 0 0 0 0 0 0 0 0 5" + manifest.substr(end));
    forgery.check_refused({"histogram"});
  }
  SECTION("control bytes in the manifest's text fields are shown escaped by dbinfo") {
    Forgery forgery(false);
    const std::string manifest = read_file(forgery.manifest_path);
    const auto at = manifest.find("\nsource ");
    REQUIRE(at != std::string::npos);
    const auto end = manifest.find('\n', at + 1);
    write_manifest(forgery.manifest_path,
                   manifest.substr(0, at) + "\nsource evil\x1b]0;title\x07" + manifest.substr(end));
    const auto result = run_warpsearch("dbinfo " + shell_quoted(forgery.db));
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(contains(result.out, "source          evil\\x1B]0;title\\x07\n"));
    CHECK(result.out.find('\x1b') == std::string::npos);
  }
  SECTION("a chunk with an absurd subject count") {
    Forgery forgery(false);
    const std::string manifest = read_file(forgery.manifest_path);
    const auto at = manifest.find(" subjects ", manifest.find("\nchunk 0 "));
    REQUIRE(at != std::string::npos);
    const auto end = manifest.find(' ', at + 10);
    write_manifest(forgery.manifest_path,
                   manifest.substr(0, at) + " subjects 18446744073709551615" + manifest.substr(end));
    const auto result = run_warpsearch("dbinfo " + shell_quoted(forgery.db));
    INFO(result.err);
    CHECK(result.exit_code == 1);
    CHECK(contains(result.err, "chunk 0"));
  }
}
