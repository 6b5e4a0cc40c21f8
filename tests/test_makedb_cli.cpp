// The makedb and dbinfo commands, through the built binary: exit codes, messages, --help; databases
// built from a file, stdin, a pipe and gzip are identical, byte for byte.
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "db/database.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using ws::test::database_files;
using ws::test::run_warpsearch;
using ws::test::run_warpsearch_piped;
using ws::test::TempDir;
using ws::test::write_gzip;

namespace {
using warpsearch::test::contains;
std::string quoted(const std::string& path) { return "'" + path + "'"; }
// The summary of a makedb run up to its counts ("N protein sequences, R residues, K skipped, C chunks").
std::string summary_counts(const std::string& err) {
  const std::size_t end = err.find(" chunk");
  return end == std::string::npos ? err : err.substr(0, end);
}

// FASTA (or FASTQ) text, written awkwardly, and what a database of it holds.
struct AwkwardInput {
  std::string text;
  std::uint64_t sequences = 0, residues = 0, skipped = 0;
};

// Seeded random records in every form the reader accepts (db/fasta.hpp): upper and lower case, LF and
// CRLF line ends, blank lines between records, blanks and tabs inside sequence lines, lines wrapped at
// 1 to 80 residues, a final '*' (dropped) on some proteins and '*' inside, many equal lengths,
// header blanks; with bad, invalid records among them (a digit, a '-', no residues, no ID, a control
// byte in the header, a FASTQ quality line of the wrong length).
AwkwardInput awkward_input(std::mt19937_64& rng, ws::SequenceType type, bool fastq, std::size_t count, bool bad) {
  const bool protein = type == ws::SequenceType::protein;
  const std::string letters = protein ? "ACDEFGHIKLMNPQRSTVWYBZXUOJ" : "ACGTACGTACGTACGTACGTACGTNRYU";
  std::uniform_int_distribution<std::size_t> letter(0, letters.size() - 1), length(1, 150), width(1, 80),
      percent(0, 99);
  AwkwardInput input;
  std::string& out = input.text;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string eol = percent(rng) < 50 ? "\r\n" : "\n";
    const bool lower = percent(rng) < 40;
    if (percent(rng) < 20) out += percent(rng) < 50 ? "\n" : "\r\n";
    std::size_t n = length(rng);
    if (i % 5 == 0) n = 37;  // ties keep FASTA order
    if (i % 11 == 2) n = 1 + i % 3;
    std::string residues;
    for (std::size_t k = 0; k < n; ++k) residues += letters[letter(rng)];
    if (protein && n > 2 && percent(rng) < 10) residues[n / 2] = '*';  // the stop residue, kept
    if (lower)
      for (char& c : residues) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string id = "r" + std::to_string(i);
    const std::string header = (percent(rng) < 20 ? " " : "") + id +
                               (i % 3 == 0 ? ""
                                           : (percent(rng) < 50 ? "\t" : " ") + std::string("desc ") +
                                                 std::to_string(i * 7) + (percent(rng) < 20 ? " \t" : ""));
    if (fastq) {
      out += "@" + header + eol + residues + eol + "+" + eol + std::string(n, 'I') + eol;
    } else {
      out += ">" + header + eol;
      const std::size_t w = width(rng);
      for (std::size_t at = 0; at < n; at += w) {
        std::string line = residues.substr(at, w);
        if (percent(rng) < 10) line.insert(line.size() / 2, percent(rng) < 50 ? " " : "\t");
        out += line;
        if (at + w >= n && protein && percent(rng) < 30) out += percent(rng) < 50 ? "*" : "* ";
        out += eol;
      }
    }
    ++input.sequences;
    input.residues += n;
    if (bad && i % 7 == 3) {
      ++input.skipped;
      const std::string bad_id = "bad" + std::to_string(i);
      switch ((i / 7) % 5) {
        case 0: out += (fastq ? "@" : ">") + bad_id + eol + (protein ? "MK1V" : "AC1T") + eol; break;
        case 1: out += (fastq ? "@" : ">") + bad_id + eol + (protein ? "MK-V" : "AC-T") + eol; break;
        case 2:
          out += fastq ? "@" + bad_id + eol + "ACGT" + eol + "+" + eol + "III" + eol
                       : ">" + bad_id + " no residues" + eol + eol;
          break;
        case 3: out += (fastq ? "@" : ">") + std::string(" ") + eol + (protein ? "MKV" : "ACG") + eol; break;
        default: out += (fastq ? "@" : ">") + bad_id + " x\x02y" + eol + (protein ? "MKV" : "ACG") + eol; break;
      }
      if (fastq && (i / 7) % 5 != 2) out += "+" + eol + "III" + eol;
    }
  }
  if (!fastq && out.back() == '\n') {  // no line end after the last line
    out.pop_back();
    if (out.back() == '\r') out.pop_back();
  }
  return input;
}

// Builds DB/NAME from input (a file) through the plain file (the reference), stdin redirected from
// it, a pipe, a gzip file, and two gzip members read through stdin, with the given makedb options;
// checks that every database holds the same files with the same bytes. Returns the reference's
// summary counts.
std::string check_sources_agree(const TempDir& dir, const std::string& input, const std::string& name,
                                const std::string& options) {
  const std::string in = quoted(input), gz = input + ".gz", two = input + ".2.gz";
  if (!ws::test::path_exists(gz)) {
    const std::string text = ws::test::read_file(input);
    write_gzip(gz, text);
    write_gzip(two, text.substr(0, text.size() / 2 + 1));  // the members split inside a record
    write_gzip(two, text.substr(text.size() / 2 + 1), "ab1");
  }
  const std::string reference = dir.file(name + "-file");
  auto result = run_warpsearch("makedb " + in + " " + quoted(reference) + " " + options);
  REQUIRE(result.exit_code == 0);
  const auto expected = database_files(reference);
  const std::string counts = summary_counts(result.err);

  struct Source {
    const char* what;
    std::string producer, arguments;
  };
  const Source sources[] = {
      {"stdin from the file", "", "makedb - DB " + options + " < " + in},
      {"a pipe", "cat " + in, "makedb - DB " + options},
      {"a gzip file", "", "makedb " + quoted(gz) + " DB " + options},
      {"two gzip members through stdin", "", "makedb - DB " + options + " < " + quoted(two)},
  };
  for (const Source& source : sources) {
    INFO(name << " " << options << ", through " << source.what);
    const std::string db = dir.file(name + "-" + std::to_string(&source - sources));
    std::string arguments = source.arguments;
    arguments.replace(arguments.find(" DB "), 4, " " + quoted(db) + " ");
    result = run_warpsearch_piped(source.producer, arguments);
    REQUIRE(result.exit_code == 0);
    CHECK(summary_counts(result.err) == counts);
    const auto files = database_files(db);
    REQUIRE(files.size() == expected.size());
    for (const auto& [file, bytes] : expected) {
      INFO(file);
      const auto found = files.find(file);
      REQUIRE(found != files.end());
      CHECK(found->second.size() == bytes.size());
      CHECK((found->second == bytes));
    }
  }
  return counts;
}
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

namespace {
// Awkward input of the given kind through check_sources_agree, at the default and at small chunk
// sizes (chunks of one or two subjects, and of a few); with bad records (and --skip-invalid), also
// the failure without --skip-invalid: at the same line and record on every source, leaving nothing.
void check_awkward_input(std::uint64_t seed, ws::SequenceType type, bool fastq, bool bad) {
  TempDir dir;
  std::mt19937_64 rng(seed);
  const AwkwardInput input = awkward_input(rng, type, fastq, 40, bad);
  const std::string path = dir.file(fastq ? "in.fq" : "in.fa");
  ws::test::write_file(path, input.text);
  const std::string flags = bad ? " --skip-invalid" : "";
  const std::string summary = check_sources_agree(dir, path, "db", flags);
  for (const char* chunk_size : {"2", "150", "1000"})
    check_sources_agree(dir, path, std::string("db") + chunk_size, std::string("--chunk-size ") + chunk_size + flags);
  // The reference holds every valid record, none lost or doubled, with the type detected.
  CHECK(summary == "warpsearch makedb: " + std::to_string(input.sequences) + " " + ws::Alphabet::of(type).name() +
                       " sequences, " + std::to_string(input.residues) + " residues, " + std::to_string(input.skipped) +
                       " skipped, 1");
  auto result = run_warpsearch("dbinfo " + quoted(dir.file("db150-file")) + " --verify");
  CHECK(result.exit_code == 0);
  CHECK(contains(result.out, "every file matches its checksum"));
  if (!bad) return;

  const std::string strict = quoted(dir.file("strict"));
  result = run_warpsearch("makedb " + quoted(path) + " " + strict);
  CHECK(result.exit_code == 1);
  REQUIRE(contains(result.err, path + ": line "));
  const std::string where = result.err.substr(result.err.find(": line "));
  CHECK(contains(where, "record 5 ('bad3')"));
  for (const std::string& from : {"- " + strict + " < " + quoted(path), quoted(path + ".gz") + " " + strict}) {
    INFO(from);
    result = run_warpsearch("makedb " + from);
    CHECK(result.exit_code == 1);
    CHECK(result.err.substr(std::min(result.err.size(), result.err.find(": line "))) == where);
  }
  CHECK(!ws::test::path_exists(dir.file("strict")));
}
}  // namespace

TEST_CASE("makedb sources agree byte for byte: protein FASTA", "[makedb]") {
  check_awkward_input(2026, ws::SequenceType::protein, false, false);
}

TEST_CASE("makedb sources agree byte for byte: protein FASTA with bad records", "[makedb]") {
  check_awkward_input(2027, ws::SequenceType::protein, false, true);
}

TEST_CASE("makedb sources agree byte for byte: nucleotide FASTA with bad records", "[makedb]") {
  check_awkward_input(2028, ws::SequenceType::nucleotide, false, true);
}

TEST_CASE("makedb sources agree byte for byte: FASTQ with bad records", "[makedb]") {
  check_awkward_input(2029, ws::SequenceType::nucleotide, true, true);
}

// makedb gathers residues 4 MiB at a time (MakeDbOptions::unit_bytes; the command has no option for
// it); a longer subject goes through that window in pieces, read again from the file at offsets that
// land inside lines. Here it is 16 MiB + 4099 residues, wrapped at 61 with CRLF line ends, in lower and
// upper case, with blanks, ending in '*', among short records and a bad one.
TEST_CASE("makedb sources agree byte for byte: a record longer than the read window", "[makedb]") {
  TempDir dir;
  std::mt19937_64 rng(16);
  const ws::Alphabet& protein = ws::Alphabet::protein();
  const std::size_t long_length = (std::size_t{16} << 20) + 4099;
  std::string codes(long_length, '\0');
  for (std::size_t i = 0; i < long_length; i += 8) {  // 8 codes from each draw: fast enough
    std::uint64_t bits = rng();
    for (std::size_t k = i; k < std::min(i + 8, long_length); ++k, bits >>= 8)
      codes[k] = static_cast<char>((bits & 0xFF) % 20);  // A..V: no '*', which would end it
  }
  std::string text = ">short1 first\r\nMKV\r\n>bad1\r\nMK1V\r\n>long a long one\r\n";
  text.reserve(long_length + long_length / 30 + 100);
  for (std::size_t at = 0; at < long_length; at += 61) {
    std::string line = protein.decode_string(codes.substr(at, 61));
    if ((at / 61) % 3 == 0)
      for (char& c : line) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if ((at / 61) % 1000 == 7) line.insert(30, " \t");
    text += line;
    text += "\r\n";
  }
  text.insert(text.size() - 2, "*");
  text += "\r\n>short2\r\nWWwwY*\r\n";
  const std::string path = dir.file("long.fa");
  ws::test::write_file(path, text);

  const std::string in = quoted(path), gz = path + ".gz";
  write_gzip(gz, text);
  for (const char* options : {"--skip-invalid", "--skip-invalid --chunk-size 5"}) {
    INFO(options);
    const std::string reference = dir.file("db");
    auto result = run_warpsearch("makedb " + in + " " + quoted(reference) + " " + options);
    REQUIRE(result.exit_code == 0);
    CHECK(contains(result.err, "3 protein sequences, " + std::to_string(long_length + 8) + " residues, 1 skipped"));
    {
      const auto db = ws::Database::open(reference);
      const ws::Chunk last = db.chunk(db.num_chunks() - 1);
      REQUIRE(last.lengths()[last.size() - 1] == long_length);
      CHECK(last.original_indices()[last.size() - 1] == 1);
      CHECK((last.subject_codes(last.size() - 1) == codes));
    }
    const auto expected = database_files(reference);
    for (const std::string& arguments : {"makedb - " + quoted(dir.file("db-stdin")) + " " + options + " < " + in,
                                         "makedb " + quoted(gz) + " " + quoted(dir.file("db-stdin")) + " " + options}) {
      INFO(arguments);
      result = run_warpsearch(arguments);
      REQUIRE(result.exit_code == 0);
      CHECK((database_files(dir.file("db-stdin")) == expected));
      std::filesystem::remove_all(dir.file("db-stdin"));
    }
    std::filesystem::remove_all(reference);
  }
}
