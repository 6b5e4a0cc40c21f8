// The subcommands of the warpsearch tool. Each parses its own options (Boost.Program_options stays in
// tools/) and returns the process exit status; errors propagate as exceptions to main().
#pragma once

#include <cstdint>
#include <string>

namespace warpsearch::tools {

int run_makedb(int argc, char** argv);
int run_dbinfo(int argc, char** argv);
int run_search(int argc, char** argv);
int run_align(int argc, char** argv);
// blastp, blastn (and the reserved blastx, tblastn, tblastx): argv[0] is the program's name.
int run_blast(int argc, char** argv);

// "1000", "64K", "512M", "1G" (binary multiples) -> the number; anything else is a UsageError naming
// the option and what it counts.
std::uint64_t parse_size(const std::string& option, const std::string& what, const std::string& text);

// Thrown for a command line that cannot be run (unknown option, missing argument): main() prints the
// message with a pointer to --help and exits with status 2.
struct UsageError {
  const char* what() const noexcept { return message.c_str(); }
  std::string message;
};

}  // namespace warpsearch::tools
