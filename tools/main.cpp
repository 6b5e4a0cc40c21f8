// warpsearch: exact Smith-Waterman search of protein and DNA databases.
//
// main() is the one place that catches: library errors arrive as exceptions carrying their context,
// and are printed here as one line on stderr.
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

#include "db/interrupt.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "tools/commands.hpp"
#ifdef WARPSEARCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

constexpr const char* kUsage =
    "warpsearch " WARPSEARCH_VERSION " - exact Smith-Waterman search of protein and DNA databases\n"
    "\n"
    "usage: warpsearch COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  makedb   pack a FASTA file into a searchable database\n"
    "  dbinfo   describe a database, and verify its checksums\n"
    "  search   search queries against a database\n"
    "  align    align pairs of sequences (local, global, semiglobal, X-drop)\n"
    "  blastp, blastn\n"
    "           a BLAST+ command line (-query, -db, -outfmt, ...) run as an exact search\n"
    "\n"
    "'warpsearch COMMAND --help' describes a command's options.\n";

struct Command {
  const char* name;
  int (*run)(int, char**);
};
constexpr Command kCommands[] = {
    {"makedb", warpsearch::tools::run_makedb},
    {"dbinfo", warpsearch::tools::run_dbinfo},
    {"search", warpsearch::tools::run_search},
    {"align", warpsearch::tools::run_align},
    {"blastp", warpsearch::tools::run_blast},
    {"blastn", warpsearch::tools::run_blast},
    {"blastx", warpsearch::tools::run_blast},
    {"tblastn", warpsearch::tools::run_blast},
    {"tblastx", warpsearch::tools::run_blast},
};

void print_version() {
  std::cout << "warpsearch " WARPSEARCH_VERSION "\n"
            << "commit: " << WARPSEARCH_GIT_DESCRIBE << "\n"
            << "build type: " << WARPSEARCH_BUILD_TYPE << "\n";
#ifdef WARPSEARCH_HAVE_CUDA
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::cout << "CUDA: built with " << CUDART_VERSION / 1000 << "." << CUDART_VERSION % 1000 / 10 << ", runtime "
            << runtime / 1000 << "." << runtime % 1000 / 10 << "\n";
#else
  std::cout << "CUDA: not built in (CPU only)\n";
#endif
  std::cout << "CPU kernels: " << warpsearch::cpu::isa_name(warpsearch::cpu::best_isa()) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string_view first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (first == "--version" || first == "-V") {
    print_version();
    return 0;
  }
  for (const Command& command : kCommands) {
    if (first != command.name) continue;
    try {
      return command.run(argc - 1, argv + 1);
    } catch (const warpsearch::tools::UsageError& e) {
      std::cerr << "warpsearch " << command.name << ": " << e.what() << "\n"
                << "Try 'warpsearch " << command.name << " --help'.\n";
      return 2;
    } catch (const warpsearch::Interrupted& e) {
      // Temporary files are gone by now (their owners unwound); exit as a shell reports the signal.
      std::cerr << "warpsearch " << command.name << ": interrupted by signal " << e.signal_number() << "\n";
      return 128 + e.signal_number();
    } catch (const std::exception& e) {
      std::cerr << "warpsearch " << command.name << ": error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "warpsearch: unknown command '" << first << "'\n\n" << kUsage;
  return 2;
}
