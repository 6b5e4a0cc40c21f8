#include "tools/common_options.hpp"

#include <cstdio>

#include <filesystem>
#include <iostream>
#include <utility>

#include "db/usable_cpus.hpp"
#include "tools/commands.hpp"

namespace po = boost::program_options;

namespace warpsearch::tools {

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
    const bool plain = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                               "0123456789_-+=/.,:@%") == std::string::npos;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += " " + (plain ? word : quoted + "'");
  }
  return text;
}

void ScoringOptions::add_to(po::options_description& options) {
  options.add_options()
      ("matrix", po::value(&matrix_)->value_name("NAME|FILE"),
       "protein scoring matrix: BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI matrix file (default BLOSUM62)")
      ("gapopen", po::value(&gap_open_)->value_name("N"), "gap open cost (default 11 protein, 5 nucleotide)")
      ("gapextend", po::value(&gap_extend_)->value_name("N"),
       "gap extend cost (default 1 protein, 2 nucleotide); a gap of length k costs open + k * extend")
      ("match", po::value(&match_)->value_name("N"), "nucleotide match score (default 2)")
      ("mismatch", po::value(&mismatch_)->value_name("N"), "nucleotide mismatch score (default -3)");
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
    substitution = std::filesystem::exists(matrix_) ? SubstitutionMatrix::from_file(matrix_)
                                                    : SubstitutionMatrix::builtin(matrix_);
  }
  // A value given on the command line is kept, even a negative one (which ScoringScheme refuses).
  const int gap_open = gap_open_ < 0 && !given.count("gapopen") ? (nucleotide ? 5 : 11) : gap_open_;
  const int gap_extend = gap_extend_ < 0 && !given.count("gapextend") ? (nucleotide ? 2 : 1) : gap_extend_;
  return ScoringScheme(std::move(substitution), GapOpen{gap_open}, GapExtend{gap_extend});
}

void ComputeOptions::add_to(po::options_description& options, const std::string& verb) {
  options.add_options()
      ("threads", po::value(&threads_)->value_name("N"), "CPU threads (default: the CPUs this process may use: its affinity mask and cgroup quota)")
      ("device", po::value(&device_)->value_name("auto|cpu|gpu"),
       ("where to " + verb + " (default auto: GPU when usable)").c_str());
}

unsigned ComputeOptions::threads() const { return threads_ != 0 ? threads_ : usable_cpus(); }

Device ComputeOptions::device() const {
  if (device_ == "auto") return Device::automatic;
  if (device_ == "cpu") return Device::cpu;
  if (device_ == "gpu") return Device::gpu;
  throw UsageError{"--device takes auto, cpu or gpu, not '" + device_ + "'"};
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
