// warpsearch: exact Smith-Waterman search of protein and DNA databases.
//
// main() is the one place that catches: library errors arrive as exceptions carrying their context,
// and are printed here as one line on stderr.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "tools/commands.hpp"
#include "tools/git_describe.hpp"  // generated at build time (cmake/git_describe.cmake)
#ifdef WARPSEARCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

constexpr const char* kUsage = "warpsearch " WARPSEARCH_VERSION
                               " - exact Smith-Waterman search of protein and DNA databases\n"
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

// How long an interrupted command may take to unwind by itself before the watchdog removes its
// temporaries and ends it: well within the second the user may wait.
constexpr std::chrono::milliseconds kInterruptGrace{300};
// A message longer than this (a user-supplied text that slipped through unshortened) is cut.
constexpr std::size_t kMaxMessageBytes = 4096;

struct Command {
  const char* name;
  int (*run)(int, char**);
};
constexpr Command kCommands[] = {
    {"makedb", warpsearch::tools::run_makedb}, {"dbinfo", warpsearch::tools::run_dbinfo},
    {"search", warpsearch::tools::run_search}, {"align", warpsearch::tools::run_align},
    {"blastp", warpsearch::tools::run_blast},  {"blastn", warpsearch::tools::run_blast},
    {"blastx", warpsearch::tools::run_blast},  {"tblastn", warpsearch::tools::run_blast},
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
#ifdef WARPSEARCH_HAVE_CUDA
  // CUDA loads a kernel's code at its first launch by default (lazy loading): a search's first queries
  // then wait for the fifty-odd scan kernels, and its hits for the aligner's. Loaded with the context,
  // which starts while the inputs are read (search/gpu_start.hpp), the same code costs nothing that shows:
  // on an H100 the 20 classic queries against 32.7 M residues took 0.77-0.82 s instead of 0.90-0.94 s, the
  // context's start-up 0.20-0.22 s either way (docs/gpu_kernels.md). A value the user set is kept.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
#endif
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
    const std::string program = std::string("warpsearch ") + command.name;
    const auto interrupted = [&](int signal_number) {
      std::cerr << program << ": interrupted by signal " << signal_number << "\n";
      return 128 + signal_number;
    };
    try {
      // From the start, before any work: a signal ends the run within the grace period (plus the time
      // to remove the temporaries) whatever it is doing; see base/interrupt.hpp.
      warpsearch::arm_interrupt_deadline(program, kInterruptGrace);
      const int status = command.run(argc - 1, argv + 1);
      // A signal that came after the last point where the command polled (an output already renamed
      // into place is kept: it is complete).
      if (warpsearch::pending_interrupt() != 0) return interrupted(warpsearch::pending_interrupt());
      return status;
    } catch (const warpsearch::tools::UsageError& e) {
      std::cerr << program << ": " << warpsearch::printable_excerpt(e.what(), kMaxMessageBytes) << "\n"
                << "Try 'warpsearch " << command.name << " --help'.\n";
      return 2;
    } catch (const warpsearch::Interrupted& e) {
      // Temporary files are gone by now (their owners unwound); exit as a shell reports the signal.
      return interrupted(e.signal_number());
    } catch (const std::exception& e) {
      // An error after a signal is the signal's doing (a write to a closed pipe after SIGPIPE, a read
      // cut short): reported as the interruption.
      if (warpsearch::pending_interrupt() != 0) return interrupted(warpsearch::pending_interrupt());
      std::cerr << program << ": error: " << warpsearch::printable_excerpt(e.what(), kMaxMessageBytes) << "\n";
      return 1;
    }
  }
  std::cerr << "warpsearch: unknown command " << warpsearch::quoted_excerpt(first) << "\n\n" << kUsage;
  return 2;
}
