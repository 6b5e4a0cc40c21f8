// Robustness: bad input files through makedb and search -q: not FASTA, empty records, NUL, control and
// binary bytes, a 200 MB line, invalid letters, truncated and corrupt gzip, empty inputs, 100,000-residue
// sequences, duplicate IDs.
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

#include "core/alphabet.hpp"
#include "kernels/reference/reference.hpp"
#include "profile/scoring.hpp"
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

TEST_CASE("robustness: input that is not FASTA names the file, the line and what was expected", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  struct Case {
    const char* name;
    std::string contents;
    std::string where, expected;
  };
  std::string png = "\x89PNG\r\n\x1a\n";
  png += std::string("\0\0\0\rIHDR\0\0\0\x10", 12);
  const std::vector<Case> cases = {
      {"prose.txt", "Dear reader,\nthis is not a FASTA file.\n", "line 1, byte 0",
       "sequence data before the first header; expected a header line starting with '>'"},
      {"sequence-first.fa", "MKVLAAG\n>a\nMKV\n", "line 1, byte 0", "expected a header line starting with '>'"},
      {"blank-then-sequence.fa", "\n\n  \nMKV\n>a\nMKV\n", "line 4", "sequence data before the first header"},
      {"image.png", png, "line 1, byte 0", "sequence data before the first header"},
      {"fastq-broken.fq", "@r1\nACGT\nIIII\n", "line 3", "expected the '+' line of a FASTQ record"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::string path = dir.file(c.name);
      write_file(path, c.contents);
      check_clean_failure(run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("out.wsdb"))),
                          {path, c.where, c.expected});
      check_clean_failure(run_warpsearch(search_args(path, db) + " -o " + shell_quoted(dir.file("hits.tsv"))),
                          {path, c.where, c.expected});
    }
  }
  CHECK(!ws::test::path_exists(dir.file("out.wsdb")));
  CHECK(!ws::test::path_exists(dir.file("hits.tsv")));
}

TEST_CASE("robustness: empty records, and --skip-invalid", "[robustness][cli]") {
  TempDir dir;
  const std::string path = dir.file("empty-record.fa");
  write_file(path, ">a first\nMKV\n>b empty\n\n>c\nMKVLA\n");
  check_clean_failure(
      run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("db"))),
      {path, "line 3", "record 2 ('b')", "no residues; expected sequence lines after the header", "--skip-invalid"});
  CHECK(!ws::test::path_exists(dir.file("db")));

  const auto skipped =
      run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("db")) + " --skip-invalid");
  CHECK(skipped.exit_code == 0);
  CHECK(contains(skipped.err, "2 protein sequences, 8 residues, 1 skipped"));

  // A header without ID ('>' alone) is a record without ID.
  write_file(path, ">\nMKV\n");
  check_clean_failure(run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("db2"))),
                      {path, "line 1", "record 1 (no ID)", "expected '>ID description'"});
}

TEST_CASE("robustness: NUL bytes, control bytes and binary garbage", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  SECTION("a NUL byte inside a sequence line") {
    const std::string path = dir.file("nul.fa");
    const std::string text = std::string(">a\nMKV\n>b\nMK") + '\0' + "VL\n";
    write_file(path, text);
    const std::string where = "line 4, byte " + std::to_string(text.find('\0'));
    check_clean_failure(run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("out.wsdb"))),
                        {path, where, "record 2 ('b')", "invalid character byte 0x00", "expected residue letters"});
    check_clean_failure(run_warpsearch(search_args(path, db)), {path, where, "byte 0x00"});
  }
  SECTION("a control byte in a header") {
    const std::string path = dir.file("control.fa");
    write_file(path,
               ">a\x07"
               "bell\nMKV\n");
    check_clean_failure(run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("out.wsdb"))),
                        {path, "line 1, byte 2", "control character byte 0x07", "expected printable text"});
  }
  SECTION("random binary data after a header, for several seeds") {
    for (unsigned seed = 1; seed <= 5; ++seed) {
      std::mt19937_64 rng(seed);
      std::string garbage = ">garbage\n";
      for (int i = 0; i < 100000; ++i) garbage += static_cast<char>(rng() & 0xFF);
      const std::string path = dir.file("garbage.fa");
      write_file(path, garbage);
      const auto result = run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("out.wsdb")));
      check_clean_failure(result, {path, "line ", "byte "});
      check_clean_failure(run_warpsearch(search_args(path, db)), {path, "line ", "byte "});
    }
  }
  SECTION("binary data without a newline: a header line longer than the limit") {
    std::mt19937_64 rng(11);
    std::string garbage = ">";
    for (int i = 0; i < (17 << 20); ++i) garbage += static_cast<char>('A' + rng() % 26);
    const std::string path = dir.file("long-header.fa");
    write_file(path, garbage);
    check_clean_failure(run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("out.wsdb"))),
                        {path, "header line longer than 16 MiB", "is this a FASTA file?"});
  }
  CHECK(!ws::test::path_exists(dir.file("out.wsdb")));
  CHECK(entries(dir.path()).size() <= 4);  // sample.wsdb and the inputs: no temporary left behind
  for (const auto& name : entries(dir.path())) CHECK(!contains(name, ".tmp-"));
}

TEST_CASE("robustness: a 200 MB line is read with bounded memory", "[robustness][cli][long]") {
  TempDir dir;
  constexpr std::size_t kLine = 200u << 20;
  const std::string path = dir.file("long-line.fa");
  {
    // One record whose sequence is a single line of 200 MiB (plus a short second record).
    std::ofstream out(path, std::ios::binary);
    out << ">long one line\n";
    std::mt19937_64 rng(3);
    const std::string block = random_protein(rng, 1 << 20);
    for (std::size_t written = 0; written < kLine; written += block.size()) out << block;
    out << "\n>short\nMKV\n";
    REQUIRE(out.good());
  }
  Process makedb({"makedb", "--quiet", path, dir.file("long.wsdb")}, dir.file("makedb"));
  makedb.wait();
  INFO(makedb.err());
  REQUIRE(makedb.exit_status() == 0);
  // The record's residue codes must be held once (200 MiB), the rest of the memory is fixed buffers:
  // a reader that held the line as text and then as codes, or grew a string by copying, needs twice
  // that or more.
  const double mib = static_cast<double>(makedb.max_rss_kib()) / 1024.0;
  WARN("makedb of a 200 MiB line: max RSS " << mib << " MiB, " << makedb.seconds() << " s");
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps freed memory in quarantine and adds shadow memory: no bound to check.
#else
  CHECK(mib < 200.0 * 1.6 + 64.0);
#endif
  const auto info = run_warpsearch("dbinfo " + shell_quoted(dir.file("long.wsdb")));
  CHECK(contains(info.out, "longest         209,715,200\n"));
  fs::remove(path);
}

TEST_CASE("robustness: invalid letters, with and without --skip-invalid", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  const std::string path = dir.file("letters.fa");
  const std::string text = fasta_record("q1 good", "MKVLAAGIVGLLLAAW") + ">q2 digits\nMKVL\nAA7GIV\n" +
                           fasta_record("q3 gap", "MKV-LAA") + fasta_record("q4 good", "WWCCPPHHMKV");
  write_file(path, text);
  const std::string where = "line 5, byte " + std::to_string(text.find('7'));
  SECTION("makedb") {
    check_clean_failure(run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("out.wsdb"))),
                        {path, where, "record 2 ('q2')", "invalid character '7' (0x37) in a protein sequence",
                         "expected residue letters"});
    CHECK(!ws::test::path_exists(dir.file("out.wsdb")));
    const auto skipped =
        run_warpsearch("makedb " + shell_quoted(path) + " " + shell_quoted(dir.file("out.wsdb")) + " --skip-invalid");
    CHECK(skipped.exit_code == 0);
    CHECK(contains(skipped.err, "2 protein sequences, 27 residues, 2 skipped"));
    CHECK(contains(run_warpsearch("dbinfo " + shell_quoted(dir.file("out.wsdb"))).out,
                   "skipped         2 invalid records"));
  }
  SECTION("search queries") {
    check_clean_failure(run_warpsearch(search_args(path, db) + " -o " + shell_quoted(dir.file("hits.tsv"))),
                        {path, where, "record 2 ('q2')", "invalid character '7'"});
    CHECK(!ws::test::path_exists(dir.file("hits.tsv")));
    const auto skipped = run_warpsearch("search --device cpu -q " + shell_quoted(path) + " -d " + shell_quoted(db) +
                                        " --skip-invalid -o " + shell_quoted(dir.file("hits.tsv")) +
                                        " --outfmt '6 qseqid' --raw-scores");
    INFO(skipped.err);
    CHECK(skipped.exit_code == 0);
    CHECK(contains(skipped.err, "skipped 2 invalid queries"));
    const std::string hits = read_file(dir.file("hits.tsv"));
    CHECK(contains(hits, "q1\n"));
    CHECK(contains(hits, "q4\n"));
    CHECK(!contains(hits, "q2"));
    CHECK(!contains(hits, "q3"));
  }
  SECTION("nucleotide letters that are not IUPAC codes") {
    const std::string dna = dir.file("dna.fa");
    write_file(dna, ">chr1\nACGTNACGT\n>chr2\nACGXT\n");
    check_clean_failure(
        run_warpsearch("makedb --dbtype nucl " + shell_quoted(dna) + " " + shell_quoted(dir.file("dna.wsdb"))),
        {dna, "line 4", "record 2 ('chr2')", "'X' (0x58) in a nucleotide sequence"});
  }
}

TEST_CASE("robustness: truncated and corrupt gzip input", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  std::mt19937_64 rng(17);
  std::string fasta;
  for (int i = 0; i < 200; ++i) fasta += fasta_record("s" + std::to_string(i), random_protein(rng, 300));
  const std::string compressed = gzip(fasta);
  REQUIRE(compressed.size() > 1000);

  const std::string whole = dir.file("whole.fa.gz");
  write_file(whole, compressed);
  CHECK(
      run_warpsearch("makedb --quiet " + shell_quoted(whole) + " " + shell_quoted(dir.file("whole.wsdb"))).exit_code ==
      0);

  const std::string truncated = dir.file("truncated.fa.gz");
  write_file(truncated, compressed.substr(0, compressed.size() / 2));
  check_clean_failure(run_warpsearch("makedb " + shell_quoted(truncated) + " " + shell_quoted(dir.file("out.wsdb"))),
                      {truncated, "truncated gzip stream", "expected more compressed data"});
  check_clean_failure(run_warpsearch(search_args(truncated, db)), {truncated, "truncated gzip stream"});

  // The last 8 bytes are the CRC-32 and length of the data: damage the compressed data instead.
  std::string corrupt = compressed;
  for (std::size_t i = 200; i < 260; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5A);
  const std::string damaged = dir.file("corrupt.fa.gz");
  write_file(damaged, corrupt);
  check_clean_failure(run_warpsearch("makedb " + shell_quoted(damaged) + " " + shell_quoted(dir.file("out.wsdb"))),
                      {damaged, "corrupt gzip data near compressed byte", "expected a valid gzip stream"});

  // Only the trailer's CRC-32 is wrong: all the data inflate, and the check still catches it.
  std::string bad_crc = compressed;
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 1);
  write_file(damaged, bad_crc);
  check_clean_failure(run_warpsearch("makedb " + shell_quoted(damaged) + " " + shell_quoted(dir.file("out.wsdb"))),
                      {damaged, "corrupt gzip data", "incorrect data check"});

  // The gzip magic alone.
  write_file(damaged, std::string("\x1f\x8b", 2));
  check_clean_failure(run_warpsearch("makedb " + shell_quoted(damaged) + " " + shell_quoted(dir.file("out.wsdb"))),
                      {damaged, "gzip"});
  CHECK(!ws::test::path_exists(dir.file("out.wsdb")));
}

TEST_CASE("robustness: empty inputs, query files without sequences, zero-length queries", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  const std::string empty = dir.file("empty.fa");
  write_file(empty, "");
  check_clean_failure(run_warpsearch("makedb " + shell_quoted(empty) + " " + shell_quoted(dir.file("out.wsdb"))),
                      {empty, "no sequence records; expected FASTA ('>') or FASTQ ('@') records"});
  check_clean_failure(run_warpsearch(search_args(empty, db) + " -o " + shell_quoted(dir.file("hits.tsv"))),
                      {empty, "no sequence records"});
  check_clean_failure(run_warpsearch("makedb - " + shell_quoted(dir.file("out.wsdb")) + " < /dev/null"),
                      {"standard input", "no sequence records"});

  const std::string blank = dir.file("blank.fa");
  write_file(blank, "\n\n   \r\n\n");
  check_clean_failure(run_warpsearch(search_args(blank, db)), {blank, "line 5", "no sequence records"});

  const std::string zero = dir.file("zero-length.fa");
  write_file(zero, ">q1 has no residues\n>q2\nMKVLAAGIVGLLLAAWWCPHHHGGG\n");
  check_clean_failure(run_warpsearch(search_args(zero, db) + " -o " + shell_quoted(dir.file("hits.tsv"))),
                      {zero, "line 1", "record 1 ('q1')", "no residues"});
  const auto skipped =
      run_warpsearch("search --device cpu -q " + shell_quoted(zero) + " -d " + shell_quoted(db) +
                     " --skip-invalid --outfmt '6 qseqid' --raw-scores -o " + shell_quoted(dir.file("hits.tsv")));
  CHECK(skipped.exit_code == 0);
  CHECK(contains(skipped.err, "skipped 1 invalid queries"));
  CHECK(contains(read_file(dir.file("hits.tsv")), "q2\n"));
  fs::remove(dir.file("hits.tsv"));

  // Only invalid queries: nothing to search is an error, not an empty result.
  write_file(zero, ">q1\n>q2\n");
  check_clean_failure(
      run_warpsearch(search_args(zero, db) + " --skip-invalid -o " + shell_quoted(dir.file("hits.tsv"))),
      {zero, "no valid sequence records (2 skipped as invalid)"});
  CHECK(!ws::test::path_exists(dir.file("out.wsdb")));
  CHECK(!ws::test::path_exists(dir.file("hits.tsv")));
}

TEST_CASE("robustness: queries and subjects of 100,000+ residues score as the reference", "[robustness][cli][long]") {
  TempDir dir;
  std::mt19937_64 rng(23);
  const ws::SubstitutionMatrix blosum62 = ws::SubstitutionMatrix::builtin("BLOSUM62");
  const ws::ScoringScheme scoring(blosum62, ws::GapOpen{11}, ws::GapExtend{1});
  const ws::Alphabet& protein = ws::Alphabet::protein();

  // Subjects: mutated pieces of a 120,000-residue sequence, and unrelated ones; the long one is a
  // subject in a second database, searched with short queries.
  const std::string long_letters = random_protein(rng, 120000);
  const std::string long_codes = protein.encode_string(long_letters);
  std::map<std::string, std::string> subjects;  // id -> codes
  std::string short_fasta;
  for (int i = 0; i < 3; ++i) {
    const std::size_t start = 10000 + 37000 * static_cast<std::size_t>(i);
    const std::string piece = long_codes.substr(start, 300 + 100 * static_cast<std::size_t>(i));
    subjects["piece" + std::to_string(i)] = ws::test::mutated_codes(rng, piece, 20, 0.15, 4);
  }
  for (int i = 0; i < 3; ++i) subjects["random" + std::to_string(i)] = protein.encode_string(random_protein(rng, 250));
  for (const auto& [id, codes] : subjects) short_fasta += fasta_record(id, protein.decode_string(codes));
  write_file(dir.file("short.fa"), short_fasta);
  write_file(dir.file("long.fa"), fasta_record("long120k", long_letters) + short_fasta);
  REQUIRE(run_warpsearch("makedb --quiet " + shell_quoted(dir.file("short.fa")) + " " +
                         shell_quoted(dir.file("short.wsdb")))
              .exit_code == 0);
  REQUIRE(
      run_warpsearch("makedb --quiet " + shell_quoted(dir.file("long.fa")) + " " + shell_quoted(dir.file("long.wsdb")))
          .exit_code == 0);

  // Every hit's score, against the 64-bit reference. Columns: qseqid sseqid score qstart qend sstart send.
  const auto check_hits = [&](const std::string& output, const std::map<std::string, std::string>& queries,
                              const std::map<std::string, std::string>& all_subjects) {
    std::istringstream lines(output);
    std::size_t checked = 0;
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string query, subject;
      long long score = 0;
      std::uint32_t qstart = 0, qend = 0, sstart = 0, send = 0;
      REQUIRE(fields >> query >> subject >> score >> qstart >> qend >> sstart >> send);
      INFO(line);
      REQUIRE(queries.count(query) == 1);
      REQUIRE(all_subjects.count(subject) == 1);
      const auto span = ws::reference::local_span(queries.at(query), all_subjects.at(subject), scoring);
      CHECK(score == span.score);
      CHECK(qstart == span.query_begin + 1);
      CHECK(qend == span.query_end);
      CHECK(sstart == span.subject_begin + 1);
      CHECK(send == span.subject_end);
      ++checked;
    }
    return checked;
  };
  const std::string columns =
      " --outfmt '6 qseqid sseqid score qstart qend sstart send' --raw-scores --max-target-seqs 50";

  SECTION("a 120,000-residue query") {
    write_file(dir.file("q.fa"), fasta_record("q120k", long_letters));
    const auto result = run_warpsearch(search_args(dir.file("q.fa"), dir.file("short.wsdb")) + columns);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    // The three pieces score far above chance; the random subjects may or may not give a hit.
    CHECK(check_hits(result.out, {{"q120k", long_codes}}, subjects) >= 3);
    for (int i = 0; i < 3; ++i) CHECK(contains(result.out, "q120k\tpiece" + std::to_string(i) + "\t"));
  }
  SECTION("short queries against a 120,000-residue subject") {
    std::map<std::string, std::string> queries;
    std::string query_fasta;
    for (int i = 0; i < 2; ++i) {
      const std::string piece = long_codes.substr(5000 + 90000 * static_cast<std::size_t>(i), 400);
      queries["short" + std::to_string(i)] = ws::test::mutated_codes(rng, piece, 20, 0.2, 3);
      query_fasta +=
          fasta_record("short" + std::to_string(i), protein.decode_string(queries["short" + std::to_string(i)]));
    }
    write_file(dir.file("q.fa"), query_fasta);
    std::map<std::string, std::string> all_subjects = subjects;
    all_subjects["long120k"] = long_codes;
    const auto result = run_warpsearch(search_args(dir.file("q.fa"), dir.file("long.wsdb")) + columns);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(check_hits(result.out, queries, all_subjects) >= 2);
    CHECK(contains(result.out, "short0\tlong120k\t"));
    CHECK(contains(result.out, "short1\tlong120k\t"));
  }
}

TEST_CASE("robustness: duplicate IDs are accepted and reported by position", "[robustness][cli]") {
  // As BLAST does, makedb accepts duplicate subject IDs and search duplicate query IDs: each record
  // stays a record of its own (the database numbers subjects by FASTA position, the output lists
  // queries in input order), and nothing is merged or dropped.
  TempDir dir;
  std::mt19937_64 rng(29);
  const std::string first = random_protein(rng, 200), second = random_protein(rng, 220);
  write_file(dir.file("subjects.fa"), fasta_record("dup first copy", first) + fasta_record("dup second copy", second) +
                                          fasta_record("other", random_protein(rng, 150)));
  const auto made =
      run_warpsearch("makedb " + shell_quoted(dir.file("subjects.fa")) + " " + shell_quoted(dir.file("db")));
  REQUIRE(made.exit_code == 0);
  CHECK(contains(made.err, "3 protein sequences"));

  write_file(dir.file("queries.fa"), fasta_record("q", first) + fasta_record("q", second));
  const auto result = run_warpsearch(search_args(dir.file("queries.fa"), dir.file("db")) +
                                     " --outfmt '6 qseqid sseqid stitle qlen slen pident' --max-target-seqs 1");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  // Query 1 (200 residues) finds the first 'dup', query 2 (220) the second: two rows, in query order.
  CHECK(result.out ==
        "q\tdup\tfirst copy\t200\t200\t100.000\n"
        "q\tdup\tsecond copy\t220\t220\t100.000\n");
}
