// Shapes of the query-profile scoring kernels (kernels/gpu/profile_kernel.cuh) and the choice of one
// for a query. Host-side and constexpr, so that the CPU tests check the choice.
//
// In these kernels a group of `group` lanes holds a tile of group * regs query columns (regs per lane)
// and streams the rows of a pair of subjects; a query longer than a tile runs tile after tile. So the
// cells a pair computes are (tiles * group * regs) x (its rows + group - 1): the query is padded to
// whole tiles, and every tile pays a wavefront fill of group - 1 rows. The choice weighs both against
// typical protein subjects (kTypicalRows), plus a small per-tile cost for the tile edges in global
// memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpsearch::gpu::detail {

struct ProfileShape {
  int group;  // lanes per subject pair: 4, 8, 16 or 32
  int regs;   // query columns per lane: 8 (one LDS.64 of int8 scores per subject) or 16 (one LDS.128)
  // Threads per block, one block per multiprocessor (which holds the profile once for all its warps):
  // 32 warps at R = 8 (60 registers per thread), 24 at R = 16 (79 registers: at 64, ptxas spills
  // 32-52 bytes in the loop).
  int threads;
};

inline constexpr ProfileShape kProfileShapes[] = {
    {4, 8, 1024}, {4, 16, 768}, {8, 16, 768}, {16, 16, 768}, {32, 16, 768}};
inline constexpr int kProfileShapeCount = static_cast<int>(sizeof(kProfileShapes) / sizeof(kProfileShapes[0]));

// Profile rows start on 128-byte boundaries: the lanes of a quarter warp then read distinct banks.
inline constexpr int kProfileRowAlign = 128;
// Subjects up to this length run the profile kernels (the rest the length bins' tiled and cooperative
// kernels, which split a long subject over many lanes).
inline constexpr std::uint32_t kProfileMaxSubject = 1024;

inline constexpr int kTypicalRows = 256;     // a short protein subject
inline constexpr int kTileOverheadRows = 8;  // tile edges: a write and a read per row

struct ProfilePlan {
  int shape = -1;  // index into kProfileShapes, -1: the query does not fit a profile in shared memory
  int tiles = 0;
  int stride = 0;  // bytes per profile row: tiles * group * regs, rounded up to kProfileRowAlign
};

constexpr ProfilePlan profile_plan_for_shape(int shape, int query_length) {
  const ProfileShape s = kProfileShapes[shape];
  const int width = s.group * s.regs;
  ProfilePlan plan;
  plan.shape = shape;
  plan.tiles = (query_length + width - 1) / width;
  plan.stride = (plan.tiles * width + kProfileRowAlign - 1) / kProfileRowAlign * kProfileRowAlign;
  return plan;
}

// The cheapest shape for a query of `query_length` residues (at least 1) whose profile (alphabet_n rows
// of `stride` bytes) fits in `shared_bytes`; ties go to the wider tile.
constexpr ProfilePlan choose_profile_plan(int query_length, int alphabet_n, std::size_t shared_bytes) {
  ProfilePlan best;
  long long best_cost = 0;
  for (int shape = 0; shape < kProfileShapeCount; ++shape) {
    const ProfilePlan plan = profile_plan_for_shape(shape, query_length);
    if (static_cast<std::size_t>(plan.stride) * static_cast<std::size_t>(alphabet_n) > shared_bytes) continue;
    const ProfileShape s = kProfileShapes[shape];
    const long long cost = static_cast<long long>(plan.tiles) * s.group * s.regs *
                           (kTypicalRows + s.group - 1 + kTileOverheadRows);
    if (best.shape < 0 || cost <= best_cost) {
      best = plan;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace warpsearch::gpu::detail
