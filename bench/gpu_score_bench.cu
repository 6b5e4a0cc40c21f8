// GPU scoring throughput: every query of a FASTA file against a FASTA database, on device 0.
//
//   gpu_score_bench --db DB.fa --queries Q.fa [--matrix BLOSUM62] [--open 10] [--extend 1]
//                   [--repeat 3] [--tsv out.tsv] [--label name] [--only-query K] [--gpus N]
//                   [--table-copies K] [--copies-min-waves W]
//
// Reads both files with a small local FASTA reader (plain text; letters outside the alphabet are
// skipped), sorts and packs the subjects as a database chunk, uploads them once, then times each query
// (one warm-up, then the median of --repeat runs, CUDA events around the synchronous score() call) and
// all queries in one call. GCUPS = query length x database residues / seconds / 1e9.
// --gpus N (N > 1): multi-GPU scaling instead: the subjects split into N shares of equal residues (as
// search/gpu_backend.cpp splits a chunk), one GpuScorer and host thread per GPU, all queries in one
// call each; prints the wall time for 1 GPU (the whole set on device 0) and for N, and the speed-up.
// --table-copies K, --copies-min-waves W: copies of the substitution table in shared memory, and from
// how many device-fulls of jobs a bin reads them (GpuScorer; default its defaults).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support.hpp"
#include "core/alphabet.hpp"
#include "core/subject_batch.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "profile/scoring.hpp"
#include "tests/packed_subjects.hpp"

using warpsearch::test::PackedSubjects;

namespace {

struct Record {
  std::string name;
  std::string codes;
};

std::vector<Record> read_fasta(const std::string& path, const warpsearch::Alphabet& alphabet) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<Record> records;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      const auto end = line.find_first_of(" \t\r", 1);
      records.push_back({line.substr(1, end == std::string::npos ? std::string::npos : end - 1), {}});
      continue;
    }
    if (records.empty()) continue;
    for (const char c : line) {
      const std::uint8_t code = alphabet.encode(static_cast<unsigned char>(c));
      if (code < alphabet.size()) records.back().codes.push_back(static_cast<char>(code));
    }
  }
  return records;
}

#define BENCH_CUDA(expr)                                                                        \
  do {                                                                                          \
    const cudaError_t status_ = (expr);                                                         \
    if (status_ != cudaSuccess)                                                                 \
      throw std::runtime_error(std::string(#expr) + " failed: " + cudaGetErrorString(status_)); \
  } while (0)

// Wall time of scoring every query against the subjects split over `devices` GPUs (best of 3).
double time_on_gpus(const warpsearch::SubjectBatch& all, const std::vector<std::string>& queries,
                    const warpsearch::ScoringScheme& scoring, int devices, std::uint64_t residues) {
  std::vector<std::size_t> bounds{0};
  std::uint64_t seen = 0;
  for (std::size_t s = 0; s < all.count && static_cast<int>(bounds.size()) < devices; ++s) {
    seen += all.lengths[s];
    if (static_cast<double>(seen) >= static_cast<double>(residues) * static_cast<double>(bounds.size()) / devices)
      bounds.push_back(s + 1);
  }
  while (static_cast<int>(bounds.size()) <= devices) bounds.push_back(all.count);
  std::vector<warpsearch::gpu::GpuScorer> scorers;
  std::vector<std::vector<std::int32_t>> scores(static_cast<std::size_t>(devices));
  for (int d = 0; d < devices; ++d) {
    scorers.emplace_back(d, scoring);
    warpsearch::SubjectBatch share = all;
    share.word_offsets += bounds[d];
    share.lengths += bounds[d];
    share.count = bounds[d + 1] - bounds[d];
    scorers.back().set_subjects(share);
    scores[static_cast<std::size_t>(d)].resize(queries.size() * share.count);
  }
  double best = 1e30;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int d = 0; d < devices; ++d)
      threads.emplace_back(
          [&, d] { scorers[static_cast<std::size_t>(d)].score(queries, scores[static_cast<std::size_t>(d)].data()); });
    for (auto& t : threads) t.join();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

int scale_over_gpus(const warpsearch::SubjectBatch& all, const std::vector<Record>& records,
                    const warpsearch::ScoringScheme& scoring, int devices, std::uint64_t residues) {
  const int available = warpsearch::gpu::usable_device_count();
  if (available < devices) {
    std::fprintf(stderr, "gpu_score_bench: --gpus %d but only %d usable GPUs\n", devices, available);
    return 2;
  }
  std::vector<std::string> queries;
  double cells = 0;
  for (const auto& q : records) {
    queries.push_back(q.codes);
    cells += static_cast<double>(q.codes.size()) * static_cast<double>(residues);
  }
  const double one = time_on_gpus(all, queries, scoring, 1, residues);
  const double many = time_on_gpus(all, queries, scoring, devices, residues);
  std::printf("gpus\tseconds\tGCUPS\n1\t%.3f\t%.1f\n%d\t%.3f\t%.1f\nspeed-up %.2fx on %d GPUs\n", one,
              cells / one / 1e9, devices, many, cells / many / 1e9, one / many, devices);
  return 0;
}

// The command line (see the top of this file).
struct BenchOptions {
  std::string db_path, query_path, tsv_path, label = "warpsearch";
  std::string matrix_name = "BLOSUM62";
  int open = 10, extend = 1, repeat = 3, only_query = -1, gpus = 1;
  int table_copies = warpsearch::gpu::GpuScorer::kDefaultTableCopies;
  double copies_min_waves = warpsearch::gpu::GpuScorer::kDefaultCopiesMinWaves;
};

BenchOptions parse_options(int argc, char** argv) {
  BenchOptions o;
  for (warpsearch::bench::Arguments args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    auto value = [&] { return args.value(); };
    if (arg == "--db")
      o.db_path = value();
    else if (arg == "--queries")
      o.query_path = value();
    else if (arg == "--matrix")
      o.matrix_name = value();
    else if (arg == "--open")
      o.open = std::stoi(value());
    else if (arg == "--extend")
      o.extend = std::stoi(value());
    else if (arg == "--repeat")
      o.repeat = std::max(1, std::stoi(value()));
    else if (arg == "--tsv")
      o.tsv_path = value();
    else if (arg == "--label")
      o.label = value();
    else if (arg == "--only-query")
      o.only_query = std::stoi(value());
    else if (arg == "--gpus")
      o.gpus = std::max(1, std::stoi(value()));
    else if (arg == "--table-copies")
      o.table_copies = std::stoi(value());
    else if (arg == "--copies-min-waves")
      o.copies_min_waves = std::stod(value());
    else
      throw std::invalid_argument("unknown option " + arg);
  }
  if (o.db_path.empty() || o.query_path.empty()) throw std::invalid_argument("--db and --queries are required");
  return o;
}

// The subjects sorted by length and packed as a database chunk (tests/packed_subjects.hpp).
PackedSubjects pack_subjects(const std::vector<Record>& subjects, const warpsearch::Alphabet& alphabet) {
  std::vector<std::string> codes;
  codes.reserve(subjects.size());
  for (const Record& s : subjects) codes.push_back(s.codes);
  std::stable_sort(codes.begin(), codes.end(),
                   [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  return PackedSubjects(codes, alphabet.pad_code());
}

// Times the synchronous score() call with CUDA events around it.
class CallTimer {
 public:
  explicit CallTimer(warpsearch::gpu::GpuScorer& scorer) : scorer_(scorer) {
    BENCH_CUDA(cudaEventCreate(&start_));
    BENCH_CUDA(cudaEventCreate(&stop_));
  }
  CallTimer(const CallTimer&) = delete;
  CallTimer& operator=(const CallTimer&) = delete;
  ~CallTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  // Seconds of scorer.score(queries, out).
  double time(const std::vector<std::string>& queries, std::int32_t* out) {
    BENCH_CUDA(cudaEventRecord(start_));
    scorer_.score(queries, out);
    BENCH_CUDA(cudaEventRecord(stop_));
    BENCH_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) / 1e3;
  }

 private:
  warpsearch::gpu::GpuScorer& scorer_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Each query timed alone (the median of --repeat calls), printed and written to --tsv, then all
// queries in one call.
void time_queries(const BenchOptions& o, const std::vector<Record>& queries, const PackedSubjects& packed,
                  CallTimer& timer) {
  const std::size_t subjects = packed.lengths.size();
  std::vector<std::int32_t> scores(subjects);
  timer.time({queries.front().codes}, scores.data());  // warm-up

  FILE* tsv = o.tsv_path.empty() ? nullptr : std::fopen(o.tsv_path.c_str(), "w");
  if (!o.tsv_path.empty() && tsv == nullptr) throw std::runtime_error(o.tsv_path + ": cannot write");
  if (tsv) std::fprintf(tsv, "label\tquery\tlength\tdb_residues\tdb_subjects\tseconds\tgcups\ttop_score\n");
  std::printf("%-12s %-24s %6s %10s %9s %8s\n", "label", "query", "length", "ms(median)", "GCUPS", "top");
  const auto residues = static_cast<unsigned long long>(packed.residues);
  double total_cells = 0, total_seconds = 0;
  for (const auto& q : queries) {
    std::vector<double> times;
    for (int r = 0; r < o.repeat; ++r) times.push_back(timer.time({q.codes}, scores.data()));
    const double seconds = warpsearch::bench::median(times);
    const double cells = static_cast<double>(q.codes.size()) * static_cast<double>(packed.residues);
    total_cells += cells;
    total_seconds += seconds;
    const int top = *std::max_element(scores.begin(), scores.end());
    std::printf("%-12s %-24s %6zu %10.3f %9.1f %8d\n", o.label.c_str(), q.name.substr(0, 24).c_str(), q.codes.size(),
                seconds * 1e3, cells / seconds / 1e9, top);
    if (tsv)
      std::fprintf(tsv, "%s\t%s\t%zu\t%llu\t%zu\t%.6f\t%.1f\t%d\n", o.label.c_str(), q.name.c_str(), q.codes.size(),
                   residues, subjects, seconds, cells / seconds / 1e9, top);
  }
  // All queries in one call.
  std::vector<std::string> all;
  for (const auto& q : queries) all.push_back(q.codes);
  std::vector<std::int32_t> all_scores(all.size() * subjects);
  const double batch_seconds = timer.time(all, all_scores.data());
  std::printf(
      "%-12s overall: %.1f GCUPS (sum of per-query medians, %.3f s); one call for all queries: %.1f GCUPS (%.3f s)\n",
      o.label.c_str(), total_cells / total_seconds / 1e9, total_seconds, total_cells / batch_seconds / 1e9,
      batch_seconds);
  if (tsv) {
    std::fprintf(tsv, "%s\tALL_per_query\t0\t%llu\t%zu\t%.6f\t%.1f\t0\n", o.label.c_str(), residues, subjects,
                 total_seconds, total_cells / total_seconds / 1e9);
    std::fprintf(tsv, "%s\tALL_one_call\t0\t%llu\t%zu\t%.6f\t%.1f\t0\n", o.label.c_str(), residues, subjects,
                 batch_seconds, total_cells / batch_seconds / 1e9);
    std::fclose(tsv);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const BenchOptions o = parse_options(argc, argv);
    if (warpsearch::gpu::usable_device_count() == 0) {
      std::cerr << "gpu_score_bench: no usable GPU\n";
      return 2;
    }
    const warpsearch::ScoringScheme scoring(warpsearch::SubstitutionMatrix::builtin(o.matrix_name),
                                            warpsearch::GapOpen{o.open}, warpsearch::GapExtend{o.extend});
    const auto& alphabet = scoring.matrix().alphabet();

    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Record> subjects = read_fasta(o.db_path, alphabet);
    std::vector<Record> queries = read_fasta(o.query_path, alphabet);
    if (o.only_query >= 0) {
      if (static_cast<std::size_t>(o.only_query) >= queries.size())
        throw std::invalid_argument("--only-query out of range");
      queries = {queries[static_cast<std::size_t>(o.only_query)]};
    }
    if (queries.empty()) throw std::invalid_argument(o.query_path + ": no queries");
    const PackedSubjects packed = pack_subjects(subjects, alphabet);
    const warpsearch::SubjectBatch batch = packed.batch();
    const auto t1 = std::chrono::steady_clock::now();

    if (o.gpus > 1) return scale_over_gpus(batch, queries, scoring, o.gpus, packed.residues);

    warpsearch::gpu::GpuScorer scorer(0, scoring, o.table_copies);
    scorer.set_table_copies_min_waves(o.copies_min_waves);
    const auto t_device = std::chrono::steady_clock::now();
    scorer.set_subjects(batch);
    const auto t2 = std::chrono::steady_clock::now();
    const auto setup = scorer.setup_timings();
    std::fprintf(stderr, "device setup %.2f s; set_subjects %.3f s (pack %.3f, upload %.3f, plan %.3f)\n",
                 std::chrono::duration<double>(t_device - t1).count(),
                 std::chrono::duration<double>(t2 - t_device).count(), setup.pack_seconds, setup.upload_seconds,
                 setup.plan_seconds);
    std::fprintf(stderr,
                 "%s: %zu subjects, %llu residues (longest %u); %zu queries; read+pack %.2f s, upload %.2f s; %s\n",
                 o.db_path.c_str(), subjects.size(), static_cast<unsigned long long>(packed.residues),
                 packed.lengths.empty() ? 0u : packed.lengths.back(), queries.size(),
                 std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(),
                 scorer.device_name().c_str());
    CallTimer timer(scorer);
    time_queries(o, queries, packed, timer);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "gpu_score_bench: " << e.what() << "\n";
    return 1;
  }
}
