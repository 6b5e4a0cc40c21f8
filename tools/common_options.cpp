#include "tools/common_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "base/atomic_file.hpp"
#include "base/text.hpp"
#include "base/usable_cpus.hpp"
#include "statistics/statistics.hpp"
#include "tools/commands.hpp"

namespace po = boost::program_options;

namespace warpsearch::tools {

namespace {
template <class T>
bool parse_whole(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && stop == end && !text.empty();
}
}  // namespace

bool parse_number(const std::string& text, int& value) { return parse_whole(text, value); }
bool parse_number(const std::string& text, unsigned& value) { return parse_whole(text, value); }
bool parse_number(const std::string& text, unsigned long& value) { return parse_whole(text, value); }
bool parse_number(const std::string& text, unsigned long long& value) { return parse_whole(text, value); }
bool parse_number(const std::string& text, double& value) {
  // from_chars reads "nan", "inf" and "infinity"; an option value is a finite number.
  return parse_whole(text, value) && std::isfinite(value);
}

bool parse_command_line(int argc, char** argv, const po::options_description& options, const char* usage,
                        po::variables_map& vm, const po::options_description& hidden,
                        const po::positional_options_description& positional) {
  po::options_description all;
  all.add(options).add(hidden);
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError{e.what()};
  }
  if (vm.count("help")) {
    std::cout << usage << "\n" << options;
    return false;
  }
  return true;
}

std::string command_line_text(int argc, char** argv) {
  std::string text = "warpsearch";
  for (int i = 0; i < argc; ++i) {
    const std::string word = argv[i];
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                            "0123456789_-+=/.,:@%") == std::string::npos;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += " " + (plain ? word : quoted + "'");
  }
  return text;
}

void ScoringOptions::add_to(po::options_description& options) {
  options.add_options()(
      "matrix", po::value(&matrix_)->value_name("NAME|FILE"),
      "protein scoring matrix: BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI matrix file (default BLOSUM62)")(
      "gapopen", po::value(&gap_open_)->value_name("N"), "gap open cost (default 11 protein, 5 nucleotide)")(
      "gapextend", po::value(&gap_extend_)->value_name("N"),
      "gap extend cost (default 1 protein, 2 nucleotide); a gap of length k costs open + k * extend")(
      "match", po::value(&match_)->value_name("N"), "nucleotide match score (default 2)")(
      "mismatch", po::value(&mismatch_)->value_name("N"), "nucleotide mismatch score (default -3)");
}

ScoringScheme ScoringOptions::scheme(bool nucleotide, const po::variables_map& given,
                                     const std::string& sequences) const {
  SubstitutionMatrix substitution = SubstitutionMatrix::builtin("BLOSUM62");
  if (nucleotide) {
    if (given.count("matrix"))
      throw UsageError{"--matrix is for protein " + sequences + "; use --match and --mismatch"};
    substitution = SubstitutionMatrix::nucleotide(match_, mismatch_);
  } else {
    if (given.count("match") || given.count("mismatch"))
      throw UsageError{"--match and --mismatch are for nucleotide " + sequences};
    // A file that exists is input (its errors are the file's); any other name must be a built-in one.
    if (std::filesystem::exists(matrix_)) {
      substitution = SubstitutionMatrix::from_file(matrix_);
    } else {
      try {
        substitution = SubstitutionMatrix::builtin(matrix_);
      } catch (const std::invalid_argument& e) {
        throw UsageError{std::string("--matrix: ") + e.what()};
      }
    }
  }
  // A value given on the command line is kept, even a negative one (which ScoringScheme refuses).
  const int gap_open = gap_open_ < 0 && !given.count("gapopen") ? (nucleotide ? 5 : 11) : gap_open_.value;
  const int gap_extend = gap_extend_ < 0 && !given.count("gapextend") ? (nucleotide ? 2 : 1) : gap_extend_.value;
  if (gap_open >= 0 && gap_extend >= 1 && gap_open + gap_extend > 127)
    throw UsageError{"--gapopen + --gapextend must be at most 127, not " + std::to_string(gap_open) + " + " +
                     std::to_string(gap_extend)};
  return ScoringScheme(std::move(substitution), GapOpen{gap_open}, GapExtend{gap_extend});
}

void ScoringOptions::require_statistics(const ScoringScheme& scoring, const po::variables_map& given) const {
  try {
    EvalueCalculator(scoring, 1, 1);
  } catch (const std::invalid_argument& e) {
    std::string named;
    for (const char* name : {"matrix", "gapopen", "gapextend", "match", "mismatch"})
      if (given.count(name)) named += (named.empty() ? "--" : ", --") + std::string(name);
    throw UsageError{(named.empty() ? std::string("the scoring") : named) + ": " + e.what()};
  }
}

void ScoringOptions::check(const po::variables_map& given) const {
  const auto given_value = [&](const char* name) { return given.count(name) > 0; };
  if (given_value("gapopen") && (gap_open_ < 0 || gap_open_ > 126))
    throw UsageError{"--gapopen takes a gap open cost from 0 to 126, not " + std::to_string(gap_open_.value)};
  if (given_value("gapextend") && (gap_extend_ < 1 || gap_extend_ > 127))
    throw UsageError{"--gapextend takes a gap extend cost from 1 to 127, not " + std::to_string(gap_extend_.value)};
  if (given_value("gapopen") && given_value("gapextend") && gap_open_ + gap_extend_ > 127)
    throw UsageError{"--gapopen + --gapextend must be at most 127, not " + std::to_string(gap_open_ + gap_extend_)};
  if (given_value("match") && (match_ < 1 || match_ > 127))
    throw UsageError{"--match takes a positive score up to 127, not " + std::to_string(match_.value)};
  if (given_value("mismatch") && (mismatch_ > -1 || mismatch_ < -127))
    throw UsageError{"--mismatch takes a negative score down to -127, not " + std::to_string(mismatch_.value)};
}

void ComputeOptions::add_to(po::options_description& options, const std::string& verb) {
  options.add_options()("threads", po::value(&threads_)->value_name("N"),
                        "CPU threads (default: the CPUs this process may use: its affinity mask and cgroup quota)")(
      "device", po::value(&device_)->value_name("auto|cpu|gpu"),
      ("where to " + verb + " (default auto: GPU when usable)").c_str());
}

unsigned ComputeOptions::threads() const { return threads_or_usable_cpus(threads_.value); }

Device ComputeOptions::device() const {
  if (device_ == "auto") return Device::automatic;
  if (device_ == "cpu") return Device::cpu;
  if (device_ == "gpu") return Device::gpu;
  throw UsageError{"--device takes auto, cpu or gpu, not " + quoted_excerpt(device_)};
}

void check_output_path(const std::string& output, const std::vector<std::string>& inputs, const std::string& database) {
  namespace fs = std::filesystem;
  if (output.empty()) throw UsageError{"-o takes a file name (or '-' for standard output), not ''"};
  if (output == "-") return;
  const std::string shown = quoted_excerpt(output);
  std::error_code error;
  const fs::file_status status = fs::status(output, error);
  if (fs::is_directory(status)) throw std::runtime_error("cannot write " + shown + ": it is a directory");
  if (fs::exists(status) && !fs::is_regular_file(status)) return;  // a device or a pipe: written in place
  for (const std::string& input : inputs) {
    if (input.empty() || input == "-") continue;
    std::error_code ignored;
    if (fs::exists(status) && fs::equivalent(output, input, ignored))
      throw std::runtime_error("cannot write " + shown + ": it is the input file " + quoted_excerpt(input) +
                               ", which the output would replace");
  }
  const fs::path resolved = fs::weakly_canonical(fs::absolute(output, error), error);
  if (!database.empty() && !error) {
    std::error_code ignored;
    const fs::path root = fs::canonical(database, ignored);
    if (!ignored) {
      const auto mismatch = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
      if (mismatch.first == root.end())
        throw std::runtime_error("cannot write " + shown + ": it is inside the database " + quoted_excerpt(database));
    }
  }
  // The directory the output goes to (that of the file a symbolic link names): it must exist and take
  // a new file (the output is written beside the target and renamed over it).
  const std::string directory = error ? parent_directory(output) : resolved.parent_path().string();
  const fs::file_status directory_status = fs::status(directory, error);
  if (!fs::exists(directory_status))
    throw std::runtime_error("cannot create " + shown + ": directory " + quoted_excerpt(directory) + " does not exist");
  if (!fs::is_directory(directory_status))
    throw std::runtime_error("cannot create " + shown + ": " + quoted_excerpt(directory) + " is not a directory");
  if (::access(directory.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error("cannot create " + shown + ": directory " + quoted_excerpt(directory) +
                             " is not writable (" + std::strerror(errno) + ")");
}

void notice_cpu_fallback(const char* command, Device requested, const std::string& backend, bool quiet) {
  if (quiet || requested != Device::automatic || backend.rfind("cpu", 0) != 0) return;
#ifdef WARPSEARCH_HAVE_CUDA
  const char* why = "no usable GPU";
#else
  const char* why = "no GPU support in this build";
#endif
  std::fprintf(stderr, "warpsearch %s: %s, running on the %s\n", command, why, backend.c_str());
}

}  // namespace warpsearch::tools
