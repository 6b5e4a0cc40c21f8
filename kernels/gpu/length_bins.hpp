// The one table of GPU kernel configurations: subject length bins -> kernel tile shape.
//
// A thread group of `group` lanes scores a pair of subjects; each lane holds `regs` consecutive subject
// columns in registers, so one pass covers group * regs columns. Bins whose subjects fit one pass run
// the single-tile kernel. Longer subjects run tiled (tile edges in global memory): up to 4096 residues
// one warp walks all tiles of a pair; beyond, the warps of a block share a pair, warp w taking tiles
// w, w + 8, ... in a pipeline (so that the longest subjects do not become the critical path). The
// 32-bit bin rescores subjects the 16-bit kernels flagged as saturated.
// Dispatch is by index into this table (kernels/gpu/sw_dispatch.hpp); instantiations are split over
// sw_bins_*.cu so that the build runs in parallel.
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
    {8, 1, 8, TileMode::single, ScoreWidth::s16x2},      {16, 1, 16, TileMode::single, ScoreWidth::s16x2},
    {32, 2, 16, TileMode::single, ScoreWidth::s16x2},    {48, 4, 12, TileMode::single, ScoreWidth::s16x2},
    {64, 4, 16, TileMode::single, ScoreWidth::s16x2},    {96, 8, 12, TileMode::single, ScoreWidth::s16x2},
    {128, 8, 16, TileMode::single, ScoreWidth::s16x2},   {160, 16, 10, TileMode::single, ScoreWidth::s16x2},
    {192, 16, 12, TileMode::single, ScoreWidth::s16x2},  {224, 16, 14, TileMode::single, ScoreWidth::s16x2},
    {256, 16, 16, TileMode::single, ScoreWidth::s16x2},  {320, 32, 10, TileMode::single, ScoreWidth::s16x2},
    {384, 32, 12, TileMode::single, ScoreWidth::s16x2},  {448, 32, 14, TileMode::single, ScoreWidth::s16x2},
    {512, 32, 16, TileMode::single, ScoreWidth::s16x2},  {576, 32, 18, TileMode::single, ScoreWidth::s16x2},
    {640, 32, 20, TileMode::single, ScoreWidth::s16x2},  {768, 32, 24, TileMode::single, ScoreWidth::s16x2},
    {896, 32, 28, TileMode::single, ScoreWidth::s16x2},  {1024, 32, 32, TileMode::single, ScoreWidth::s16x2},
    {4096, 32, 16, TileMode::tiled, ScoreWidth::s16x2},
    {kUnbounded, 32, 16, TileMode::cooperative, ScoreWidth::s16x2},
    {kUnbounded, 32, 16, TileMode::tiled, ScoreWidth::s32},  // rescoring of saturated subjects
};

inline constexpr int kBinCount = static_cast<int>(sizeof(kLengthBins) / sizeof(kLengthBins[0]));
inline constexpr int kRescoreBin = kBinCount - 1;
inline constexpr int kHugeBin = kBinCount - 2;
inline constexpr int kLongBin = kBinCount - 3;
inline constexpr int kBlockThreads = 256;

constexpr bool bins_are_valid() {
  for (int b = 0; b < kBinCount; ++b) {
    const LengthBin& bin = kLengthBins[b];
    const int g = bin.group;
    if (g != 1 && g != 2 && g != 4 && g != 8 && g != 16 && g != 32) return false;
    if (bin.regs < 1 || bin.regs > 32) return false;
    if (bin.mode == TileMode::single && bin.max_length != static_cast<std::uint32_t>(g * bin.regs)) return false;
    if (b > 0 && b <= kHugeBin && bin.max_length <= kLengthBins[b - 1].max_length) return false;
    if ((bin.mode == TileMode::single) != (b < kLongBin)) return false;
    if (bin.mode != TileMode::single && g != 32) return false;  // edges are prefetched by whole warps
  }
  return kLengthBins[kLongBin].mode == TileMode::tiled && kLengthBins[kHugeBin].mode == TileMode::cooperative &&
         kLengthBins[kRescoreBin].mode == TileMode::tiled && kLengthBins[kRescoreBin].width == ScoreWidth::s32 &&
         kLengthBins[kLongBin].width == ScoreWidth::s16x2 && kLengthBins[kHugeBin].width == ScoreWidth::s16x2;
}
static_assert(bins_are_valid(), "kLengthBins: groups must be powers of two up to 32, single-tile bins "
                                "ascending with max_length == group * regs, then the tiled, cooperative "
                                "and 32-bit bins, all with whole-warp groups");

// The tiled, cooperative and 32-bit kernels share one tile-edge buffer: query_length words per group
// slot of the tiled kernels, per block of the cooperative one.
static_assert(kLengthBins[kLongBin].group == kLengthBins[kRescoreBin].group, "tiled bins share edge slots");

// The 16-bit bin of a subject length.
constexpr int bin_of_length(std::uint32_t length) {
  for (int b = 0; b < kHugeBin; ++b)
    if (length <= kLengthBins[b].max_length) return b;
  return kHugeBin;
}

}  // namespace warpsearch::gpu::detail
