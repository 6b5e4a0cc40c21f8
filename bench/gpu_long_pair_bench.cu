// GPU long-pair kernel throughput: one pair across the whole GPU (kernels/gpu/long_pair.hpp), for the
// span (two local passes, or the global pass) and for the rows of a global alignment (the last row only,
// as Myers and Miller's split asks, or checkpoint rows every 256).
//
//   gpu_long_pair_bench [--query-length M] [--subject-length N] [--dna] [--repeat 3] [--tsv out.tsv]
//                       [--rows-per-lane 0|8|16|32] [--no-checkpoint-rows] [--mutation 0.15]
//                       [--side-by-side K] [--no-packed] [--timeline FILE]
//
// Besides the span and the rows of the whole DP, the last row in two bands (profile/exact_band.hpp): the
// guess band of a global score, and the exact band of the pair's global score (whose width the mutation
// rate sets); --no-checkpoint-rows leaves out the rows every 256 (a slow pass at 1 Mb). --side-by-side K
// adds the local span of K copies of the pair at once: in one call of LongPairAligner::local_spans (its
// passes in one launch each), as the search locates its long hits (search/gpu_long_pairs.hpp), and each
// on its own aligner and host thread (the launches side by side on their streams). --no-packed runs the
// local passes of DNA in the 32-bit kernel (LongPairAligner::set_packed_passes).
//
// The pair is a seeded random query and a mutated copy of it (by default 15% substitutions and indels)
// inside random flanks, so that the local alignment spans the pair. Each figure is the median of --repeat calls
// after one warm-up; GCUPS = cells / seconds / 1e9, cells = the passes' (rows x columns), the call's
// copies and allocations included. The local span's two passes follow it as rows of their own ("span
// local: end pass", "span local: start pass"; the last call's, each timed from its request to its result).
// --timeline FILE appends the last call's stripe timeline of every work (LongPairAligner::
// set_stripe_timeline: per stripe the device's clock when a warp took it, when the stripe above let it
// start, and when it ended, in nanoseconds from the launch's first), for bench/gpu/stripe_timeline.py.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "bench/bench_support.hpp"
#include "kernels/gpu/long_pair.hpp"
#include "profile/exact_band.hpp"
#include "profile/scoring.hpp"
#include "tests/random_sequences.hpp"

using namespace warpsearch;

// The median seconds of `repeat` runs after a warm-up.
static double median_seconds(const std::function<void()>& run, int repeat) {
  run();
  std::vector<double> seconds;
  for (int r = 0; r < repeat; ++r) {
    const auto started = std::chrono::steady_clock::now();
    run();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  return bench::median(seconds);
}

// Appends each launch's stripes (work, launch, stripe, then the three clocks less the launch's first).
static void write_timeline(const std::string& path, const std::string& work,
                           const std::vector<std::vector<gpu::LongPairAligner::StripeClock>>& launches) {
  std::ofstream out(path, std::ios::app);
  for (std::size_t launch = 0; launch < launches.size(); ++launch) {
    std::uint64_t first = UINT64_MAX;
    for (const auto& clock : launches[launch]) first = std::min(first, clock.taken);
    for (std::size_t k = 0; k < launches[launch].size(); ++k) {
      const auto& clock = launches[launch][k];
      out << work << '\t' << launch << '\t' << k << '\t' << clock.taken - first << '\t' << clock.started - first << '\t'
          << clock.ended - first << '\n';
    }
  }
  if (!out) throw std::runtime_error("cannot write the timeline to " + path);
}

int main(int argc, char** argv) try {
  std::size_t m = 31921, n = 31921;
  int repeat = 3, rows_per_lane = 0, side_by_side = 0;
  bool dna = false, checkpoint_rows = true, packed = true;
  double mutation = 0.15;
  std::string tsv, timeline;
  for (bench::Arguments args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    const auto value = [&] { return args.value(); };
    if (arg == "--query-length")
      m = std::stoull(value());
    else if (arg == "--subject-length")
      n = std::stoull(value());
    else if (arg == "--dna")
      dna = true;
    else if (arg == "--repeat")
      repeat = std::max(1, std::stoi(value()));
    else if (arg == "--tsv")
      tsv = value();
    else if (arg == "--rows-per-lane")
      rows_per_lane = std::stoi(value());
    else if (arg == "--no-checkpoint-rows")
      checkpoint_rows = false;
    else if (arg == "--mutation")
      mutation = std::stod(value());
    else if (arg == "--no-packed")
      packed = false;
    else if (arg == "--timeline")
      timeline = value();
    else if (arg == "--side-by-side")
      side_by_side = std::max(0, std::stoi(value()));
    else
      throw std::invalid_argument("unknown option " + arg);
  }
  const ScoringScheme scoring = dna ? ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2})
                                    : ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const int alphabet = dna ? 4 : 20;
  std::mt19937_64 rng(5);
  const std::string query = test::random_codes(rng, m, alphabet);
  std::string subject = test::mutated_codes(rng, query, alphabet, mutation, 4);
  if (subject.size() < n) subject += test::random_codes(rng, n - subject.size(), alphabet);
  subject.resize(n);
  gpu::LongPairAligner aligner(0, scoring);
  aligner.set_rows_per_lane(rows_per_lane);
  aligner.set_packed_passes(packed);
  aligner.set_stripe_timeline(!timeline.empty());
  aligner.set_span_bands_always(true);  // the banded span is measured at any length
  struct Work {
    std::string name;
    std::function<void()> run;
  };
  std::vector<std::int32_t> h, ins;
  Span span;
  const std::optional<DiagonalBand> guess = guess_band(query.size(), subject.size());
  std::optional<DiagonalBand> band;
  std::vector<Work> works = {
      {"span local", [&] { span = aligner.span(query, subject, AlignmentMode::local); }},
      {"span global",
       [&] {
         span = aligner.span(query, subject, AlignmentMode::global);
         band = optimal_band(query.size(), subject.size(), span.score, scoring, scoring.gap_open());
       }},
      {"last row", [&] { aligner.global_rows(query, subject, 11, query.size(), h, ins); }},
      {"last row, guess band",
       [&] {
         aligner.global_rows(query, subject, scoring.gap_open(), query.size(), h, ins, guess ? &*guess : nullptr);
       }},
      {"last row, exact band",
       [&] { aligner.global_rows(query, subject, scoring.gap_open(), query.size(), h, ins, band ? &*band : nullptr); }},
  };
  if (checkpoint_rows)
    works.push_back({"rows every 256", [&] { aligner.global_rows(query, subject, 11, 256, h, ins); }});
  std::vector<std::unique_ptr<gpu::LongPairAligner>> side_aligners;
  for (int k = 0; k < side_by_side; ++k) {
    side_aligners.push_back(std::make_unique<gpu::LongPairAligner>(0, scoring));
    side_aligners.back()->set_packed_passes(packed);
  }
  std::uint64_t side_cells = 0;
  if (side_by_side > 0)
    works.push_back({"span local x " + std::to_string(side_by_side) + " side by side", [&] {
                       std::vector<Span> spans(side_aligners.size());
                       std::vector<std::thread> threads;
                       for (std::size_t k = 0; k < side_aligners.size(); ++k)
                         threads.emplace_back(
                             [&, k] { spans[k] = side_aligners[k]->span(query, subject, AlignmentMode::local); });
                       for (std::thread& thread : threads) thread.join();
                       span = spans.front();
                       side_cells = side_aligners.front()->last_cells() * side_aligners.size();
                     }});
  if (side_by_side > 0)
    works.push_back({"span local x " + std::to_string(side_by_side) + " in one launch", [&] {
                       const std::vector<std::pair<std::string_view, std::string_view>> pairs(
                           static_cast<std::size_t>(side_by_side), {query, subject});
                       span = aligner.local_spans(pairs).front();
                     }});
  std::ofstream out;
  if (!tsv.empty()) out.open(tsv, std::ios::app);
  std::printf("work\tquery\tsubject\tcells\tseconds\tGCUPS\tscore\n");
  for (const Work& work : works) {
    const double median = median_seconds(work.run, repeat);
    const double cells =
        static_cast<double>(work.name.find("side by side") != std::string::npos ? side_cells : aligner.last_cells());
    const auto write_row = [&](const std::string& name, double row_cells, double row_seconds) {
      char line[256];
      std::snprintf(line, sizeof line, "%s\t%zu\t%zu\t%.0f\t%.4f\t%.1f\t%lld\n", name.c_str(), m, n, row_cells,
                    row_seconds, row_cells / row_seconds / 1e9, static_cast<long long>(span.score));
      std::fputs(line, stdout);
      if (out) out << line;
    };
    write_row(work.name, cells, median);
    if (!timeline.empty()) write_timeline(timeline, work.name, aligner.last_stripe_timelines());
    // A local span's passes, each (the last run's): the end pass over the whole pair, then the start pass.
    const std::vector<gpu::LongPairAligner::PassTime> passes = aligner.last_pass_times();
    if (work.name == "span local" && passes.size() == 2)
      for (std::size_t i = 0; i < passes.size(); ++i)
        write_row(i == 0 ? "span local: end pass" : "span local: start pass", static_cast<double>(passes[i].cells),
                  passes[i].seconds);
  }
  return 0;
} catch (const std::exception& error) {
  std::cerr << "gpu_long_pair_bench: " << error.what() << "\n";
  return 1;
}
