#include "tests/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace warpsearch::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "warpsearch-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void write_gzip(const std::string& path, const std::string& contents, const char* mode) {
  gzFile file = gzopen(path.c_str(), mode);
  if (file == nullptr) throw std::runtime_error("cannot open " + path + " for gzip");
  const bool written =
      gzwrite(file, contents.data(), static_cast<unsigned>(contents.size())) == static_cast<int>(contents.size());
  if (gzclose(file) != Z_OK || !written) throw std::runtime_error("cannot write " + path);
}

std::map<std::string, std::string> database_files(const std::string& db) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(db)) {
    const std::string name = entry.path().filename();
    std::string contents = read_file(entry.path());
    if (name == "manifest.txt") {
      std::istringstream lines(contents);
      contents.clear();
      for (std::string line; std::getline(lines, line);)
        if (line.rfind("created_at ", 0) != 0 && line.rfind("source ", 0) != 0 && line.rfind("manifest_crc32 ", 0) != 0)
          contents += line + "\n";
    }
    files.emplace(name, std::move(contents));
  }
  return files;
}

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path);
}

void put_file(const TempDir& tree, const std::string& relative, const std::string& contents) {
  const std::string path = tree.file(relative);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_file(path, contents);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

bool path_exists(const std::string& path) { return std::filesystem::exists(path); }

// The build's paths are compiled in; a test binary carried to another machine (the GPU machine) is
// pointed at the tool and the sources there by WARPSEARCH_TEST_BINARY and WARPSEARCH_TEST_SOURCE_DIR.
static std::string from_environment(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

CommandResult run_warpsearch(const std::string& arguments) { return run_warpsearch_piped("", arguments); }

CommandResult run_shell(const std::string& command) {
  TempDir scratch;
  const std::string out = scratch.file("out");
  const int status = std::system(("(" + command + ") >'" + out + "' 2>&1").c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out);
  return result;
}

bool have_tool(const std::string& tool) { return run_shell("command -v " + tool).exit_code == 0; }

CommandResult run_warpsearch_piped(const std::string& producer, const std::string& arguments) {
  TempDir scratch;
  const std::string out = scratch.file("stdout"), err = scratch.file("stderr");
  const std::string command = (producer.empty() ? "" : producer + " | ") + "'" +
                              from_environment("WARPSEARCH_TEST_BINARY", WARPSEARCH_BINARY) + "' " + arguments + " >'" +
                              out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

std::string source_path(const std::string& relative) {
  return from_environment("WARPSEARCH_TEST_SOURCE_DIR", WARPSEARCH_SOURCE_DIR) + "/" + relative;
}

}  // namespace warpsearch::test
