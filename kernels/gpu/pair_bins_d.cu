// Explicit instantiations of the pair kernel for every 32-bit shape of kPairShapes, 8-bit profiles,
// with the early exit of local reverse passes (PairKernelParams::stop_scores).
// One file per element type and stop flag, so that they compile in parallel (pair_bins_c.cu: the
// packed shapes).
#include "kernels/gpu/pair_kernel.cuh"

#define WARPSEARCH_PAIR_SHAPE(S)                                                   \
  WARPSEARCH_INSTANTIATE_PAIR_SHAPE(warpsearch::gpu::detail::kPairShapes[S].group, \
                                    warpsearch::gpu::detail::kPairShapes[S].regs, std::int8_t, false, true)
WARPSEARCH_PAIR_SHAPE(0);
WARPSEARCH_PAIR_SHAPE(1);
WARPSEARCH_PAIR_SHAPE(2);
WARPSEARCH_PAIR_SHAPE(3);
WARPSEARCH_PAIR_SHAPE(4);
WARPSEARCH_PAIR_SHAPE(5);
WARPSEARCH_PAIR_SHAPE(6);
WARPSEARCH_PAIR_SHAPE(7);
static_assert(warpsearch::gpu::detail::kFirstPackedShape == 8, "instantiate every 32-bit shape");
