// The subcommands of the warpsearch tool. Each parses its own options (Boost.Program_options stays in
// tools/) and returns the process exit status; errors propagate as exceptions to main().
#pragma once

#include <string>

namespace warpsearch::tools {

int run_makedb(int argc, char** argv);
int run_dbinfo(int argc, char** argv);
int run_search(int argc, char** argv);

// Thrown for a command line that cannot be run (unknown option, missing argument): main() prints the
// message with a pointer to --help and exits with status 2.
struct UsageError {
  const char* what() const noexcept { return message.c_str(); }
  std::string message;
};

}  // namespace warpsearch::tools
