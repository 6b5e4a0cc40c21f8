// Robustness of the command-line tool: bad input of every kind through makedb, dbinfo and
// search; corrupt databases; interruption of makedb, search and align by SIGINT / SIGTERM; the same
// output across runs, thread counts and chunkings. Each failure must exit with status 1 (2 for a bad
// command line), never by a signal; its one-line message must name the file and the record or line and
// say what was expected; and it must leave no output file, database or temporary file behind.
// docs/robustness.md lists each case with the test that covers it.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db/alphabet.hpp"
#include "kernels/reference.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
namespace fs = std::filesystem;
using ws::test::read_file;
using ws::test::run_warpsearch;
using ws::test::source_path;
using ws::test::TempDir;
using ws::test::write_file;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A word for sh: single-quoted, embedded single quotes closed, escaped and reopened.
std::string shell_quoted(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The names in a directory, sorted; hidden ones (temporary files start with '.') included.
std::vector<std::string> entries(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A failed run as docs/robustness.md defines it: status 1 (not a signal, not an abort), one error line on stderr
// holding each of the parts (file, record or line, what was expected), nothing on stdout.
void check_clean_failure(const ws::test::CommandResult& result, std::initializer_list<std::string> parts) {
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 1);
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  CHECK(contains(result.err, ": error: "));
  for (const std::string& part : parts) CHECK(contains(result.err, part));
  CHECK(result.out.empty());
}

// A usage error: exit status 2, a first line naming the option, then the pointer to --help.
void check_usage_failure(const ws::test::CommandResult& result, const std::string& option,
                         std::initializer_list<std::string> parts) {
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 2);
  const std::string first_line = result.err.substr(0, result.err.find('\n'));
  CHECK(contains(first_line, ": " + option));
  for (const std::string& part : parts) CHECK(contains(first_line, part));
  CHECK(contains(result.err, "--help"));
  CHECK(result.out.empty());
}

// Random residue letters of the protein alphabet's 20 standard amino acids.
std::string random_protein(std::mt19937_64& rng, std::size_t length) {
  static const char kLetters[] = "ACDEFGHIKLMNPQRSTVWY";
  std::uniform_int_distribution<int> pick(0, 19);
  std::string letters(length, 'A');
  for (char& c : letters) c = kLetters[pick(rng)];
  return letters;
}

std::string fasta_record(const std::string& header, const std::string& letters, std::size_t width = 60) {
  std::string text = ">" + header + "\n";
  for (std::size_t at = 0; at < letters.size(); at += width) text += letters.substr(at, width) + "\n";
  return text;
}

// A gzip stream of text (zlib, with the gzip wrapper).
std::string gzip(const std::string& text) {
  z_stream stream{};
  REQUIRE(deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string binary_path() {
  const char* value = std::getenv("WARPSEARCH_TEST_BINARY");
  return value != nullptr && *value != '\0' ? value : WARPSEARCH_BINARY;
}

// A shell command line (that runs the tool as "$WARPSEARCH", for wrappers such as setpriv or ulimit),
// its standard output going to stdout_path (default: captured).
ws::test::CommandResult run_shell(const std::string& command, const std::string& stdout_path = "") {
  TempDir scratch;
  const std::string out = stdout_path.empty() ? scratch.file("stdout") : stdout_path;
  const std::string line = "WARPSEARCH=" + shell_quoted(binary_path()) + "; " + command + " >" + shell_quoted(out) +
                           " 2>" + shell_quoted(scratch.file("stderr"));
  const int status = std::system(("sh -c " + shell_quoted(line)).c_str());
  ws::test::CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = stdout_path.empty() ? read_file(out) : std::string();
  result.err = read_file(scratch.file("stderr"));
  return result;
}

// A warpsearch process started without a shell, so that the test can signal it and learn how it ended
// (an exit status, or death by a signal) and how much memory it used.
class Process {
 public:
  // stdin_fd: the child's standard input (-1: /dev/null).
  Process(const std::vector<std::string>& arguments, const std::string& output_prefix, int stdin_fd = -1)
      : out_path_(output_prefix + ".stdout"), err_path_(output_prefix + ".stderr") {
    std::vector<std::string> argv_strings{binary_path()};
    argv_strings.insert(argv_strings.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (auto& argument : argv_strings) argv.push_back(argument.data());
    argv.push_back(nullptr);
    start_ = std::chrono::steady_clock::now();
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      // The child: only async-signal-safe calls until exec.
      const int in = stdin_fd >= 0 ? stdin_fd : ::open("/dev/null", O_RDONLY);
      const int out = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || out < 0 || err < 0) ::_exit(127);
      ::dup2(in, STDIN_FILENO);
      ::dup2(out, STDOUT_FILENO);
      ::dup2(err, STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() {
    if (!finished_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }

  pid_t pid() const { return pid_; }
  bool running() {
    if (finished_) return false;
    int status = 0;
    rusage usage{};
    const pid_t done = ::wait4(pid_, &status, WNOHANG, &usage);
    if (done == pid_) record(status, usage);
    return !finished_;
  }
  void wait() {
    int status = 0;
    rusage usage{};
    while (!finished_) {
      const pid_t done = ::wait4(pid_, &status, 0, &usage);
      if (done == pid_) record(status, usage);
      if (done < 0 && errno != EINTR) break;
    }
  }
  bool exited() const { return WIFEXITED(status_); }
  int exit_status() const { return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1; }
  int killed_by() const { return WIFSIGNALED(status_) ? WTERMSIG(status_) : 0; }
  long max_rss_kib() const { return max_rss_kib_; }
  double seconds() const { return seconds_; }
  std::string out() const { return read_file(out_path_); }
  std::string err() const { return read_file(err_path_); }

 private:
  void record(int status, const rusage& usage) {
    finished_ = true;
    status_ = status;
    max_rss_kib_ = usage.ru_maxrss;
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  std::string out_path_, err_path_;
  pid_t pid_ = -1;
  bool finished_ = false;
  int status_ = 0;
  long max_rss_kib_ = 0;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// Waits (up to a minute) until a name starting with prefix appears in directory.
bool wait_for_entry(const std::string& directory, const std::string& prefix, Process& process) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && process.running()) {
    for (const auto& name : entries(directory))
      if (name.rfind(prefix, 0) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// A small protein database of the bundled sample, made once per test that needs it.
std::string make_sample_db(const TempDir& dir, const std::string& name = "sample.wsdb",
                           const std::string& options = "") {
  const std::string db = dir.file(name);
  const auto result = run_warpsearch("makedb --quiet " + options + " " +
                                     shell_quoted(source_path("data/uniprot_sample.fa")) + " " + shell_quoted(db));
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return db;
}

std::string search_args(const std::string& queries, const std::string& db) {
  return "search --quiet --device cpu -q " + shell_quoted(queries) + " -d " + shell_quoted(db);
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Bad input files, through makedb and search -q

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

TEST_CASE("robustness: missing and unreadable files, and outputs that cannot be written", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  const std::string queries = source_path("data/queries.fa");

  SECTION("missing inputs") {
    check_clean_failure(
        run_warpsearch("makedb " + shell_quoted(dir.file("nope.fa")) + " " + shell_quoted(dir.file("out.wsdb"))),
        {dir.file("nope.fa"), "No such file or directory"});
    check_clean_failure(run_warpsearch(search_args(dir.file("nope.fa"), db)), {dir.file("nope.fa"), "No such file"});
    check_clean_failure(run_warpsearch(search_args(queries, dir.file("nope.wsdb"))),
                        {dir.file("nope.wsdb"), "No such file"});
    check_clean_failure(run_warpsearch("dbinfo " + shell_quoted(dir.file("nope.wsdb"))),
                        {dir.file("nope.wsdb"), "No such file"});
  }
  SECTION("a directory where a file is expected, a file where a database is expected") {
    fs::create_directory(dir.file("folder"));
    check_clean_failure(
        run_warpsearch("makedb " + shell_quoted(dir.file("folder")) + " " + shell_quoted(dir.file("out.wsdb"))),
        {dir.file("folder"), "Is a directory"});
    check_clean_failure(run_warpsearch(search_args(queries, queries)), {queries, "not a directory"});
    check_clean_failure(run_warpsearch("dbinfo " + shell_quoted(dir.file("folder"))),
                        {dir.file("folder"), "manifest.txt"});
    check_clean_failure(run_warpsearch(search_args(queries, db) + " -o " + shell_quoted(dir.file("folder"))),
                        {dir.file("folder"), "is a directory"});
  }
  SECTION("unreadable files") {
    const std::string locked = dir.file("locked.fa");
    write_file(locked, ">a\nMKV\n");
    ::chmod(locked.c_str(), 0);
    // Root reads a file of mode 000: as root, the tool runs as user nobody (setpriv, util-linux) instead.
    std::string as_user = "\"$WARPSEARCH\"";
    if (::access(locked.c_str(), R_OK) == 0) {
      if (::geteuid() == 0 && ::access("/usr/bin/setpriv", X_OK) == 0) {
        as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups " + as_user;
        ::chmod(dir.path().c_str(), 0755);
      } else {
        as_user.clear();
      }
    }
    if (as_user.empty()) {
      WARN("a file of mode 000 stays readable here (root without setpriv): the unreadable-file case is skipped");
    } else {
      check_clean_failure(
          // The database in /tmp, which user nobody may write: the input must be what fails.
          run_shell(as_user + " makedb " + shell_quoted(locked) + " " +
                    shell_quoted((fs::temp_directory_path() / ("warpsearch-unreadable-" + std::to_string(::getpid()) +
                                                               ".wsdb")).string())),
          {locked, "Permission denied"});
      check_clean_failure(run_shell(as_user + " " + search_args(locked, db)), {locked, "Permission denied"});
      // The database itself unreadable.
      ::chmod((db + "/manifest.txt").c_str(), 0);
      check_clean_failure(run_shell(as_user + " " + search_args(queries, db)),
                          {db + "/manifest.txt", "Permission denied"});
    }
  }
  SECTION("outputs in a missing directory") {
    check_clean_failure(
        run_warpsearch("makedb " + shell_quoted(queries) + " " + shell_quoted(dir.file("no/such/out.wsdb"))),
        {dir.file("no/such/out.wsdb"), "directory '" + dir.file("no/such") + "' does not exist"});
    check_clean_failure(run_warpsearch(search_args(queries, db) + " -o " + shell_quoted(dir.file("no/such/hits.tsv"))),
                        {dir.file("no/such/hits.tsv"), "does not exist"});
  }
  SECTION("a full disk: /dev/full as the output, and stdout on /dev/full") {
    if (!ws::test::path_exists("/dev/full")) {
      WARN("no /dev/full here: the full-disk case is skipped");
    } else {
      check_clean_failure(run_warpsearch(search_args(queries, db) + " -o /dev/full"),
                          {"/dev/full", "No space left on device"});
      // /dev/full is written in place: it must still be the device, not a file renamed over it.
      struct stat device;
      REQUIRE(::stat("/dev/full", &device) == 0);
      CHECK(S_ISCHR(device.st_mode));
      for (const auto& name : entries("/dev")) CHECK(!contains(name, ".tmp-"));
      // Standard output on a full disk, for search and for dbinfo (whose printf() reports nothing itself).
      for (const std::string& arguments : {search_args(queries, db), "dbinfo " + shell_quoted(db)})
        check_clean_failure(run_shell("\"$WARPSEARCH\" " + arguments, "/dev/full"),
                            {"standard output", "No space left on device"});
    }
  }
  SECTION("a full disk during makedb: a file size limit stops the writes half way") {
    // RLIMIT_FSIZE with SIGXFSZ ignored makes write() fail with EFBIG once a file would exceed the limit
    // (128 blocks of 512 or 1024 bytes, by the shell),
    // the way a full disk makes it fail with ENOSPC: makedb must fail cleanly and leave nothing.
    check_clean_failure(
        run_shell("trap '' XFSZ; ulimit -f 128; \"$WARPSEARCH\" makedb " +
                  shell_quoted(source_path("data/uniprot_sample.fa")) + " " + shell_quoted(dir.file("big.wsdb"))),
        {dir.file(""), "File too large"});
    CHECK(!ws::test::path_exists(dir.file("big.wsdb")));
    for (const auto& name : entries(dir.path())) CHECK(!contains(name, ".tmp-"));
  }
  SECTION("other special outputs are written in place: /dev/null, /dev/stdout") {
    const auto null = run_warpsearch(search_args(queries, db) + " -o /dev/null");
    CHECK(null.exit_code == 0);
    CHECK(null.out.empty());
    const auto out = run_warpsearch(search_args(queries, db) + " -o /dev/stdout");
    CHECK(out.exit_code == 0);
    CHECK(out.out == run_warpsearch(search_args(queries, db)).out);
    CHECK(!out.out.empty());
  }
  SECTION("a symbolic link as the output: the file it names is replaced, the link kept") {
    fs::create_directory(dir.file("real"));
    fs::create_symlink(dir.file("real/hits.tsv"), dir.file("link.tsv"));
    const auto result = run_warpsearch(search_args(queries, db) + " -o " + shell_quoted(dir.file("link.tsv")));
    CHECK(result.exit_code == 0);
    CHECK(fs::is_symlink(dir.file("link.tsv")));
    CHECK(read_file(dir.file("real/hits.tsv")) == run_warpsearch(search_args(queries, db)).out);
    CHECK(entries(dir.file("real")) == std::vector<std::string>{"hits.tsv"});
  }
  CHECK(!ws::test::path_exists(dir.file("out.wsdb")));
  for (const auto& name : entries(dir.path())) CHECK(!contains(name, ".tmp-"));
}

TEST_CASE("robustness: unknown matrices, malformed matrix files, scoring values out of range", "[robustness][cli]") {
  TempDir dir;
  const std::string db = make_sample_db(dir);
  const std::string queries = source_path("data/queries.fa");
  const std::string search = search_args(queries, db) + " -o " + shell_quoted(dir.file("hits.tsv"));

  SECTION("unknown matrix names list the known ones") {
    for (const std::string name : {"BLOSUM99", "blosum", "PAM", "''"}) {
      const auto result = run_warpsearch(search + " --matrix " + name);
      check_usage_failure(result, "--matrix",
                          {"unknown matrix", "BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, BLOSUM90, PAM30, PAM70, PAM250",
                           "or the path of an NCBI matrix file"});
    }
  }
  SECTION("malformed matrix files name the file and line") {
    const std::string path = dir.file("matrix.txt");
    const std::string header = "   A  R  N  D  C  Q  E  G  H  I  L  K  M  F  P  S  T  W  Y  V  B  J  Z  X  *\n";
    struct Case {
      std::string contents, where, expected;
    };
    const std::vector<Case> cases = {
        {"", path, "no header line of letters"},
        {"# nothing but a comment\n", path, "no header line of letters"},
        {"1 2 3\n", path + ":1:", "expected a header of single letters"},
        {header + "A 4 -1\n", path + ":2:", "fewer scores than the header has letters"},
        {header + "7 4\n", path + ":2:", "expected a row letter"},
        {header + "A 4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 -1 -1 x\n",
         path + ":2:", "is not an integer"},
        {header + "A 4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 -1 -1 900\n",
         path + ":2:", "outside -127..127"},
        {header + "A 4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 -1 -1 -4\n", path,
         "the matrix has no row for 'R'"},
        {std::string("\x01\x02\xff\xfe garbage\n", 13), path + ":1:", "expected a header of single letters"},
    };
    for (const Case& c : cases) {
      write_file(path, c.contents);
      check_clean_failure(run_warpsearch(search + " --matrix " + shell_quoted(path)), {c.where, c.expected});
    }
  }
  SECTION("gap costs and scores out of range") {
    struct Case {
      std::string options, expected;
      int status;
    };
    const std::vector<Case> cases = {
        {"--gapopen -1 --raw-scores", "--gapopen takes a gap open cost from 0 to 126, not -1", 2},
        {"--gapextend 0 --raw-scores", "--gapextend takes a gap extend cost from 1 to 127, not 0", 2},
        {"--gapopen 126 --gapextend 2 --raw-scores", "--gapopen + --gapextend must be at most 127, not 128", 2},
        {"--gapopen 99999999999", "the argument ('99999999999') for option '--gapopen' is invalid", 2},
        {"--gapopen eleven", "for option '--gapopen' is invalid", 2},
        {"--gapopen 9 --gapextend 3", "--gapopen, --gapextend: no E-values for BLOSUM62 with gap open 9, extend 3", 2},
        {"--evalue 0", "--evalue must be positive", 2},
        {"--evalue -1", "--evalue must be positive", 2},
        {"--max-target-seqs 0", "--max-target-seqs takes a number of hits from 1", 2},
        {"--max-target-seqs -1", "for option '--max-target-seqs' is invalid", 2},
        {"--threads -1", "for option '--threads' is invalid", 2},
        {"--match 2", "--match and --mismatch are for nucleotide databases", 2},
    };
    for (const Case& c : cases) {
      const auto result = run_warpsearch(search + " " + c.options);
      INFO(c.options << ": " << result.err);
      CHECK(result.exit_code == c.status);
      CHECK(contains(result.err, c.expected));
      CHECK(result.out.empty());
    }
  }
  SECTION("nucleotide scores out of range") {
    write_file(dir.file("dna.fa"), ">chr1\nACGTACGTAAACCCGGGTTT\n");
    REQUIRE(
        run_warpsearch("makedb --quiet " + shell_quoted(dir.file("dna.fa")) + " " + shell_quoted(dir.file("dna.wsdb")))
            .exit_code == 0);
    const std::string dna_search = search_args(dir.file("dna.fa"), dir.file("dna.wsdb")) + " --raw-scores";
    for (const auto& [options, expected] : std::vector<std::pair<std::string, std::string>>{
             {" --match 0", "--match takes a positive score up to 127, not 0"},
             {" --mismatch 1", "--mismatch takes a negative score down to -127, not 1"},
             {" --match 300", "--match takes a positive score up to 127, not 300"}}) {
      const auto result = run_warpsearch(dna_search + options);
      INFO(result.err);
      CHECK(result.exit_code == 2);
      CHECK(contains(result.err, expected));
    }
    const auto matrix = run_warpsearch(dna_search + " --matrix BLOSUM62");
    CHECK(matrix.exit_code == 2);
    CHECK(contains(matrix.err, "--matrix is for protein databases"));
  }
  CHECK(!ws::test::path_exists(dir.file("hits.tsv")));
}

// ------------------------------------------------------------------------------------------------
// Corrupt databases: detected before search reports anything, the damaged file named

namespace {

std::string hex32(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "%08x", value);
  return text;
}

// Rewrites a manifest with its checksum line made to match: a manifest that is well-formed but says
// something false about its files.
void write_manifest_with_checksum(const std::string& path, std::string text) {
  text.resize(text.rfind("manifest_crc32 "));
  const auto crc = static_cast<std::uint32_t>(
      ::crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
  write_file(path, text + "manifest_crc32 " + hex32(crc) + "\n");
}

std::uint32_t crc_of(const std::string& bytes) {
  return static_cast<std::uint32_t>(
      ::crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

namespace {

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

// ------------------------------------------------------------------------------------------------
// Interruption

namespace {

// makedb reading standard input from a pipe that the test keeps open: the process is certainly in the
// middle of its run (its temporary directory exists, it waits for more input) when the signal comes.
void interrupt_makedb(int signal_number) {
  TempDir dir;
  int pipe_fds[2];
  REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
  Process makedb({"makedb", "-", dir.file("db")}, dir.file("makedb"), pipe_fds[0]);
  ::close(pipe_fds[0]);
  std::mt19937_64 rng(31);
  std::string fasta;
  for (int i = 0; i < 2000; ++i) fasta += fasta_record("s" + std::to_string(i), random_protein(rng, 300));
  REQUIRE(::write(pipe_fds[1], fasta.data(), fasta.size()) == static_cast<ssize_t>(fasta.size()));
  const bool started = wait_for_entry(dir.path(), ".db.tmp-", makedb);
  CHECK(started);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(makedb.running());
  ::kill(makedb.pid(), signal_number);
  makedb.wait();
  ::close(pipe_fds[1]);
  INFO(makedb.err());
  CHECK(makedb.exited());
  CHECK(makedb.exit_status() == 128 + signal_number);
  CHECK(contains(makedb.err(), "interrupted by signal " + std::to_string(signal_number)));
  // Nothing left: no database, no temporary directory.
  CHECK(entries(dir.path()) == std::vector<std::string>{"makedb.stderr", "makedb.stdout"});
}

// Sends the signal to a running process and checks that it stops, within 20 s, as main() ends an
// interrupted command: exit status 128 + signal and a line naming the signal on stderr.
void signal_and_check_exit(Process& process, int signal_number) {
  CHECK(process.running());
  const auto signalled = std::chrono::steady_clock::now();
  ::kill(process.pid(), signal_number);
  process.wait();
  const double seconds_to_stop = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  INFO(process.err());
  CHECK(process.exited());
  CHECK(process.exit_status() == 128 + signal_number);
  CHECK(contains(process.err(), "interrupted by signal " + std::to_string(signal_number)));
  // search checks for the signal between scan tasks of a fraction of a second, align before every pair.
  CHECK(seconds_to_stop < 20.0);
}

// search with enough work (about 3e11 cells on two threads) to be in its scan when the signal comes.
void interrupt_search(int signal_number) {
  TempDir dir;
  std::mt19937_64 rng(37);
  std::string subjects, queries;
  for (int i = 0; i < 8000; ++i) subjects += fasta_record("s" + std::to_string(i), random_protein(rng, 500));
  for (int i = 0; i < 20; ++i) queries += fasta_record("q" + std::to_string(i), random_protein(rng, 4000));
  write_file(dir.file("subjects.fa"), subjects);
  write_file(dir.file("queries.fa"), queries);
  REQUIRE(run_warpsearch("makedb --quiet " + shell_quoted(dir.file("subjects.fa")) + " " + shell_quoted(dir.file("db")))
              .exit_code == 0);
  Process search({"search", "--quiet", "--device", "cpu", "--threads", "2", "-q", dir.file("queries.fa"), "-d",
                  dir.file("db"), "-o", dir.file("hits.tsv")},
                 dir.file("search"));
  // The output's temporary file exists from before the scan until the end.
  const bool started = wait_for_entry(dir.path(), ".hits.tsv.tmp-", search);
  CHECK(started);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  signal_and_check_exit(search, signal_number);
  CHECK(entries(dir.path()) ==
        std::vector<std::string>{"db", "queries.fa", "search.stderr", "search.stdout", "subjects.fa"});
}

// The CPU time (user + system, all threads) a running process has used so far, from /proc/PID/stat;
// -1 where it cannot be read.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return -1;
  // Fields after the command name (which may hold spaces and parentheses): state is field 3, utime and
  // stime fields 14 and 15, in clock ticks.
  const std::size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int number = 3; number <= 15 && fields >> field; ++number) {
    if (number == 14) utime = std::stoull(field);
    if (number == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Waits (up to two minutes) until the process has used `seconds` of CPU time.
bool wait_for_cpu_time(Process& process, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline && process.running()) {
    if (cpu_seconds(process.pid()) >= seconds) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// align with enough work to be in the middle of aligning when the signal comes: 2,000 global pairs of
// 3,000 residues with their CIGARs (tens of milliseconds each; about a minute on two shared cores). The
// output's temporary file exists from before the first pair is read; a second of CPU time later the
// inputs are read and the pairs are being aligned (reading them takes a fraction of that).
void interrupt_align(int signal_number) {
  TempDir dir;
  std::mt19937_64 rng(41);
  std::string queries, targets;
  for (int i = 0; i < 2000; ++i) {
    queries += fasta_record("q" + std::to_string(i), random_protein(rng, 3000));
    targets += fasta_record("t" + std::to_string(i), random_protein(rng, 3000));
  }
  write_file(dir.file("queries.fa"), queries);
  write_file(dir.file("targets.fa"), targets);
  Process align({"align", "--quiet", "--device", "cpu", "--threads", "2", "--mode", "global", "--cigar", "-q",
                 dir.file("queries.fa"), "-t", dir.file("targets.fa"), "-o", dir.file("pairs.tsv")},
                dir.file("align"));
  const bool started = wait_for_entry(dir.path(), ".pairs.tsv.tmp-", align);
  CHECK(started);
  const bool working = wait_for_cpu_time(align, 1.0);
  CHECK(working);
  signal_and_check_exit(align, signal_number);
  // No output file, no temporary file.
  CHECK(entries(dir.path()) ==
        std::vector<std::string>{"align.stderr", "align.stdout", "queries.fa", "targets.fa"});
}

}  // namespace

TEST_CASE("robustness: SIGINT during makedb leaves nothing and exits 130", "[robustness][cli][signal]") {
  interrupt_makedb(SIGINT);
}
TEST_CASE("robustness: SIGTERM during makedb leaves nothing and exits 143", "[robustness][cli][signal]") {
  interrupt_makedb(SIGTERM);
}
TEST_CASE("robustness: SIGINT during search leaves no output and exits 130", "[robustness][cli][signal]") {
  interrupt_search(SIGINT);
}
TEST_CASE("robustness: SIGTERM during search leaves no output and exits 143", "[robustness][cli][signal]") {
  interrupt_search(SIGTERM);
}
TEST_CASE("robustness: SIGINT during align leaves no output and exits 130", "[robustness][cli][signal]") {
  interrupt_align(SIGINT);
}
TEST_CASE("robustness: SIGTERM during align leaves no output and exits 143", "[robustness][cli][signal]") {
  interrupt_align(SIGTERM);
}

// ------------------------------------------------------------------------------------------------
// Determinism

TEST_CASE("robustness: search output is byte-identical across runs, thread counts and chunkings",
          "[robustness][cli][determinism]") {
  // tests/test_search.cpp checks the engine across threads and chunkings; this checks the whole
  // command, with every column that depends on the alignment, on the bundled data.
  TempDir dir;
  const std::string one_chunk = make_sample_db(dir, "one.wsdb");
  const std::string many_chunks = make_sample_db(dir, "many.wsdb", "--chunk-size 100K");
  REQUIRE(contains(run_warpsearch("dbinfo " + shell_quoted(many_chunks)).out, "chunks          "));
  CHECK(!contains(run_warpsearch("dbinfo " + shell_quoted(many_chunks)).out, "chunks          1\n"));
  const std::string queries = source_path("data/queries.fa");
  const std::string format =
      " --outfmt '6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score cigar "
      "qseq sseq'";

  std::string reference;
  for (const std::string& db : {one_chunk, many_chunks}) {
    for (const int threads : {1, 2, 3}) {
      for (int run = 0; run < (threads == 2 ? 2 : 1); ++run) {
        const auto result = run_warpsearch(search_args(queries, db) + " --threads " + std::to_string(threads) + format);
        INFO(db << ", " << threads << " threads, run " << run << ": " << result.err);
        REQUIRE(result.exit_code == 0);
        REQUIRE(!result.out.empty());
        if (reference.empty()) reference = result.out;
        CHECK(result.out == reference);
      }
    }
  }
  // JSON Lines as well, across chunkings.
  const auto json_one = run_warpsearch(search_args(queries, one_chunk) + " --outfmt json --threads 1");
  const auto json_many = run_warpsearch(search_args(queries, many_chunks) + " --outfmt json --threads 3");
  CHECK(json_one.exit_code == 0);
  CHECK(!json_one.out.empty());
  CHECK(json_one.out == json_many.out);
}
