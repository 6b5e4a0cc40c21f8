// Small helpers shared by the tests: temporary directories, files, running the command-line tool,
// seeded random sequences.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <random>
#include <string>

#include "tests/random_sequences.hpp"  // random_codes, mutated_codes

namespace warpsearch::test {

// A fresh directory under the system temporary directory, removed with everything in it on scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& contents);
// write_file of a file inside a scratch tree, its folders made first.
void put_file(const TempDir& tree, const std::string& relative, const std::string& contents);
// Whether text holds part.
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message of the exception action() throws, or "(no error)".
template <typename F>
std::string error_of(F&& action) {
  try {
    action();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}
std::string read_file(const std::string& path);
bool path_exists(const std::string& path);
// Writes contents gzip-compressed, as one member (mode "wb1"; "ab1" appends another member). Throws
// std::runtime_error when it cannot.
void write_gzip(const std::string& path, const std::string& contents, const char* mode = "wb1");
// Every file of a database directory, by name, with its bytes; of the manifest only the lines that do not
// depend on the run (the time, the source's name) or on them (the manifest's own checksum).
std::map<std::string, std::string> database_files(const std::string& db);

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};
// Runs the warpsearch binary built with the tests, with the given arguments (a shell fragment).
CommandResult run_warpsearch(const std::string& arguments);
// The same with its stdin a pipe from producer (a shell command, e.g. "cat 'in.fa'").
CommandResult run_warpsearch_piped(const std::string& producer, const std::string& arguments);
// Runs a shell command (another tool: BLAST+, samtools, xmllint, python3); out holds its stdout and then
// its stderr.
CommandResult run_shell(const std::string& command);
// Whether a command of that name is on the PATH.
bool have_tool(const std::string& tool);

// Source tree paths (the bundled data, ...).
std::string source_path(const std::string& relative);

}  // namespace warpsearch::test
