// GPU pair aligner throughput: score, start and end of many pairs on device 0.
//
//   gpu_pair_bench --query A.fa --target B.fa            record i of A with record i of B
//   gpu_pair_bench --fasta F.fa --pairs N [--min-length 100] [--max-length 1000] [--seed 1]
//                                                        N pairs of two records drawn from F (seeded)
//   common: [--mode local|global|semiglobal] [--matrix BLOSUM62] [--open 11] [--extend 1]
//           [--match 2 --mismatch -3 (DNA; open 5, extend 2 unless given)] [--repeat 3]
//           [--check K] [--tsv out.tsv] [--label name] [--trace timeline.tsv]
//           [--no-early-exit] [--early-exit-steps 8] [--packed] [--packed-limit N] [--no-reverse-first]
//           (GpuPairAligner::KernelOptions) [--first-percent 50] [--sub-batch-pairs 8192]
//           [--last-percent 100] [--max-sub-batches 8] [--sub-batch-residues 4194304] [--input-order]
//           (SubBatchLimits: first_percent, min_pairs, last_percent, max_parts, residues, largest_first)
//
// FASTA files may be gzip-compressed (db/fasta.hpp). Each run is one align() call on all pairs
// (packing, upload, forward and reverse passes, results back): one warm-up, then the median of
// --repeat runs. GCUPS = sum of query length x target length / seconds / 1e9 (the reverse passes'
// cells are extra work, not counted). "passes" = the device time from the first forward kernel to the
// last spans back (GpuPairAligner::Timings::passes); pack/upload/forward/reverse overlap (sub-batches
// are pipelined) and are printed for the breakdown. --check K compares K evenly spread pairs with reference::span on
// the CPU and exits 1 on any difference.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "core/alignment_mode.hpp"
#include "db/fasta.hpp"
#include "kernels/gpu/pair_aligner.hpp"
#include "kernels/reference/reference.hpp"
#include "profile/scoring.hpp"

namespace {

using warpsearch::AlignmentMode;

// Every record of a FASTA file; `type` is detected when not given.
std::vector<warpsearch::SequenceRecord> read_all(const std::string& path,
                                                 std::optional<warpsearch::SequenceType>& type) {
  warpsearch::FastaReader reader(path, type);
  type = reader.type();
  std::vector<warpsearch::SequenceRecord> records;
  warpsearch::SequenceRecord record;
  while (reader.next(record)) records.push_back(record);
  return records;
}

// The command line (see the top of this file).
struct BenchOptions {
  std::string query_path, target_path, fasta_path, tsv_path, trace_path, label = "warpsearch", mode_name = "local";
  std::string matrix_name = "BLOSUM62";
  std::optional<int> open, extend;
  int match = 2, mismatch = -3, repeat = 3, check = 0;
  warpsearch::gpu::GpuPairAligner::KernelOptions kernel_options;
  warpsearch::gpu::GpuPairAligner::SubBatchLimits sub_batch_limits;
  std::size_t pair_count = 100000, min_length = 100, max_length = 1000;
  std::uint64_t seed = 1;
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
    else if (arg == "--fasta")
      o.fasta_path = value();
    else if (arg == "--pairs")
      o.pair_count = std::stoull(value());
    else if (arg == "--min-length")
      o.min_length = std::stoull(value());
    else if (arg == "--max-length")
      o.max_length = std::stoull(value());
    else if (arg == "--seed")
      o.seed = std::stoull(value());
    else if (arg == "--mode")
      o.mode_name = value();
    else if (arg == "--matrix")
      o.matrix_name = value();
    else if (arg == "--open")
      o.open = std::stoi(value());
    else if (arg == "--extend")
      o.extend = std::stoi(value());
    else if (arg == "--match")
      o.match = std::stoi(value());
    else if (arg == "--mismatch")
      o.mismatch = std::stoi(value());
    else if (arg == "--repeat")
      o.repeat = std::max(1, std::stoi(value()));
    else if (arg == "--check")
      o.check = std::stoi(value());
    else if (arg == "--tsv")
      o.tsv_path = value();
    else if (arg == "--label")
      o.label = value();
    else if (arg == "--trace")
      o.trace_path = value();
    else if (arg == "--no-early-exit")
      o.kernel_options.reverse_early_exit = false;
    else if (arg == "--early-exit-steps")
      o.kernel_options.early_exit_check_steps = std::stoi(value());
    else if (arg == "--packed")
      o.kernel_options.packed_lanes = true;
    else if (arg == "--no-reverse-first")
      o.kernel_options.reverse_first = false;
    else if (arg == "--packed-limit")
      o.kernel_options.packed_length_limit = std::stoi(value());
    else if (arg == "--first-percent")
      o.sub_batch_limits.first_percent = static_cast<std::uint32_t>(std::stoul(value()));
    else if (arg == "--last-percent")
      o.sub_batch_limits.last_percent = static_cast<std::uint32_t>(std::stoul(value()));
    else if (arg == "--input-order")
      o.sub_batch_limits.largest_first = false;
    else if (arg == "--max-sub-batches")
      o.sub_batch_limits.max_parts = std::stoull(value());
    else if (arg == "--sub-batch-pairs")
      o.sub_batch_limits.min_pairs = std::stoull(value());
    else if (arg == "--sub-batch-residues")
      o.sub_batch_limits.residues = std::stoull(value());
    else
      throw std::invalid_argument("unknown option " + arg);
  }
  return o;
}

// The pairs: residue codes owned here, views handed to the aligner; type: the files' sequence type.
struct Pairs {
  std::vector<std::string> queries, targets;
  std::optional<warpsearch::SequenceType> type;
};

Pairs read_pairs(const BenchOptions& o) {
  Pairs pairs;
  if (!o.fasta_path.empty()) {
    const auto records = read_all(o.fasta_path, pairs.type);
    std::vector<const std::string*> pool;
    for (const auto& r : records)
      if (r.codes.size() >= o.min_length && r.codes.size() <= o.max_length) pool.push_back(&r.codes);
    if (pool.size() < 2)
      throw std::invalid_argument(o.fasta_path + ": fewer than 2 records of " + std::to_string(o.min_length) + ".." +
                                  std::to_string(o.max_length) + " residues");
    std::mt19937_64 rng(o.seed);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    for (std::size_t k = 0; k < o.pair_count; ++k) {
      const std::size_t a = pick(rng);
      std::size_t b = pick(rng);
      if (b == a) b = (a + 1) % pool.size();
      pairs.queries.push_back(*pool[a]);
      pairs.targets.push_back(*pool[b]);
    }
  } else if (!o.query_path.empty() && !o.target_path.empty()) {
    for (auto& r : read_all(o.query_path, pairs.type)) pairs.queries.push_back(std::move(r.codes));
    for (auto& r : read_all(o.target_path, pairs.type)) pairs.targets.push_back(std::move(r.codes));
    if (pairs.queries.size() != pairs.targets.size())
      throw std::invalid_argument(o.query_path + " holds " + std::to_string(pairs.queries.size()) + " records, " +
                                  o.target_path + " " + std::to_string(pairs.targets.size()));
  } else {
    throw std::invalid_argument("give --fasta F (with --pairs N) or --query A --target B");
  }
  return pairs;
}

// The median times of --repeat align() calls after a warm-up: the whole call, and the passes only.
struct Measured {
  double seconds = 0, passes_seconds = 0;
  warpsearch::gpu::GpuPairAligner::Timings timings;  // of the last call
};

Measured time_align(warpsearch::gpu::GpuPairAligner& aligner, const std::vector<warpsearch::gpu::PairTask>& tasks,
                    AlignmentMode mode, int repeat, std::vector<warpsearch::Span>& spans) {
  aligner.align(tasks, mode, spans);  // warm-up
  std::vector<double> seconds, kernel_seconds;
  Measured measured;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    aligner.align(tasks, mode, spans);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    measured.timings = aligner.last_timings();
    kernel_seconds.push_back(measured.timings.passes);
  }
  measured.seconds = warpsearch::bench::median(seconds);
  measured.passes_seconds = warpsearch::bench::median(kernel_seconds);
  return measured;
}

// One more call, traced (its events cost a little time, so not timed), its events to `path`.
void write_trace(warpsearch::gpu::GpuPairAligner& aligner, const std::vector<warpsearch::gpu::PairTask>& tasks,
                 AlignmentMode mode, std::vector<warpsearch::Span>& spans, const std::string& path) {
  aligner.set_trace(true);
  aligner.align(tasks, mode, spans);
  aligner.set_trace(false);
  std::ofstream trace(path);
  trace << "what\tsub_batch\tstream\tshape\tjobs\tbegin_ms\tend_ms\n";
  for (const auto& e : aligner.last_trace())
    trace << e.what << '\t' << e.sub_batch << '\t' << e.stream << '\t' << e.shape << '\t' << e.jobs << '\t'
          << e.begin * 1e3 << '\t' << e.end * 1e3 << '\n';
  if (!trace) throw std::runtime_error("cannot write " + path);
}

// Compares `check` evenly spread pairs with reference::span; returns the mismatches (the first ten
// printed).
int check_spans(const Pairs& pairs, const std::vector<warpsearch::Span>& spans,
                const warpsearch::ScoringScheme& scoring, AlignmentMode mode, int check) {
  int mismatches = 0;
  if (check <= 0 || spans.empty()) return 0;
  const std::size_t step = std::max<std::size_t>(1, spans.size() / static_cast<std::size_t>(check));
  int checked = 0;
  for (std::size_t k = 0; k < spans.size() && checked < check; k += step, ++checked) {
    const auto e = warpsearch::reference::span(pairs.queries[k], pairs.targets[k], scoring, mode);
    const auto& g = spans[k];
    if (g.score != e.score || g.query_begin != e.query_begin || g.query_end != e.query_end ||
        g.subject_begin != e.subject_begin || g.subject_end != e.subject_end) {
      if (++mismatches <= 10)
        std::printf("MISMATCH pair %zu: GPU %lld q[%u,%u) t[%u,%u), reference %lld q[%u,%u) t[%u,%u)\n", k,
                    static_cast<long long>(g.score), g.query_begin, g.query_end, g.subject_begin, g.subject_end,
                    static_cast<long long>(e.score), e.query_begin, e.query_end, e.subject_begin, e.subject_end);
    }
  }
  std::printf("check: %d pairs against reference::span, %d mismatches\n", checked, mismatches);
  return mismatches;
}

// The figures printed, and appended as a row to --tsv (a header first when the file is new or empty).
struct Report {
  std::string device;
  std::size_t pairs = 0;
  std::uint64_t residues = 0;
  Measured measured;
  int mismatches = 0;
};

void print_report(const BenchOptions& o, const warpsearch::ScoringScheme& scoring, const Report& report) {
  const auto& timings = report.measured.timings;
  const double t = report.measured.seconds, tk = report.measured.passes_seconds;
  const double cells = static_cast<double>(timings.forward_cells);
  std::printf(
      "%s: %zu pairs, %llu residues, %s, %s %d/%d, %.3g cells (+%.3g reverse, %.3g of them up to the "
      "starts' rows; early exit %s, packed %s)\n",
      report.device.c_str(), report.pairs, static_cast<unsigned long long>(report.residues), o.mode_name.c_str(),
      scoring.matrix().name().c_str(), scoring.gap_open(), scoring.gap_extend(), cells,
      static_cast<double>(timings.reverse_cells), static_cast<double>(timings.reverse_cells_to_start),
      o.kernel_options.reverse_early_exit ? "on" : "off", o.kernel_options.packed_lanes ? "on" : "off");
  std::printf(
      "overall: %.4f s median of %d, %.1f GCUPS, %.0f pairs/s; passes only %.4f s, %.1f GCUPS "
      "(%u sub-batches; overlapping: host pack %.4f, upload %.4f, forward %.4f, reverse %.4f)\n",
      t, o.repeat, cells / t / 1e9, static_cast<double>(report.pairs) / t, tk, cells / tk / 1e9, timings.sub_batches,
      timings.pack, timings.upload, timings.forward, timings.reverse);
  std::printf("host: first upload enqueued after %.4f s, copying %.4f, enqueuing %.4f, waiting %.4f\n",
              timings.host_first_upload, timings.host_copy, timings.host_enqueue, timings.host_wait);
}

void append_tsv(const BenchOptions& o, const warpsearch::ScoringScheme& scoring, const Report& report) {
  const auto& timings = report.measured.timings;
  const double t = report.measured.seconds, tk = report.measured.passes_seconds;
  const double cells = static_cast<double>(timings.forward_cells);
  std::ifstream existing(o.tsv_path);
  const bool header = !existing.good() || existing.peek() == std::ifstream::traits_type::eof();
  existing.close();
  std::ofstream tsv(o.tsv_path, std::ios::app);
  if (header)
    tsv << "label\tdevice\tmode\tscoring\tpairs\tresidues\tcells\treverse_cells\tseconds\tgcups\tpairs_per_s\t"
           "passes_seconds\tpasses_gcups\tpack_s\tupload_s\tforward_s\treverse_s\tsub_batches\tchecked_mismatches\t"
           "reverse_cells_to_start\tearly_exit\tpacked\tfirst_percent\n";
  tsv << o.label << '\t' << report.device << '\t' << o.mode_name << '\t' << scoring.matrix().name() << ' '
      << scoring.gap_open() << '/' << scoring.gap_extend() << '\t' << report.pairs << '\t' << report.residues << '\t'
      << timings.forward_cells << '\t' << timings.reverse_cells << '\t' << t << '\t' << cells / t / 1e9 << '\t'
      << static_cast<double>(report.pairs) / t << '\t' << tk << '\t' << cells / tk / 1e9 << '\t' << timings.pack << '\t'
      << timings.upload << '\t' << timings.forward << '\t' << timings.reverse << '\t' << timings.sub_batches << '\t'
      << report.mismatches << '\t' << timings.reverse_cells_to_start << '\t'
      << (o.kernel_options.reverse_early_exit ? o.kernel_options.early_exit_check_steps : 0) << '\t'
      << (o.kernel_options.packed_lanes ? 1 : 0) << '\t' << o.sub_batch_limits.first_percent << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const BenchOptions o = parse_options(argc, argv);
    const AlignmentMode mode = warpsearch::parse_alignment_mode(o.mode_name);  // xdrop: the aligner rejects it
    const Pairs pairs = read_pairs(o);
    const bool dna = *pairs.type == warpsearch::SequenceType::nucleotide;
    const warpsearch::ScoringScheme scoring(dna ? warpsearch::SubstitutionMatrix::nucleotide(o.match, o.mismatch)
                                                : warpsearch::SubstitutionMatrix::builtin(o.matrix_name),
                                            warpsearch::GapOpen{o.open.value_or(dna ? 5 : 11)},
                                            warpsearch::GapExtend{o.extend.value_or(dna ? 2 : 1)});
    std::vector<warpsearch::gpu::PairTask> tasks(pairs.queries.size());
    Report report;
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      tasks[k] = {pairs.queries[k], pairs.targets[k]};
      report.residues += pairs.queries[k].size() + pairs.targets[k].size();
    }
    report.pairs = tasks.size();

    warpsearch::gpu::GpuPairAligner aligner(0, scoring);
    aligner.set_kernel_options(o.kernel_options);
    aligner.set_sub_batch_limits(o.sub_batch_limits);
    report.device = aligner.device_name();
    std::vector<warpsearch::Span> spans;
    report.measured = time_align(aligner, tasks, mode, o.repeat, spans);
    if (!o.trace_path.empty()) write_trace(aligner, tasks, mode, spans, o.trace_path);
    print_report(o, scoring, report);
    report.mismatches = check_spans(pairs, spans, scoring, mode, o.check);
    if (!o.tsv_path.empty()) append_tsv(o, scoring, report);
    return report.mismatches == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::cerr << "gpu_pair_bench: " << error.what() << '\n';
    return 2;
  }
}
