// Explicit instantiations of the pair kernel's packed shapes (two 16-bit columns per register, local
// passes whose scores fit 16 bits; int8 profiles only), without and with the early exit. A file of its
// own, so that it compiles in parallel with the 32-bit shapes (pair_shapes32_*.cu).
#include "kernels/gpu/pair_kernel.cuh"

#define WARPSEARCH_PAIR_PACKED_SHAPE(S, Stop)                                      \
  static_assert(warpsearch::gpu::detail::kPairShapes[S].packed, "a packed shape"); \
  WARPSEARCH_INSTANTIATE_PAIR_SHAPE(warpsearch::gpu::detail::kPairShapes[S].group, \
                                    warpsearch::gpu::detail::kPairShapes[S].regs, std::int8_t, true, Stop)
WARPSEARCH_PAIR_PACKED_SHAPE(8, false);
WARPSEARCH_PAIR_PACKED_SHAPE(9, false);
WARPSEARCH_PAIR_PACKED_SHAPE(8, true);
WARPSEARCH_PAIR_PACKED_SHAPE(9, true);
static_assert(warpsearch::gpu::detail::kPairShapeCount == 10, "instantiate every packed shape");
