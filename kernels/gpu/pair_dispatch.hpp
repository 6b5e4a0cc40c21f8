// The pair kernels' parameters, their one table of shapes and the entry points that pair_bins_*.cu
// instantiate (kernels/gpu/pair_kernel.cuh defines them). Private to kernels/gpu.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>

#include "kernels/alignment_mode.hpp"

namespace warpsearch::gpu::detail {

// One pass of one pair: rows x cols cells (both at least 1). Reversed passes read both sequences
// backwards from offset + length - 1.
struct PairJob {
  std::uint64_t row_offset;  // into PairKernelParams::residues
  std::uint64_t col_offset;
  std::uint32_t rows;
  std::uint32_t cols;
};

// The best cell of a pass: 1-based row and column (= 0-based exclusive ends); 0, 0 when a local pass
// found no positive cell.
struct PairEnd {
  std::int32_t score;
  std::uint32_t row_end;
  std::uint32_t col_end;
};

struct PairKernelParams {
  const std::uint8_t* residues = nullptr;  // compact codes, below alphabet_rows
  const PairJob* jobs = nullptr;
  int num_jobs = 0;
  PairEnd* ends = nullptr;      // ends[k] for jobs[k]
  const void* table = nullptr;  // Element[alphabet_rows^2]: [row code][column code] = s + o
  int alphabet_rows = 0;        // A: compact codes (codes scored alike share one), padding last
  int gap_open = 0;
  int gap_extend = 0;
  AlignmentMode mode = AlignmentMode::local;
  bool reverse = false;
  std::uint64_t* edges = nullptr;  // tile edges (G = 32 shapes): edge_stride words per group slot
  std::uint64_t edge_stride = 0;   // at least the rows of every job of more than one tile
};

// "Minus infinity" of the 32-bit recurrence: far below any reachable value (|H| < 2^29 for the
// sequence lengths the aligner accepts) and safe to subtract a gap cost from.
inline constexpr int kMinusInfinity = INT_MIN / 2;

// Threads per block: int16 slices are twice as large, so blocks are half as large to keep two or more
// blocks per SM.
template <typename Element>
inline constexpr int kPairBlockThreads = sizeof(Element) == 1 ? 256 : 128;

// Shared memory of a block: its groups' profile slices, then the score table.
template <typename Element>
constexpr std::size_t pair_shared_bytes(int group, int regs, int alphabet_rows) {
  const std::size_t groups = static_cast<std::size_t>(kPairBlockThreads<Element> / group);
  const std::size_t slices = groups * alphabet_rows * group * regs * sizeof(Element);
  const std::size_t table = static_cast<std::size_t>(alphabet_rows) * alphabet_rows * sizeof(Element);
  return slices + ((table + 15) & ~std::size_t{15});
}

// The shapes: G lanes per pair, R columns per lane. G < 32 shapes take sequences of at most G * R
// columns in one pass; G = 32 shapes walk tiles of G * R columns (tile edges in global memory).
struct PairShape {
  int group;
  int regs;
};
inline constexpr PairShape kPairShapes[] = {{4, 4},   {8, 4},  {16, 4},  {16, 8},
                                            {16, 12}, {32, 8}, {32, 12}, {32, 16}};
inline constexpr int kPairShapeCount = static_cast<int>(sizeof(kPairShapes) / sizeof(kPairShapes[0]));
inline constexpr int kFirstTiledShape = 5;

constexpr bool pair_shapes_are_valid() {
  for (int s = 0; s < kPairShapeCount; ++s) {
    const PairShape& shape = kPairShapes[s];
    if (shape.group != 4 && shape.group != 8 && shape.group != 16 && shape.group != 32) return false;
    if (shape.regs % 4 != 0 || shape.regs < 4 || shape.regs > 32) return false;  // whole int8 words
    if ((shape.group == 32) != (s >= kFirstTiledShape)) return false;
    if (s > 0 && s < kFirstTiledShape &&
        shape.group * shape.regs <= kPairShapes[s - 1].group * kPairShapes[s - 1].regs)
      return false;
  }
  return true;
}
static_assert(pair_shapes_are_valid(), "kPairShapes: single-pass shapes (G < 32) by ascending width, then the "
                                       "tiled G = 32 shapes; R a multiple of 4 up to 32");

// The shape of a pass with `cols` columns: the narrowest single-pass shape that holds them, else the
// tiled shape computing the fewest padded columns (ties: fewer, wider tiles).
constexpr int pair_shape_for(std::uint32_t cols) {
  for (int s = 0; s < kFirstTiledShape; ++s)
    if (cols <= static_cast<std::uint32_t>(kPairShapes[s].group * kPairShapes[s].regs)) return s;
  int chosen = kFirstTiledShape;
  std::uint64_t chosen_columns = ~std::uint64_t{0};
  for (int s = kFirstTiledShape; s < kPairShapeCount; ++s) {
    const std::uint64_t width = static_cast<std::uint64_t>(kPairShapes[s].group) * kPairShapes[s].regs;
    const std::uint64_t columns = (cols + width - 1) / width * width;
    if (columns <= chosen_columns) {
      chosen = s;
      chosen_columns = columns;
    }
  }
  return chosen;
}

template <int G, int R, typename Element>
void prepare_pair_kernel(int alphabet_rows, int* blocks_per_sm);
template <int G, int R, typename Element>
void launch_pair_kernel(const PairKernelParams& params, int grid, cudaStream_t stream);

}  // namespace warpsearch::gpu::detail
