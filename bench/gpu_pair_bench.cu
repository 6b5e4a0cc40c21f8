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

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string query_path, target_path, fasta_path, tsv_path, trace_path, label = "warpsearch", mode_name = "local";
    std::string matrix_name = "BLOSUM62";
    std::optional<int> open, extend;
    int match = 2, mismatch = -3, repeat = 3, check = 0;
    warpsearch::gpu::GpuPairAligner::KernelOptions kernel_options;
    warpsearch::gpu::GpuPairAligner::SubBatchLimits sub_batch_limits;
    std::size_t pair_count = 100000, min_length = 100, max_length = 1000;
    std::uint64_t seed = 1;
    for (warpsearch::bench::Arguments args(argc, argv); args.next();) {
      const std::string& arg = args.option();
      auto value = [&] { return args.value(); };
      if (arg == "--query")
        query_path = value();
      else if (arg == "--target")
        target_path = value();
      else if (arg == "--fasta")
        fasta_path = value();
      else if (arg == "--pairs")
        pair_count = std::stoull(value());
      else if (arg == "--min-length")
        min_length = std::stoull(value());
      else if (arg == "--max-length")
        max_length = std::stoull(value());
      else if (arg == "--seed")
        seed = std::stoull(value());
      else if (arg == "--mode")
        mode_name = value();
      else if (arg == "--matrix")
        matrix_name = value();
      else if (arg == "--open")
        open = std::stoi(value());
      else if (arg == "--extend")
        extend = std::stoi(value());
      else if (arg == "--match")
        match = std::stoi(value());
      else if (arg == "--mismatch")
        mismatch = std::stoi(value());
      else if (arg == "--repeat")
        repeat = std::max(1, std::stoi(value()));
      else if (arg == "--check")
        check = std::stoi(value());
      else if (arg == "--tsv")
        tsv_path = value();
      else if (arg == "--label")
        label = value();
      else if (arg == "--trace")
        trace_path = value();
      else if (arg == "--no-early-exit")
        kernel_options.reverse_early_exit = false;
      else if (arg == "--early-exit-steps")
        kernel_options.early_exit_check_steps = std::stoi(value());
      else if (arg == "--packed")
        kernel_options.packed_lanes = true;
      else if (arg == "--no-reverse-first")
        kernel_options.reverse_first = false;
      else if (arg == "--packed-limit")
        kernel_options.packed_length_limit = std::stoi(value());
      else if (arg == "--first-percent")
        sub_batch_limits.first_percent = static_cast<std::uint32_t>(std::stoul(value()));
      else if (arg == "--last-percent")
        sub_batch_limits.last_percent = static_cast<std::uint32_t>(std::stoul(value()));
      else if (arg == "--input-order")
        sub_batch_limits.largest_first = false;
      else if (arg == "--max-sub-batches")
        sub_batch_limits.max_parts = std::stoull(value());
      else if (arg == "--sub-batch-pairs")
        sub_batch_limits.min_pairs = std::stoull(value());
      else if (arg == "--sub-batch-residues")
        sub_batch_limits.residues = std::stoull(value());
      else
        throw std::invalid_argument("unknown option " + arg);
    }
    const AlignmentMode mode = warpsearch::parse_alignment_mode(mode_name);  // xdrop: the aligner rejects it

    // The pairs: residue codes owned here, views handed to the aligner.
    std::vector<std::string> queries, targets;
    std::optional<warpsearch::SequenceType> type;
    if (!fasta_path.empty()) {
      const auto records = read_all(fasta_path, type);
      std::vector<const std::string*> pool;
      for (const auto& r : records)
        if (r.codes.size() >= min_length && r.codes.size() <= max_length) pool.push_back(&r.codes);
      if (pool.size() < 2)
        throw std::invalid_argument(fasta_path + ": fewer than 2 records of " + std::to_string(min_length) + ".." +
                                    std::to_string(max_length) + " residues");
      std::mt19937_64 rng(seed);
      std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
      for (std::size_t k = 0; k < pair_count; ++k) {
        const std::size_t a = pick(rng);
        std::size_t b = pick(rng);
        if (b == a) b = (a + 1) % pool.size();
        queries.push_back(*pool[a]);
        targets.push_back(*pool[b]);
      }
    } else if (!query_path.empty() && !target_path.empty()) {
      for (auto& r : read_all(query_path, type)) queries.push_back(std::move(r.codes));
      for (auto& r : read_all(target_path, type)) targets.push_back(std::move(r.codes));
      if (queries.size() != targets.size())
        throw std::invalid_argument(query_path + " holds " + std::to_string(queries.size()) + " records, " +
                                    target_path + " " + std::to_string(targets.size()));
    } else {
      throw std::invalid_argument("give --fasta F (with --pairs N) or --query A --target B");
    }

    const bool dna = *type == warpsearch::SequenceType::nucleotide;
    const warpsearch::ScoringScheme scoring(dna ? warpsearch::SubstitutionMatrix::nucleotide(match, mismatch)
                                                : warpsearch::SubstitutionMatrix::builtin(matrix_name),
                                            warpsearch::GapOpen{open.value_or(dna ? 5 : 11)},
                                            warpsearch::GapExtend{extend.value_or(dna ? 2 : 1)});
    std::vector<warpsearch::gpu::PairTask> tasks(queries.size());
    std::uint64_t residues = 0;
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      tasks[k] = {queries[k], targets[k]};
      residues += queries[k].size() + targets[k].size();
    }

    warpsearch::gpu::GpuPairAligner aligner(0, scoring);
    aligner.set_kernel_options(kernel_options);
    aligner.set_sub_batch_limits(sub_batch_limits);
    std::vector<warpsearch::Span> spans;
    aligner.align(tasks, mode, spans);  // warm-up
    std::vector<double> seconds, kernel_seconds;
    warpsearch::gpu::GpuPairAligner::Timings timings;
    for (int r = 0; r < repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      aligner.align(tasks, mode, spans);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      timings = aligner.last_timings();
      kernel_seconds.push_back(timings.passes);
    }
    if (!trace_path.empty()) {  // one more call, traced (its events cost a little time, so not timed above)
      aligner.set_trace(true);
      aligner.align(tasks, mode, spans);
      aligner.set_trace(false);
      std::ofstream trace(trace_path);
      trace << "what\tsub_batch\tstream\tshape\tjobs\tbegin_ms\tend_ms\n";
      for (const auto& e : aligner.last_trace())
        trace << e.what << '\t' << e.sub_batch << '\t' << e.stream << '\t' << e.shape << '\t' << e.jobs << '\t'
              << e.begin * 1e3 << '\t' << e.end * 1e3 << '\n';
      if (!trace) throw std::runtime_error("cannot write " + trace_path);
    }
    const double t = warpsearch::bench::median(seconds);
    const double tk = warpsearch::bench::median(kernel_seconds);
    const double cells = static_cast<double>(timings.forward_cells);
    const double gcups = cells / t / 1e9;
    const double gcups_passes = cells / tk / 1e9;
    std::printf(
        "%s: %zu pairs, %llu residues, %s, %s %d/%d, %.3g cells (+%.3g reverse, %.3g of them up to the "
        "starts' rows; early exit %s, packed %s)\n",
        aligner.device_name().c_str(), tasks.size(), static_cast<unsigned long long>(residues), mode_name.c_str(),
        scoring.matrix().name().c_str(), scoring.gap_open(), scoring.gap_extend(), cells,
        static_cast<double>(timings.reverse_cells), static_cast<double>(timings.reverse_cells_to_start),
        kernel_options.reverse_early_exit ? "on" : "off", kernel_options.packed_lanes ? "on" : "off");
    std::printf(
        "overall: %.4f s median of %d, %.1f GCUPS, %.0f pairs/s; passes only %.4f s, %.1f GCUPS "
        "(%u sub-batches; overlapping: host pack %.4f, upload %.4f, forward %.4f, reverse %.4f)\n",
        t, repeat, gcups, static_cast<double>(tasks.size()) / t, tk, gcups_passes, timings.sub_batches, timings.pack,
        timings.upload, timings.forward, timings.reverse);
    std::printf("host: first upload enqueued after %.4f s, copying %.4f, enqueuing %.4f, waiting %.4f\n",
                timings.host_first_upload, timings.host_copy, timings.host_enqueue, timings.host_wait);

    int mismatches = 0;
    if (check > 0 && !tasks.empty()) {
      const std::size_t step = std::max<std::size_t>(1, tasks.size() / static_cast<std::size_t>(check));
      int checked = 0;
      for (std::size_t k = 0; k < tasks.size() && checked < check; k += step, ++checked) {
        const auto e = warpsearch::reference::span(queries[k], targets[k], scoring, mode);
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
    }

    if (!tsv_path.empty()) {
      std::ifstream existing(tsv_path);
      const bool header = !existing.good() || existing.peek() == std::ifstream::traits_type::eof();
      existing.close();
      std::ofstream tsv(tsv_path, std::ios::app);
      if (header)
        tsv << "label\tdevice\tmode\tscoring\tpairs\tresidues\tcells\treverse_cells\tseconds\tgcups\tpairs_per_s\t"
               "passes_seconds\tpasses_gcups\tpack_s\tupload_s\tforward_s\treverse_s\tsub_batches\tchecked_mismatches\t"
               "reverse_cells_to_start\tearly_exit\tpacked\tfirst_percent\n";
      tsv << label << '\t' << aligner.device_name() << '\t' << mode_name << '\t' << scoring.matrix().name() << ' '
          << scoring.gap_open() << '/' << scoring.gap_extend() << '\t' << tasks.size() << '\t' << residues << '\t'
          << timings.forward_cells << '\t' << timings.reverse_cells << '\t' << t << '\t' << gcups << '\t'
          << static_cast<double>(tasks.size()) / t << '\t' << tk << '\t' << gcups_passes << '\t' << timings.pack << '\t'
          << timings.upload << '\t' << timings.forward << '\t' << timings.reverse << '\t' << timings.sub_batches << '\t'
          << mismatches << '\t' << timings.reverse_cells_to_start << '\t'
          << (kernel_options.reverse_early_exit ? kernel_options.early_exit_check_steps : 0) << '\t'
          << (kernel_options.packed_lanes ? 1 : 0) << '\t' << sub_batch_limits.first_percent << '\n';
    }
    return mismatches == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::cerr << "gpu_pair_bench: " << error.what() << '\n';
    return 2;
  }
}
