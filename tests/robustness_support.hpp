// Helpers of the robustness tests of the command-line tool (tests/test_robustness_*.cpp): running the
// tool as a child process the test can signal, or through a shell; shell quoting, directory listings,
// random FASTA, gzip streams, the sample database, the failure checks, database checksums.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace warpsearch::test::robustness {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A word for sh: single-quoted, embedded single quotes closed, escaped and reopened.
inline std::string shell_quoted(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The names in a directory, sorted; hidden ones (temporary files start with '.') included.
inline std::vector<std::string> entries(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string random_protein(std::mt19937_64& rng, std::size_t length) {
  static const char kLetters[] = "ACDEFGHIKLMNPQRSTVWY";
  std::uniform_int_distribution<int> pick(0, 19);
  std::string letters(length, 'A');
  for (char& c : letters) c = kLetters[pick(rng)];
  return letters;
}

inline std::string fasta_record(const std::string& header, const std::string& letters, std::size_t width = 60) {
  std::string text = ">" + header + "\n";
  for (std::size_t at = 0; at < letters.size(); at += width) text += letters.substr(at, width) + "\n";
  return text;
}

inline std::string binary_path() {
  const char* value = std::getenv("WARPSEARCH_TEST_BINARY");
  return value != nullptr && *value != '\0' ? value : WARPSEARCH_BINARY;
}

// A warpsearch process started without a shell, so that the test can signal it and learn how it ended
// (an exit status, or death by a signal) and how much memory and time it used.
class Process {
 public:
  // stdin_fd / stdout_fd: the child's standard input and output (-1: /dev/null and a file beside the
  // stderr file).
  Process(const std::vector<std::string>& arguments, const std::string& output_prefix, int stdin_fd = -1,
          int stdout_fd = -1)
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
      // The child: only async-signal-safe calls until exec; the default dispositions of the test.
      for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(s, SIG_DFL);
      const int in = stdin_fd >= 0 ? stdin_fd : ::open("/dev/null", O_RDONLY);
      const int out = stdout_fd >= 0 ? stdout_fd : ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
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
inline bool wait_for_entry(const std::string& directory, const std::string& prefix, Process& process) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && process.running()) {
    for (const auto& name : entries(directory))
      if (name.rfind(prefix, 0) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// The CPU time (user + system, all threads) a running process has used so far; -1 if unreadable.
inline double cpu_seconds(pid_t pid) {
  FILE* file = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (file == nullptr) return -1;
  char text[1024] = {};
  const std::size_t n = std::fread(text, 1, sizeof text - 1, file);
  std::fclose(file);
  const std::string stat(text, n);
  const std::size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return -1;
  // After the name: state is field 3, utime and stime fields 14 and 15, in clock ticks.
  std::size_t at = name_end + 2;
  unsigned long long utime = 0, stime = 0;
  for (int field = 3; field <= 15 && at < stat.size(); ++field) {
    const std::size_t end = stat.find(' ', at);
    if (field == 14) utime = std::strtoull(stat.c_str() + at, nullptr, 10);
    if (field == 15) stime = std::strtoull(stat.c_str() + at, nullptr, 10);
    at = end == std::string::npos ? stat.size() : end + 1;
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Waits (up to `timeout`) until the process has used `seconds` of CPU time.
inline bool wait_for_cpu_time(Process& process, double seconds,
                              std::chrono::seconds timeout = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline && process.running()) {
    if (cpu_seconds(process.pid()) >= seconds) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// A failed run: the status, one error line holding each part, nothing on stdout.
inline void check_failure(const CommandResult& result, int status, std::initializer_list<std::string> parts) {
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == status);
  for (const std::string& part : parts) CHECK(contains(result.err, part));
  CHECK(result.out.empty());
}

// A failed run as docs/robustness.md defines it: status 1 (not a signal, not an abort), one error line on
// stderr holding each of the parts (file, record or line, what was expected), nothing on stdout.
inline void check_clean_failure(const CommandResult& result, std::initializer_list<std::string> parts) {
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 1);
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  CHECK(contains(result.err, ": error: "));
  for (const std::string& part : parts) CHECK(contains(result.err, part));
  CHECK(result.out.empty());
}

// A usage error: exit status 2, a first line naming the option, then the pointer to --help.
inline void check_usage_failure(const CommandResult& result, const std::string& option,
                                std::initializer_list<std::string> parts) {
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 2);
  const std::string first_line = result.err.substr(0, result.err.find('\n'));
  CHECK(contains(first_line, ": " + option));
  for (const std::string& part : parts) CHECK(contains(first_line, part));
  CHECK(contains(result.err, "--help"));
  CHECK(result.out.empty());
}

// A shell command line (that runs the tool as "$WARPSEARCH", for wrappers such as setpriv or ulimit),
// its standard output going to stdout_path (default: captured).
inline CommandResult run_tool_shell(const std::string& command, const std::string& stdout_path = "") {
  TempDir scratch;
  const std::string out = stdout_path.empty() ? scratch.file("stdout") : stdout_path;
  const std::string line = "WARPSEARCH=" + shell_quoted(binary_path()) + "; " + command + " >" + shell_quoted(out) +
                           " 2>" + shell_quoted(scratch.file("stderr"));
  const int status = std::system(("sh -c " + shell_quoted(line)).c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = stdout_path.empty() ? read_file(out) : std::string();
  result.err = read_file(scratch.file("stderr"));
  return result;
}

// A gzip stream of text (zlib, with the gzip wrapper).
inline std::string gzip(const std::string& text) {
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

// A small protein database of the bundled sample, made once per test that needs it.
inline std::string make_sample_db(const TempDir& dir, const std::string& name = "sample.wsdb",
                                  const std::string& options = "") {
  const std::string db = dir.file(name);
  const auto result = run_warpsearch("makedb --quiet " + options + " " +
                                     shell_quoted(source_path("data/uniprot_sample.fa")) + " " + shell_quoted(db));
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return db;
}

inline std::string search_args(const std::string& queries, const std::string& db) {
  return "search --quiet --device cpu -q " + shell_quoted(queries) + " -d " + shell_quoted(db);
}

// Database checksums: hex of a CRC-32, the CRC-32 of bytes (zlib's, as the manifest's).
inline std::string hex32(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "%08x", value);
  return text;
}

inline std::uint32_t crc_of(const std::string& bytes) {
  return static_cast<std::uint32_t>(
      ::crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// text with the first `from` replaced by `to` (which must be there).
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace warpsearch::test::robustness
