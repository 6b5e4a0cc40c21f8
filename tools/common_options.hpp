// What several subcommands share in their command lines: the parsing and --help,
// and the options of the scoring scheme and of where to run. Each command adds a group to its own
// options_description at the place it takes in its --help, lets Boost fill it, then asks it for the
// value, so that names, defaults, help texts and messages are written once.
#pragma once

#include <boost/any.hpp>
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "profile/scoring.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch::tools {

// The value of a numeric option, read strictly: the whole text is a number of the type (no sign for
// unsigned types, no trailing characters, no blanks, no overflow; for real numbers neither NaN nor an
// infinity). Boost's own conversion would take "-1" for an unsigned option as its largest value and
// "nan" for a double. A bad value is a usage error naming the option (Boost adds the name).
template <class T>
struct Number {
  T value{};
  Number() = default;
  Number(T initial) : value(initial) {}  // NOLINT: implicit, as the plain value it replaces
  operator T() const { return value; }   // NOLINT
};

// True when text is, as a whole, a number of the type (finite for double).
bool parse_number(const std::string& text, int& value);
bool parse_number(const std::string& text, unsigned& value);
bool parse_number(const std::string& text, unsigned long& value);
bool parse_number(const std::string& text, unsigned long long& value);
bool parse_number(const std::string& text, double& value);

// Boost.Program_options' hook for Number<T> (found by argument-dependent lookup).
template <class T>
void validate(boost::any& stored, const std::vector<std::string>& values, Number<T>*, int) {
  boost::program_options::validators::check_first_occurrence(stored);
  const std::string& text = boost::program_options::validators::get_single_string(values);
  T parsed{};
  if (!parse_number(text, parsed)) throw boost::program_options::invalid_option_value(text);
  stored = boost::any(Number<T>(parsed));
}

// Parses argv (argv[0] is the command's name) into vm; Boost's errors become a UsageError. With --help,
// prints usage, a blank line and the options on stdout and returns false: the command then exits 0.
// hidden and positional: options not listed in --help, filled from the positional arguments.
bool parse_command_line(int argc, char** argv, const boost::program_options::options_description& options,
                        const char* usage, boost::program_options::variables_map& vm,
                        const boost::program_options::options_description& hidden = {},
                        const boost::program_options::positional_options_description& positional = {});

// "warpsearch search -q 'my queries.fa' ...": the command line as a shell would take it back (argv[0] is
// the command's name), for reports that record it (SAM's @PG).
std::string command_line_text(int argc, char** argv);

// --matrix, --gapopen, --gapextend, --match, --mismatch.
class ScoringOptions {
 public:
  void add_to(boost::program_options::options_description& options);

  // The scheme for protein (the matrix: a built-in name, or an existing file) or nucleotide (match and
  // mismatch) sequences, with the gap defaults of its type (11/1 protein, 5/2 nucleotide). Options of
  // the other type are a UsageError; `sequences` names what is aligned in it ("databases",
  // "sequences"). An unknown matrix name and gap costs out of range are a UsageError; a bad matrix
  // file throws std::invalid_argument or std::runtime_error naming the file.
  ScoringScheme scheme(bool nucleotide, const boost::program_options::variables_map& given,
                       const std::string& sequences) const;

  // For searches that compute E-values: a UsageError naming the scoring options given when NCBI
  // publishes no statistics for the scheme (the message lists the supported gap pairs).
  void require_statistics(const ScoringScheme& scoring, const boost::program_options::variables_map& given) const;

  // The ranges of the values given, whatever the sequence type: a UsageError naming the option. Call
  // right after parsing, before any work.
  void check(const boost::program_options::variables_map& given) const;

 private:
  std::string matrix_ = "BLOSUM62";
  Number<int> gap_open_ = -1, gap_extend_ = -1, match_ = 2, mismatch_ = -3;
};

// --threads and --device.
class ComputeOptions {
 public:
  // verb: what the command does there ("search", "align"), for --device's help.
  void add_to(boost::program_options::options_description& options, const std::string& verb);

  // --threads, or without it (0) the CPUs this process may use (base/usable_cpus.hpp: affinity mask and
  // cgroup quota).
  unsigned threads() const;
  // --device's value; another name than auto, cpu or gpu is a UsageError.
  Device device() const;

 private:
  Number<unsigned> threads_ = 0;
  std::string device_ = "auto";
};

// Refuses, before any work, an output path (-o) that cannot be right: empty (a UsageError), a
// directory, one of the input files, a path inside the database directory (symbolic links resolved,
// so another name of the same file is caught too), or a file in a directory this process cannot write.
// "-" (stdout) and existing non-regular files (devices, pipes: written in place) pass.
void check_output_path(const std::string& output, const std::vector<std::string>& inputs,
                       const std::string& database = "");

// The one-line notice on stderr when --device auto found no usable GPU and the command runs on the CPU
// (backend: the engine's backend_description(), "cpu (...)" or "gpu (...)"). Nothing with --quiet.
void notice_cpu_fallback(const char* command, Device requested, const std::string& backend, bool quiet);

}  // namespace warpsearch::tools
