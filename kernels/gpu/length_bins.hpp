// The one table of GPU kernel configurations: subject length bins -> kernel tile shape.
//
// A thread group of `group` lanes scores a pair of subjects; each lane holds `regs` consecutive subject
// columns in registers, so one pass covers group * regs columns. Bins whose subjects fit one pass run
// the single-tile kernel. Longer subjects run tiled (tile edges in global memory): up to 4096 residues
// one warp walks all tiles of a pair; beyond, the warps of a block share a pair, warp w taking tiles
// w, w + 8, ... in a pipeline (so that the longest subjects do not become the critical path). The
// 32-bit bin rescores subjects the 16-bit kernels flagged as saturated.
//
// Padding is the cost the table controls: a pair of subjects computes group * regs columns (tiled: whole
// tiles), whatever its lengths. With bins 64-128 residues apart and one 512-column tile width, the
// 32.7 M-residue benchmark set computed 10.6% more cells than it has; one-pass bins one column per lane
// apart and four tile widths (a subject takes the width that pads it least) bring that to 3.8%
// (docs/gpu_kernels.md, "Length bins and padding").
// Dispatch is by index into this table (kernels/gpu/sw_dispatch.hpp); instantiations are split over
// sw_onepass_*.cu and sw_tiled_cooperative_rescore.cu so that the build runs in parallel (a bin without one is a link
// error).
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpsearch::gpu::detail {

enum class ScoreWidth : std::uint8_t { s16x2, s32 };

enum class TileMode : std::uint8_t {
  single,      // the subject fits one pass
  tiled,       // one warp per pair, tile after tile
  cooperative  // one block per pair, its warps pipelined over the tiles
};

struct LengthBin {
  std::uint32_t max_length;  // longest subject of the bin (last bins: unbounded)
  int group;                 // lanes per subject pair: 1, 2, 4, 8, 16 or 32
  int regs;                  // subject columns per lane
  TileMode mode;
  ScoreWidth width;
};

inline constexpr std::uint32_t kUnbounded = 0xFFFFFFFFu;

inline constexpr LengthBin kLengthBins[] = {
    // one pass: 1..1024 residues
    {8, 1, 8, TileMode::single, ScoreWidth::s16x2},
    {16, 1, 16, TileMode::single, ScoreWidth::s16x2},
    {32, 2, 16, TileMode::single, ScoreWidth::s16x2},
    {48, 4, 12, TileMode::single, ScoreWidth::s16x2},
    {64, 4, 16, TileMode::single, ScoreWidth::s16x2},
    {80, 8, 10, TileMode::single, ScoreWidth::s16x2},
    {96, 8, 12, TileMode::single, ScoreWidth::s16x2},
    {112, 8, 14, TileMode::single, ScoreWidth::s16x2},
    {128, 8, 16, TileMode::single, ScoreWidth::s16x2},
    {144, 16, 9, TileMode::single, ScoreWidth::s16x2},
    {160, 16, 10, TileMode::single, ScoreWidth::s16x2},
    {176, 16, 11, TileMode::single, ScoreWidth::s16x2},
    {192, 16, 12, TileMode::single, ScoreWidth::s16x2},
    {208, 16, 13, TileMode::single, ScoreWidth::s16x2},
    {224, 16, 14, TileMode::single, ScoreWidth::s16x2},
    {240, 16, 15, TileMode::single, ScoreWidth::s16x2},
    {256, 16, 16, TileMode::single, ScoreWidth::s16x2},
    {288, 32, 9, TileMode::single, ScoreWidth::s16x2},
    {320, 32, 10, TileMode::single, ScoreWidth::s16x2},
    {352, 32, 11, TileMode::single, ScoreWidth::s16x2},
    {384, 32, 12, TileMode::single, ScoreWidth::s16x2},
    {416, 32, 13, TileMode::single, ScoreWidth::s16x2},
    {448, 32, 14, TileMode::single, ScoreWidth::s16x2},
    {480, 32, 15, TileMode::single, ScoreWidth::s16x2},
    {512, 32, 16, TileMode::single, ScoreWidth::s16x2},
    {544, 32, 17, TileMode::single, ScoreWidth::s16x2},
    {576, 32, 18, TileMode::single, ScoreWidth::s16x2},
    {608, 32, 19, TileMode::single, ScoreWidth::s16x2},
    {640, 32, 20, TileMode::single, ScoreWidth::s16x2},
    {672, 32, 21, TileMode::single, ScoreWidth::s16x2},
    {704, 32, 22, TileMode::single, ScoreWidth::s16x2},
    {736, 32, 23, TileMode::single, ScoreWidth::s16x2},
    {768, 32, 24, TileMode::single, ScoreWidth::s16x2},
    {800, 32, 25, TileMode::single, ScoreWidth::s16x2},
    {832, 32, 26, TileMode::single, ScoreWidth::s16x2},
    {864, 32, 27, TileMode::single, ScoreWidth::s16x2},
    {896, 32, 28, TileMode::single, ScoreWidth::s16x2},
    {928, 32, 29, TileMode::single, ScoreWidth::s16x2},
    {960, 32, 30, TileMode::single, ScoreWidth::s16x2},
    {992, 32, 31, TileMode::single, ScoreWidth::s16x2},
    {1024, 32, 32, TileMode::single, ScoreWidth::s16x2},
    // tiled, 1025..4096 residues: tiles of 320, 384, 448 or 512 columns
    {4096, 32, 10, TileMode::tiled, ScoreWidth::s16x2},
    {4096, 32, 12, TileMode::tiled, ScoreWidth::s16x2},
    {4096, 32, 14, TileMode::tiled, ScoreWidth::s16x2},
    {4096, 32, 16, TileMode::tiled, ScoreWidth::s16x2},
    {kUnbounded, 32, 16, TileMode::cooperative, ScoreWidth::s16x2},
    {kUnbounded, 32, 16, TileMode::cooperative, ScoreWidth::s32},  // rescoring of saturated subjects
};

inline constexpr int kBinCount = static_cast<int>(sizeof(kLengthBins) / sizeof(kLengthBins[0]));
inline constexpr int kRescoreBin = kBinCount - 1;
inline constexpr int kHugeBin = kBinCount - 2;
// The tiled 16-bit bins are [kFirstTiledBin, kHugeBin); the one-pass bins come before them.
constexpr int first_tiled_bin() {
  int b = 0;
  while (b < kBinCount && kLengthBins[b].mode == TileMode::single) ++b;
  return b;
}
inline constexpr int kFirstTiledBin = first_tiled_bin();

// Launch shapes. With the one-copy substitution table (70 KB for protein) a launch runs blocks of
// kBlockThreads: 3 or 2 of them share a multiprocessor, also with other bins' blocks. The table with
// copies (kernels/gpu/table_copies.hpp, up to 220 KB) leaves room for one block per multiprocessor, so
// its blocks hold all the warps the registers allow: 24 for the one-pass bins of up to 16 columns per
// lane (at most 85 registers per thread), 16 for the wider ones and the tiled ones (at most 128): as
// many warps per multiprocessor as the one-copy blocks. The cooperative bin (pipelines of up to 8 warps
// per pair, below) and the 32-bit rescoring always run the one-copy table (or the lane copies of a small
// alphabet's, kernels/gpu/table_copies.hpp).
inline constexpr int kBlockThreads = 256;

// The cooperative bin's lanes compute two query rows per step (kernels/gpu/sw_kernel.cuh): the two rows'
// chains run side by side, and the step's own work is shared by two rows.
inline constexpr int kCooperativeRowsPerStep = 2;

// The cooperative bin's warps per pair (a team) for a query of m rows. A warp starts a tile once the warp
// on the previous tile has published 64 of its rows, which that warp's last lane computes 31 steps after
// its first: 64 / 2 + 31 steps after that warp started, the time of kHandoffRows rows. A team of k warps
// therefore turns no faster than once per k * kHandoffRows rows' time, while each of its warps takes m
// rows' time per tile (and 31 steps): with k * kHandoffRows above m the warps wait for each other. The
// team is the largest power of two (up to the block's 8 warps) whose handoffs fit within m; a block takes
// 8 / k pairs at once.
inline constexpr int kHandoffRows = 64 + 31 * kCooperativeRowsPerStep;
constexpr int cooperative_team_warps(int m) {
  int k = 1;
  while (k < kBlockThreads / 32 && 2 * k * kHandoffRows <= m) k *= 2;
  return k;
}
// The streamed kernel (kernels/gpu/sw_streamed.cuh) scores the cooperative bin's jobs against a query
// of up to kStreamedMaxQuery rows held in the lanes' registers, R rows a lane (8 to 32, an instantiation
// each), two subject columns a step; it records hot tiles in windows of kStreamedWindow columns.
inline constexpr int kStreamedColumnsPerStep = 2;
inline constexpr int kStreamedBlockThreads = 512;
inline constexpr int kStreamedWindow = 512;
inline constexpr int kStreamedMinRegs = 8;
inline constexpr int kStreamedMaxRegs = 32;
inline constexpr int kStreamedRegCount = kStreamedMaxRegs - kStreamedMinRegs + 1;
inline constexpr int kStreamedMaxQuery = 32 * kStreamedMaxRegs;
// Rows a lane holds for a query of m rows (1 <= m <= kStreamedMaxQuery): the fewest that cover it. Every
// count has its instantiation: even counts alone would pad half the queries by 32 rows more (16 on
// average, 3% of tblastn's 100-1,000-residue proteins).
constexpr int streamed_regs(int m) {
  const int regs = (m + 31) / 32;
  return regs <= kStreamedMinRegs ? kStreamedMinRegs : regs;
}
constexpr bool may_use_table_copies(int bin) { return bin < kHugeBin; }
constexpr int copies_block_threads(int bin) {
  if (!may_use_table_copies(bin)) return kBlockThreads;
  return kLengthBins[bin].mode == TileMode::single && kLengthBins[bin].regs <= 16 ? 768 : 512;
}
// Registers the launch bounds allow: 65536 / 768 = 85, 65536 / 512 = 128 (2 blocks of 256).
constexpr int min_blocks_per_sm(int bin) { return may_use_table_copies(bin) ? 1 : 2; }

constexpr bool bins_are_valid() {
  for (int b = 0; b < kBinCount; ++b) {
    const LengthBin& bin = kLengthBins[b];
    const int g = bin.group;
    if (g != 1 && g != 2 && g != 4 && g != 8 && g != 16 && g != 32) return false;
    if (bin.regs < 1 || bin.regs > 32) return false;
    if (bin.mode == TileMode::single && bin.max_length != static_cast<std::uint32_t>(g * bin.regs)) return false;
    if (b > 0 && b < kFirstTiledBin && bin.max_length <= kLengthBins[b - 1].max_length) return false;
    if ((bin.mode == TileMode::single) != (b < kFirstTiledBin)) return false;
    if (bin.mode != TileMode::single && g != 32) return false;  // edges are prefetched by whole warps
    if (b >= kFirstTiledBin && b < kHugeBin &&
        (bin.mode != TileMode::tiled || bin.width != ScoreWidth::s16x2 ||
         bin.max_length != kLengthBins[kFirstTiledBin].max_length ||
         bin.max_length <= kLengthBins[kFirstTiledBin - 1].max_length ||
         (b > kFirstTiledBin && bin.regs <= kLengthBins[b - 1].regs)))
      return false;
  }
  return kFirstTiledBin > 0 && kFirstTiledBin < kHugeBin && kLengthBins[kHugeBin].mode == TileMode::cooperative &&
         kLengthBins[kRescoreBin].mode == TileMode::cooperative && kLengthBins[kRescoreBin].width == ScoreWidth::s32 &&
         kLengthBins[kHugeBin].width == ScoreWidth::s16x2;
}
static_assert(bins_are_valid(),
              "kLengthBins: groups must be powers of two up to 32, one-pass bins "
              "ascending with max_length == group * regs, then tiled bins of one length "
              "limit by ascending regs, then the cooperative and 32-bit bins, all of "
              "whole-warp groups");

// The tiled, cooperative and 32-bit kernels share one tile-edge buffer: query_length words per group
// slot of the tiled kernels, per block of the cooperative one.
static_assert(kLengthBins[kFirstTiledBin].group == kLengthBins[kRescoreBin].group, "tiled bins share edge slots");

// Columns a subject pair of this length computes in a tiled bin: whole tiles.
constexpr std::uint64_t tiled_columns(int bin, std::uint32_t length) {
  const std::uint64_t width = static_cast<std::uint64_t>(kLengthBins[bin].group) * kLengthBins[bin].regs;
  return (length + width - 1) / width * width;
}

// The 16-bit bin of a subject length: the first one-pass bin that holds it; else, up to the tiled
// limit, the tile width that pads it least (on a tie the wider tile: fewer tiles, fewer edges); else
// the cooperative bin.
constexpr int bin_of_length(std::uint32_t length) {
  for (int b = 0; b < kFirstTiledBin; ++b)
    if (length <= kLengthBins[b].max_length) return b;
  if (length > kLengthBins[kFirstTiledBin].max_length) return kHugeBin;
  int best = kFirstTiledBin;
  for (int b = kFirstTiledBin + 1; b < kHugeBin; ++b)
    if (tiled_columns(b, length) <= tiled_columns(best, length)) best = b;
  return best;
}

}  // namespace warpsearch::gpu::detail
