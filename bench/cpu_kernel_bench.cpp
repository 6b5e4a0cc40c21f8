// GCUPS of the CPU scan kernels per instruction set and starting width, on real sequences.
//
//   cpu_kernel_bench [--db FASTA] [--queries FASTA] [--isa NAME|all] [--width 8|16|32|all]
//                    [--threads N] [--repeat N] [--max-queries N] [--matrix NAME] [--gap-open N] [--gap-extend N]
//
// The database FASTA is read by a small local parser, encoded as protein, sorted by length and packed
// as a database chunk is (core/subject_batch.hpp). Each query is scored against the whole set
// (threads split it into contiguous parts of equal residue counts); the best of --repeat runs counts.
// Prints one TSV row per query and a summary row per instruction set and width:
// GCUPS = query length x database residues / seconds / 1e9, from wall time (all threads) and from
// the threads' CPU time (per core: the kernel's speed even while other jobs share the cores).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cpu/query_scorer.hpp"
#include "tests/packed_subjects.hpp"

using namespace warpsearch;
using warpsearch::cpu::Isa;
using warpsearch::cpu::Width;

namespace {

struct Record {
  std::string name;
  std::string codes;
};

std::vector<Record> read_fasta(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  const Alphabet& alphabet = Alphabet::protein();
  std::vector<Record> records;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      records.push_back({line.substr(1, line.find_first_of(" \t") - 1), {}});
      continue;
    }
    if (records.empty()) continue;
    for (unsigned char c : line) {
      const std::uint8_t code = alphabet.encode(c);
      if (code != Alphabet::kInvalid && code != Alphabet::kIgnored) records.back().codes += static_cast<char>(code);
    }
  }
  return records;
}

// The records sorted by length and packed as a database chunk (tests/packed_subjects.hpp).
warpsearch::test::PackedSubjects pack_sorted(const std::vector<Record>& records) {
  std::vector<std::string> codes;
  codes.reserve(records.size());
  for (const Record& r : records) codes.push_back(r.codes);
  std::stable_sort(codes.begin(), codes.end(),
                   [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  return warpsearch::test::PackedSubjects(codes, Alphabet::protein().pad_code());
}

// CPU time of the calling thread: on a shared, busy machine it measures the kernel, not the queue.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::string argument(int& i, int argc, char** argv) {
  if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
  return argv[++i];
}

}  // namespace

int main(int argc, char** argv) try {
  std::string db_path = "data/uniprot_sample.fa", query_path = "data/queries.fa", isa_choice = "all",
              width_choice = "all", matrix = "BLOSUM62";
  int threads = 1, repeat = 3, gap_open = 11, gap_extend = 1;
  std::size_t max_queries = 1000;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--db")
      db_path = argument(i, argc, argv);
    else if (flag == "--queries")
      query_path = argument(i, argc, argv);
    else if (flag == "--isa")
      isa_choice = argument(i, argc, argv);
    else if (flag == "--width")
      width_choice = argument(i, argc, argv);
    else if (flag == "--threads")
      threads = std::max(1, std::min(64, std::stoi(argument(i, argc, argv))));
    else if (flag == "--repeat")
      repeat = std::stoi(argument(i, argc, argv));
    else if (flag == "--max-queries")
      max_queries = std::stoul(argument(i, argc, argv));
    else if (flag == "--matrix")
      matrix = argument(i, argc, argv);
    else if (flag == "--gap-open")
      gap_open = std::stoi(argument(i, argc, argv));
    else if (flag == "--gap-extend")
      gap_extend = std::stoi(argument(i, argc, argv));
    else
      throw std::invalid_argument("unknown option " + flag);
  }
  const ScoringScheme scoring(SubstitutionMatrix::builtin(matrix), GapOpen{gap_open}, GapExtend{gap_extend});
  const warpsearch::test::PackedSubjects db = pack_sorted(read_fasta(db_path));
  std::vector<Record> queries = read_fasta(query_path);
  if (queries.size() > max_queries) queries.resize(max_queries);

  // Thread parts: contiguous runs of subjects with about equal residue counts.
  std::vector<std::size_t> bounds = {0};
  {
    std::uint64_t seen = 0;
    for (std::size_t s = 0; s < db.lengths.size(); ++s) {
      seen += db.lengths[s];
      if (seen * static_cast<std::uint64_t>(threads) >= db.residues * bounds.size() &&
          bounds.size() < static_cast<std::size_t>(threads))
        bounds.push_back(s + 1);
    }
    bounds.push_back(db.lengths.size());
  }

  std::printf("# db %s: %zu subjects, %llu residues; %zu queries from %s; %s %d/%d; %d thread(s); best of %d\n",
              db_path.c_str(), db.lengths.size(), static_cast<unsigned long long>(db.residues), queries.size(),
              query_path.c_str(), matrix.c_str(), gap_open, gap_extend, threads, repeat);
  std::printf(
      "isa\tfirst_width\tquery\tquery_length\tseconds\tgcups\tcpu_seconds\tgcups_per_core\tscored_16\tscored_32\n");
  std::vector<std::int32_t> reference_scores;
  for (Isa isa : {Isa::avx512bw, Isa::avx2, Isa::sse41, Isa::scalar}) {
    if (!cpu::isa_supported(isa) || (isa_choice != "all" && isa_choice != cpu::isa_name(isa))) continue;
    for (Width width : {Width::w8, Width::w16, Width::w32}) {
      if (width_choice != "all" && std::stoi(width_choice) != static_cast<int>(width)) continue;
      // One scalar lane gains nothing from narrow widths: scalar runs 32 bits unless asked by name.
      if (isa == Isa::scalar && width != Width::w32 && isa_choice != "scalar") continue;
      double total_seconds = 0, total_cpu_seconds = 0, total_cells = 0;
      for (const auto& query : queries) {
        const cpu::QueryScorer scorer(query.codes, scoring, isa);
        std::vector<std::int32_t> scores(db.lengths.size());
        double best = 1e300, best_cpu = 1e300;
        cpu::ScanStats stats[64];
        double cpu_seconds[64];
        for (int r = 0; r < repeat; ++r) {
          const auto start = std::chrono::steady_clock::now();
          std::vector<std::thread> workers;
          for (std::size_t t = 0; t + 1 < bounds.size(); ++t)
            workers.emplace_back([&, t] {
              const SubjectBatch part = db.batch(bounds[t], bounds[t + 1] - bounds[t]);
              const double cpu_start = thread_cpu_seconds();
              stats[t] = scorer.score(part, scores.data() + bounds[t], width);
              cpu_seconds[t] = thread_cpu_seconds() - cpu_start;
            });
          for (auto& w : workers) w.join();
          best_cpu = std::min(best_cpu, std::accumulate(cpu_seconds, cpu_seconds + bounds.size() - 1, 0.0));
          best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        std::size_t scored_16 = 0, scored_32 = 0;
        for (std::size_t t = 0; t + 1 < bounds.size(); ++t) {
          scored_16 += stats[t].scored_16;
          scored_32 += stats[t].scored_32;
        }
        const double cells = static_cast<double>(query.codes.size()) * static_cast<double>(db.residues);
        std::printf("%s\t%d\t%s\t%zu\t%.4f\t%.2f\t%.4f\t%.2f\t%zu\t%zu\n", cpu::isa_name(isa), static_cast<int>(width),
                    query.name.c_str(), query.codes.size(), best, cells / best / 1e9, best_cpu, cells / best_cpu / 1e9,
                    scored_16, scored_32);
        total_seconds += best;
        total_cpu_seconds += best_cpu;
        total_cells += cells;
        // Every instruction set and width must agree on every score: compare against the first run.
        if (&query == &queries.front()) {
          if (reference_scores.empty())
            reference_scores = scores;
          else if (scores != reference_scores)
            throw std::logic_error(std::string("scores differ: ") + cpu::isa_name(isa));
        }
      }
      std::printf("%s\t%d\tALL\t-\t%.4f\t%.2f\t%.4f\t%.2f\t-\t-\n", cpu::isa_name(isa), static_cast<int>(width),
                  total_seconds, total_cells / total_seconds / 1e9, total_cpu_seconds,
                  total_cells / total_cpu_seconds / 1e9);
      std::fflush(stdout);
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::cerr << "cpu_kernel_bench: " << e.what() << "\n";
  return 1;
}
