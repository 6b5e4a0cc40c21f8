// What several subcommands share in their command lines: the parsing and --help,
// and the options of the scoring scheme and of where to run. Each command adds a group to its own
// options_description at the place it takes in its --help, lets Boost fill it, then asks it for the
// value, so that names, defaults, help texts and messages are written once.
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "profile/scoring.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch::tools {

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
  // "sequences"). Bad values throw std::invalid_argument, as ScoringScheme does.
  ScoringScheme scheme(bool nucleotide, const boost::program_options::variables_map& given,
                       const std::string& sequences) const;

 private:
  std::string matrix_ = "BLOSUM62";
  int gap_open_ = -1, gap_extend_ = -1, match_ = 2, mismatch_ = -3;
};

// --threads and --device.
class ComputeOptions {
 public:
  // verb: what the command does there ("search", "align"), for --device's help.
  void add_to(boost::program_options::options_description& options, const std::string& verb);

  // --threads, or without it (0) the CPUs this process may use (db/usable_cpus.hpp: affinity mask and
  // cgroup quota).
  unsigned threads() const;
  // --device's value; another name than auto, cpu or gpu is a UsageError.
  Device device() const;

 private:
  unsigned threads_ = 0;
  std::string device_ = "auto";
};

// The one-line notice on stderr when --device auto found no usable GPU and the command runs on the CPU
// (backend: the engine's backend_description(), "cpu (...)" or "gpu (...)"). Nothing with --quiet.
void notice_cpu_fallback(const char* command, Device requested, const std::string& backend, bool quiet);

}  // namespace warpsearch::tools
