#include "tests/test_support.hpp"

#include <unistd.h>
#include <sys/wait.h>

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

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path);
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

CommandResult run_warpsearch_piped(const std::string& producer, const std::string& arguments) {
  TempDir scratch;
  const std::string out = scratch.file("stdout"), err = scratch.file("stderr");
  const std::string command = (producer.empty() ? "" : producer + " | ") + "'" +
                              from_environment("WARPSEARCH_TEST_BINARY", WARPSEARCH_BINARY) + "' " + arguments +
                              " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

std::string random_codes(std::mt19937_64& rng, std::size_t length, int alphabet_size) {
  std::uniform_int_distribution<int> pick(0, alphabet_size - 1);
  std::string codes(length, '\0');
  for (auto& c : codes) c = static_cast<char>(pick(rng));
  return codes;
}

std::string mutated_codes(std::mt19937_64& rng, const std::string& source, int alphabet_size, double rate, int max_gap) {
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<int> letter(0, alphabet_size - 1);
  std::uniform_int_distribution<int> gap_length(1, max_gap);
  std::string out;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const double x = coin(rng);
    if (x < rate / 3) {
      out += static_cast<char>(letter(rng));
    } else if (x < 2 * rate / 3) {
      for (int k = gap_length(rng); k > 0; --k) out += static_cast<char>(letter(rng));
      out += source[i];
    } else if (x < rate) {
      i += static_cast<std::size_t>(gap_length(rng)) - 1;
    } else {
      out += source[i];
    }
  }
  return out;
}

std::string source_path(const std::string& relative) {
  return from_environment("WARPSEARCH_TEST_SOURCE_DIR", WARPSEARCH_SOURCE_DIR) + "/" + relative;
}

}  // namespace warpsearch::test
