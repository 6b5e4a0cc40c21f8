// One long pair on the whole GPU: the score, start and end of a single alignment whose DP is too large
// for one warp (GpuPairAligner runs a pair per warp), and the rows of a global alignment that the CPU
// traceback uses as checkpoints or as the middle rows of Myers and Miller's split
// (cpu::GlobalRowSource, kernels/cpu/alignment.hpp). This header holds no CUDA types; the kernels are in
// kernels/gpu/long_pair_kernel.cuh and long_pair_packed_kernel.cuh, the host side in long_pair_impl.cuh,
// long_pair.cu and long_pair_local.cu.
//
// The query gives the rows, the subject the columns. The rows are cut into stripes of 32 * R rows (R = 8,
// 16 or 32 by the rows); a
// warp takes a stripe (in order, from a counter) and sweeps all columns, lane t holding R rows and
// running one column behind lane t - 1; the stripe's last row goes to the next stripe through global
// memory, published 32 columns at a time. So a pair runs on as many warps as it has stripes, all at once,
// each a few tiles behind the one above: a 31,921-residue pair on 125 warps. Exact: every cell is the
// recurrence of kernels/reference/reference.hpp; the stripes only pass on the rows between them.
//
// Semantics are pair_span's (kernels/cpu/alignment.hpp): local end = the maximal cell with the smallest
// subject end, then the smallest query end; start = the same pass over the reversed prefixes. 32-bit
// values: the lengths accepted keep every value far from overflow (kMaxLength, and for global and
// semi-global passes (query + subject) * extend below 2^28).
//
// Thread safety: a LongPairAligner may be used by one thread at a time; several (each with its stream)
// may run pairs on one device at once, sharing it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "core/alignment_mode.hpp"
#include "core/diagonal_band.hpp"
#include "core/span.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::gpu {

class LongPairAligner {
 public:
  // Either side of a pair: at most 2^30 residues.
  static constexpr std::size_t kMaxLength = std::size_t{1} << 30;
  // The rows between two rows global_rows() gives cheaply (one stripe of the narrow shape).
  static constexpr std::size_t kRowSpacing = 256;

  // Binds to a device (0-based) and uploads the scoring table. Throws std::invalid_argument for a bad
  // device and std::runtime_error on a CUDA error.
  LongPairAligner(int device, const ScoringScheme& scoring);
  ~LongPairAligner();
  LongPairAligner(LongPairAligner&&) noexcept;
  LongPairAligner& operator=(LongPairAligner&&) noexcept;
  LongPairAligner(const LongPairAligner&) = delete;
  LongPairAligner& operator=(const LongPairAligner&) = delete;

  // Whether the pair fits the 32-bit values in this mode.
  static bool accepts(const ScoringScheme& scoring, std::size_t query_length, std::size_t subject_length,
                      AlignmentMode mode);

  // The score, start and end of the pair (cpu::pair_span's); mode local, global or semiglobal. Throws
  // std::invalid_argument for a pair accepts() refuses or for xdrop.
  Span span(std::string_view query, std::string_view subject, AlignmentMode mode);

  // A lower bound of a global pair's score, for a traceback that finds the score itself
  // (cpu::align_global): the guess band's score (profile/exact_band.hpp), one banded pass where that is
  // faster than a whole one (exact when after_guess proves it), else the score of a whole pass (exact).
  // Throws as span() does.
  struct ScoreBound {
    std::int64_t score = 0;
    bool exact = false;
  };
  ScoreBound global_score_bound(std::string_view query, std::string_view subject);

  // The local spans of several pairs, each span()'s: the end passes of pairs with the same stripe
  // shape in one launch, then their start passes in another, so that pairs too short to fill the device
  // alone fill it together (stripes of all the pairs from one counter, pair after pair). A start pass
  // runs in the band of the alignments that start at the end found (profile/exact_band.hpp,
  // local_start_band) where that is faster. min_scores (empty: none): a pair whose end scores below
  // its entry gets no start pass (its span: score and end, begin 0). Throws as span() does, before any
  // work, for a pair accepts() refuses.
  std::vector<Span> local_spans(const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
                                const std::vector<std::int64_t>& min_scores = {});

  // A local scan of each pair (a query, a subject): the best score, and the stretches of the subject
  // outside which no cell reaches the pair's threshold. The subject gives the rows of one local pass
  // (the pairs of one shape in one launch), and a stretch is a run of its stripes (32 x rows a lane
  // rows, at most 1,024) whose best cell reaches the threshold. Throws as local_spans() does.
  struct LocalScan {
    int score = 0;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> hot;  // [begin, end) of the subject, ascending
  };
  std::vector<LocalScan> local_scans(const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
                                     const std::vector<int>& thresholds);

  // H and I of rows spacing, 2 * spacing, ... and of the last row a.size() of the global alignment of a
  // (rows) against b (columns) in which a vertical gap from (0, 0) costs top_open instead of open:
  // cpu::GlobalRowSource::rows. spacing must be a multiple of kRowSpacing, or at least a.size() (the
  // last row only). Throws std::invalid_argument otherwise, for an empty a or a pair accepts() refuses.
  // band (nullptr: all): each stripe sweeps only the columns that hold the band's cells of its rows,
  // and the rows come back with minus infinity (-2^29) outside the band; the values are then those
  // GlobalRowSource::rows allows with a band.
  void global_rows(std::string_view a, std::string_view b, std::int32_t top_open, std::size_t spacing,
                   std::vector<std::int32_t>& h, std::vector<std::int32_t>& ins, const DiagonalBand* band = nullptr);

  // The rows each lane holds (8, 16 or 32), for benchmarks; 0 (the default) chooses by the rows.
  // Results never depend on it. Throws std::invalid_argument for another value.
  void set_rows_per_lane(int rows);

  // Bands whatever the columns (by default only where that is faster: long_pair_impl.cuh, span_band_pays,
  // guess_pays, start_band_pays) for global spans, lower bounds and local start passes, for tests and
  // benchmarks. The results stay what the contracts above allow.
  void set_span_bands_always(bool always);

  // Local passes over whole nucleotide pairs in the packed kernel (two cells a register, 16-bit values
  // relative to a base; kernels/gpu/long_pair_packed_kernel.cuh) where the scoring keeps its values in
  // 16 bits (the default), or always in the 32-bit kernel (false), for tests and benchmarks. Results
  // never depend on it.
  void set_packed_passes(bool allowed);

  // Cells computed by the last call (span: both passes), and each of its launches' cells and seconds
  // (from the request to the results on the host; a local span: the end pass, then the start pass).
  struct PassTime {
    std::uint64_t cells = 0;
    double seconds = 0;
  };
  std::uint64_t last_cells() const;
  std::vector<PassTime> last_pass_times() const;

  // The stripes' timeline of each launch of the calls that follow set_stripe_timeline(true), for
  // benchmarks (bench/gpu_long_pair_bench --timeline): per stripe of a launch (pair after pair), the
  // device's clock in nanoseconds when a warp took it, when the stripe above let it start, and when it
  // ended. Off by default; results never depend on it.
  struct StripeClock {
    std::uint64_t taken = 0, started = 0, ended = 0;
  };
  void set_stripe_timeline(bool on);
  std::vector<std::vector<StripeClock>> last_stripe_timelines() const;  // the last call's launches

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsearch::gpu
