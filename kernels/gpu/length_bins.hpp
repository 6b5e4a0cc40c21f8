// The one table of GPU kernel configurations: subject length bins -> kernel tile shape.
//
// A thread group of `group` lanes scores a pair of subjects; each lane holds `regs` consecutive subject
// columns in registers, so one pass covers group * regs columns. Bins whose subjects fit one pass run
// the single-tile kernel; the last 16-bit bin runs the tiled kernel (tile edges in global memory) for
// every longer subject; the 32-bit bin rescores subjects the 16-bit kernels flagged as saturated.
// Dispatch is by index into this table (kernels/gpu/sw_dispatch.hpp); instantiations are split over
// sw_bins_*.cu so that the build runs in parallel.
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpsearch::gpu::detail {

enum class ScoreWidth : std::uint8_t { s16x2, s32 };

struct LengthBin {
  std::uint32_t max_length;  // longest subject of the bin (tiled bins: unbounded)
  int group;                 // lanes per subject pair: 1, 2, 4, 8, 16 or 32
  int regs;                  // subject columns per lane
  bool tiled;                // more than one pass over the subject, tile edges in global memory
  ScoreWidth width;
};

inline constexpr std::uint32_t kUnbounded = 0xFFFFFFFFu;

inline constexpr LengthBin kLengthBins[] = {
    {8, 1, 8, false, ScoreWidth::s16x2},        {16, 1, 16, false, ScoreWidth::s16x2},
    {32, 2, 16, false, ScoreWidth::s16x2},      {48, 4, 12, false, ScoreWidth::s16x2},
    {64, 4, 16, false, ScoreWidth::s16x2},      {96, 8, 12, false, ScoreWidth::s16x2},
    {128, 8, 16, false, ScoreWidth::s16x2},     {160, 16, 10, false, ScoreWidth::s16x2},
    {192, 16, 12, false, ScoreWidth::s16x2},    {224, 16, 14, false, ScoreWidth::s16x2},
    {256, 16, 16, false, ScoreWidth::s16x2},    {320, 32, 10, false, ScoreWidth::s16x2},
    {384, 32, 12, false, ScoreWidth::s16x2},    {448, 32, 14, false, ScoreWidth::s16x2},
    {512, 32, 16, false, ScoreWidth::s16x2},    {576, 32, 18, false, ScoreWidth::s16x2},
    {640, 32, 20, false, ScoreWidth::s16x2},    {768, 32, 24, false, ScoreWidth::s16x2},
    {896, 32, 28, false, ScoreWidth::s16x2},    {1024, 32, 32, false, ScoreWidth::s16x2},
    {kUnbounded, 32, 16, true, ScoreWidth::s16x2},  // every subject longer than 1024
    {kUnbounded, 32, 16, true, ScoreWidth::s32},    // rescoring of saturated subjects
};

inline constexpr int kBinCount = static_cast<int>(sizeof(kLengthBins) / sizeof(kLengthBins[0]));
inline constexpr int kRescoreBin = kBinCount - 1;
inline constexpr int kLongBin = kBinCount - 2;
inline constexpr int kBlockThreads = 256;

constexpr bool bins_are_valid() {
  for (int b = 0; b < kBinCount; ++b) {
    const LengthBin& bin = kLengthBins[b];
    const int g = bin.group;
    if (g != 1 && g != 2 && g != 4 && g != 8 && g != 16 && g != 32) return false;
    if (bin.regs < 1 || bin.regs > 32) return false;
    if (!bin.tiled && bin.max_length != static_cast<std::uint32_t>(g * bin.regs)) return false;
    if (b > 0 && b < kLongBin && bin.max_length <= kLengthBins[b - 1].max_length) return false;
    if (bin.tiled != (b >= kLongBin)) return false;
  }
  return kLengthBins[kRescoreBin].width == ScoreWidth::s32 && kLengthBins[kLongBin].width == ScoreWidth::s16x2;
}
static_assert(bins_are_valid(), "kLengthBins: groups must be powers of two up to 32, single-tile bins "
                                "ascending with max_length == group * regs, then the tiled 16-bit and "
                                "32-bit bins");

// The tiled 16-bit and 32-bit kernels share one tile-edge buffer, sized per group slot.
static_assert(kLengthBins[kLongBin].group == kLengthBins[kRescoreBin].group, "tiled bins share edge slots");

// The 16-bit bin of a subject length.
constexpr int bin_of_length(std::uint32_t length) {
  for (int b = 0; b < kLongBin; ++b)
    if (length <= kLengthBins[b].max_length) return b;
  return kLongBin;
}

}  // namespace warpsearch::gpu::detail
