// GPU X-drop aligner throughput: seeded X-drop alignments of many pairs on device 0.
//
//   gpu_xdrop_bench --query A.fa --target B.fa --pairs PAIRS.tsv [--xdrop 50] [--match 1 --mismatch -1]
//                   [--gapopen 0 --gapextend 1] [--repeat 3] [--check K] [--tsv out.tsv] [--label name]
//
// PAIRS.tsv: `query_id target_id query_seed target_seed seed_length` (1-based seeds), the format of
// bench/align_make_data.py reads. Each run is one GpuXdropAligner::align() call on all pairs (seeds,
// packing, upload, the shared-memory and global-memory runs, results back): one warm-up, then the median
// of --repeat runs. GCUPS = the computed cells (the band, as the CPU engine counts them) / seconds / 1e9;
// "kernels" = the device time of the extension kernels alone. --check K compares K evenly spread pairs
// with XdropAligner and exits 1 on any difference.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/bench_support.hpp"
#include "db/fasta.hpp"
#include "kernels/gpu/gpu_xdrop.hpp"
#include "kernels/reference/banded_xdrop.hpp"
#include "profile/scoring.hpp"

namespace {

std::unordered_map<std::string, std::string> read_all(const std::string& path,
                                                      std::optional<warpsearch::SequenceType>& type) {
  warpsearch::FastaReader reader(path, type);
  type = reader.type();
  std::unordered_map<std::string, std::string> records;
  warpsearch::SequenceRecord record;
  while (reader.next(record)) records[record.id] = record.codes;
  return records;
}

// The command line (see the top of this file).
struct BenchOptions {
  std::string query_path, target_path, pairs_path, tsv_path, label = "warpsearch_gpu";
  int match = 1, mismatch = -1, open = 0, extend = 1, xdrop = 50, repeat = 3, check = 0;
};

BenchOptions parse_options(int argc, char** argv) {
  BenchOptions o;
  for (warpsearch::bench::Arguments args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    auto value = [&] { return args.value(); };
    if (arg == "--query")
      o.query_path = value();
    else if (arg == "--target")
      o.target_path = value();
    else if (arg == "--pairs")
      o.pairs_path = value();
    else if (arg == "--xdrop")
      o.xdrop = std::stoi(value());
    else if (arg == "--match")
      o.match = std::stoi(value());
    else if (arg == "--mismatch")
      o.mismatch = std::stoi(value());
    else if (arg == "--gapopen")
      o.open = std::stoi(value());
    else if (arg == "--gapextend")
      o.extend = std::stoi(value());
    else if (arg == "--repeat")
      o.repeat = std::max(1, std::stoi(value()));
    else if (arg == "--check")
      o.check = std::stoi(value());
    else if (arg == "--tsv")
      o.tsv_path = value();
    else if (arg == "--label")
      o.label = value();
    else
      throw std::invalid_argument("unknown option " + arg);
  }
  if (o.query_path.empty() || o.target_path.empty() || o.pairs_path.empty())
    throw std::invalid_argument("give --query A.fa --target B.fa --pairs PAIRS.tsv");
  return o;
}

// The tasks the pairs file lists, pointing into queries and targets (by ID); residues: their sum.
std::vector<warpsearch::gpu::XdropTask> read_tasks(const std::string& pairs_path,
                                                   const std::unordered_map<std::string, std::string>& queries,
                                                   const std::unordered_map<std::string, std::string>& targets,
                                                   std::uint64_t& residues) {
  std::vector<warpsearch::gpu::XdropTask> tasks;
  std::ifstream pairs(pairs_path);
  if (!pairs) throw std::runtime_error(pairs_path + ": cannot be read");
  for (std::string line; std::getline(pairs, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string a, b;
    std::uint32_t query_seed = 0, target_seed = 0, length = 0;
    if (!(fields >> a >> b >> query_seed >> target_seed >> length) || query_seed == 0 || target_seed == 0)
      throw std::invalid_argument(pairs_path + ": not 'query target query_seed target_seed length': " + line);
    const auto q = queries.find(a);
    const auto t = targets.find(b);
    if (q == queries.end() || t == targets.end()) throw std::invalid_argument(pairs_path + ": unknown ID in: " + line);
    tasks.push_back({q->second, t->second, warpsearch::Seed{query_seed - 1, target_seed - 1, length}});
    residues += q->second.size() + t->second.size();
  }
  return tasks;
}

// Compares `check` evenly spread pairs with XdropAligner; returns the mismatches (the first ten printed).
int check_spans(const std::vector<warpsearch::gpu::XdropTask>& tasks, const std::vector<warpsearch::XdropSpan>& spans,
                const warpsearch::ScoringScheme& scoring, warpsearch::XDrop x, int check) {
  int mismatches = 0;
  if (check <= 0 || tasks.empty()) return 0;
  warpsearch::XdropAligner cpu(scoring, x);
  const std::size_t step = std::max<std::size_t>(1, tasks.size() / static_cast<std::size_t>(check));
  int checked = 0;
  for (std::size_t k = 0; k < tasks.size() && checked < check; k += step, ++checked) {
    const auto e = cpu.align(tasks[k].query, tasks[k].target, tasks[k].seed, false).span;
    const auto& g = spans[k];
    if (g.score != e.score || g.query_begin != e.query_begin || g.query_end != e.query_end ||
        g.subject_begin != e.subject_begin || g.subject_end != e.subject_end) {
      if (++mismatches <= 10)
        std::printf("MISMATCH pair %zu: GPU %lld q[%u,%u) t[%u,%u), CPU %lld q[%u,%u) t[%u,%u)\n", k,
                    static_cast<long long>(g.score), g.query_begin, g.query_end, g.subject_begin, g.subject_end,
                    static_cast<long long>(e.score), e.query_begin, e.query_end, e.subject_begin, e.subject_end);
    }
  }
  std::printf("check: %d pairs against XdropAligner, %d mismatches\n", checked, mismatches);
  return mismatches;
}

// The run's figures: the median call and kernel times of --repeat calls, and the last call's timings.
struct Report {
  std::string device;
  std::size_t pairs = 0;
  std::uint64_t residues = 0;
  double seconds = 0, kernel_seconds = 0;
  warpsearch::gpu::GpuXdropAligner::Timings timings;
  int mismatches = 0;
};

// A row appended to --tsv (a header first when the file is new or empty).
void append_tsv(const BenchOptions& o, const Report& report) {
  const auto& timings = report.timings;
  const double t = report.seconds, tk = report.kernel_seconds, cells = static_cast<double>(timings.cells);
  std::ifstream existing(o.tsv_path);
  const bool header = !existing.good() || existing.peek() == std::ifstream::traits_type::eof();
  existing.close();
  std::ofstream tsv(o.tsv_path, std::ios::app);
  if (header)
    tsv << "label\tdevice\txdrop\tscoring\tpairs\tresidues\tcells\twasted_cells\tseconds\tgcups\tpairs_per_s\t"
           "kernel_seconds\tkernel_gcups\tupload_s\thost_s\tdevice_jobs\trerun_jobs\thost_jobs\tchecked_"
           "mismatches\n";
  tsv << o.label << '\t' << report.device << '\t' << o.xdrop << '\t' << o.match << '/' << o.mismatch << ' ' << o.open
      << '/' << o.extend << '\t' << report.pairs << '\t' << report.residues << '\t' << timings.cells << '\t'
      << timings.wasted_cells << '\t' << t << '\t' << cells / t / 1e9 << '\t' << static_cast<double>(report.pairs) / t
      << '\t' << tk << '\t' << cells / tk / 1e9 << '\t' << timings.upload << '\t' << timings.host << '\t'
      << timings.device_jobs << '\t' << timings.rerun_jobs << '\t' << timings.host_jobs << '\t' << report.mismatches
      << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const BenchOptions o = parse_options(argc, argv);
    std::optional<warpsearch::SequenceType> type = warpsearch::SequenceType::nucleotide;
    const auto queries = read_all(o.query_path, type);
    const auto targets = read_all(o.target_path, type);
    Report report;
    const std::vector<warpsearch::gpu::XdropTask> tasks = read_tasks(o.pairs_path, queries, targets, report.residues);
    report.pairs = tasks.size();
    const warpsearch::ScoringScheme scoring(warpsearch::SubstitutionMatrix::nucleotide(o.match, o.mismatch),
                                            warpsearch::GapOpen{o.open}, warpsearch::GapExtend{o.extend});
    const warpsearch::XDrop x{o.xdrop};

    warpsearch::gpu::GpuXdropAligner aligner(0, scoring, x);
    report.device = aligner.device_name();
    std::vector<warpsearch::XdropSpan> spans;
    aligner.align(tasks, spans);  // warm-up (buffers, pinned memory)
    std::vector<double> seconds, kernel_seconds;
    for (int r = 0; r < o.repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      aligner.align(tasks, spans);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      report.timings = aligner.last_timings();
      kernel_seconds.push_back(report.timings.kernels);
    }
    report.seconds = warpsearch::bench::median(seconds);
    report.kernel_seconds = warpsearch::bench::median(kernel_seconds);
    const auto& timings = report.timings;
    const double t = report.seconds, tk = report.kernel_seconds, cells = static_cast<double>(timings.cells);
    std::printf(
        "%s: %zu pairs, %llu residues, X = %d, %d/%d %d/%d, %.4g cells (%.3g wasted, %llu of %llu jobs rerun, "
        "%llu on the CPU)\n",
        report.device.c_str(), tasks.size(), static_cast<unsigned long long>(report.residues), o.xdrop, o.match,
        o.mismatch, o.open, o.extend, cells, static_cast<double>(timings.wasted_cells),
        static_cast<unsigned long long>(timings.rerun_jobs), static_cast<unsigned long long>(timings.device_jobs),
        static_cast<unsigned long long>(timings.host_jobs));
    std::printf(
        "call: %.4f s median of %d, %.1f GCUPS, %.0f pairs/s; kernels %.4f s, %.1f GCUPS (upload %.4f, host %.4f)\n", t,
        o.repeat, cells / t / 1e9, static_cast<double>(tasks.size()) / t, tk, cells / tk / 1e9, timings.upload,
        timings.host);
    report.mismatches = check_spans(tasks, spans, scoring, x, o.check);
    if (!o.tsv_path.empty()) append_tsv(o, report);
    return report.mismatches == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::cerr << "gpu_xdrop_bench: " << error.what() << '\n';
    return 2;
  }
}
