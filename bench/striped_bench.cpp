// GCUPS of the striped pair kernels (kernels/cpu/striped.hpp) per instruction set, width and mode, and the
// time of a whole pair alignment (cpu::align_pair) with each instruction set's passes.
//
//   striped_bench [--fasta FASTA] [--lengths 500,2000] [--repeat N] [--min-seconds S]
//
// Pairs are real proteins: for each length L, the query is the first record of the FASTA (default
// data/uniprot_sample.fa) with at least L residues, cut to L; the "unrelated" subject is the next such
// record, cut to L; the "related" subject is the query with 30% of positions mutated (substitutions and
// 1..4-residue insertions and deletions, seeded), cut or padded to L. BLOSUM62, gap open 11, extend 1.
// Each measurement repeats the call until --min-seconds of this thread's CPU time have passed, --repeat
// times, and keeps the best: CPU time, not wall time, because the benchmark machines are shared (the
// kernel's speed on a core, even while other jobs take turns on it).
// Prints TSV: kind (kernel | align), isa, width, mode, pair, m, n, CPU seconds per call, GCUPS (m * n / s).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/striped.hpp"
#include "tests/random_sequences.hpp"

using namespace warpsearch;
using cpu::Isa;
using cpu::Width;

namespace {

std::vector<std::string> read_fasta_codes(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  const Alphabet& alphabet = Alphabet::protein();
  std::vector<std::string> records;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      records.emplace_back();
      continue;
    }
    if (records.empty()) continue;
    for (unsigned char c : line) {
      const std::uint8_t code = alphabet.encode(c);
      if (code != Alphabet::kInvalid && code != Alphabet::kIgnored) records.back() += static_cast<char>(code);
    }
  }
  return records;
}

double thread_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

double best_seconds(const std::function<void()>& call, int repeat, double min_seconds) {
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const double start = thread_seconds();
    std::size_t calls = 0;
    double elapsed = 0;
    do {
      call();
      ++calls;
      elapsed = thread_seconds() - start;
    } while (elapsed < min_seconds);
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string fasta = "data/uniprot_sample.fa";
  std::vector<std::size_t> lengths = {500, 2000};
  int repeat = 3;
  double min_seconds = 0.2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++a];
    };
    if (arg == "--fasta") {
      fasta = value();
    } else if (arg == "--lengths") {
      lengths.clear();
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');) lengths.push_back(std::stoul(item));
    } else if (arg == "--repeat") {
      repeat = std::stoi(value());
    } else if (arg == "--min-seconds") {
      min_seconds = std::stod(value());
    } else {
      throw std::invalid_argument("unknown option " + arg);
    }
  }

  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const std::vector<std::string> records = read_fasta_codes(fasta);
  std::vector<Isa> isas;
  for (Isa isa : {Isa::avx512bw, Isa::avx2, Isa::sse41, Isa::scalar})
    if (cpu::isa_supported(isa)) isas.push_back(isa);

  std::cout << "kind\tisa\twidth\tmode\tpair\tm\tn\tseconds\tgcups\n";
  std::mt19937_64 rng(2026);
  for (std::size_t length : lengths) {
    std::vector<const std::string*> long_enough;
    for (const auto& record : records)
      if (record.size() >= length) long_enough.push_back(&record);
    if (long_enough.size() < 2)
      throw std::runtime_error(fasta + ": fewer than two records of " + std::to_string(length) + " residues");
    const std::string query = long_enough[0]->substr(0, length);
    const std::string unrelated = long_enough[1]->substr(0, length);
    std::string related = warpsearch::test::mutated_codes(rng, query, 20, 0.3, 4);
    related.resize(length, query.back());
    const std::pair<const char*, const std::string*> subjects[] = {{"related", &related}, {"unrelated", &unrelated}};

    for (const auto& [pair_name, subject] : subjects) {
      const double cells = static_cast<double>(query.size()) * static_cast<double>(subject->size());
      auto row = [&](const char* kind, Isa isa, const char* width, AlignmentMode mode, double seconds) {
        std::printf("%s\t%s\t%s\t%s\t%s\t%zu\t%zu\t%.6g\t%.3f\n", kind, cpu::isa_name(isa), width,
                    alignment_mode_name(mode), pair_name, query.size(), subject->size(), seconds,
                    cells / seconds / 1e9);
        std::fflush(stdout);
      };
      for (Isa isa : isas) {
        const cpu::StripedScorer scorer(query, scoring, isa);
        for (AlignmentMode mode : {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal})
          for (Width width : {Width::w16, Width::w32}) {
            if (!scorer.end_at_width(*subject, mode, width)) continue;  // declined (saturated): not this width
            const double seconds =
                best_seconds([&] { (void)scorer.end_at_width(*subject, mode, width); }, repeat, min_seconds);
            row("kernel", isa, width == Width::w16 ? "16" : "32", mode, seconds);
          }
        // The whole alignment: forward and reverse passes on this instruction set, the same traceback.
        const double seconds =
            best_seconds([&] { (void)cpu::align_pair(query, *subject, scoring, AlignmentMode::local, {}, isa); },
                         repeat, min_seconds);
        row("align", isa, "auto", AlignmentMode::local, seconds);
      }
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::cerr << "striped_bench: " << e.what() << "\n";
  return 1;
}
