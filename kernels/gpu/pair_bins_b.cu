// Explicit instantiations of the pair kernel for every shape of kPairShapes, 16-bit profiles (the
// schemes whose scores + open + extend do not fit 8 bits). One file per element type, so that the two
// compile in parallel.
#include "kernels/gpu/pair_kernel.cuh"

#define WARPSEARCH_PAIR_SHAPE(S)                                                   \
  WARPSEARCH_INSTANTIATE_PAIR_SHAPE(warpsearch::gpu::detail::kPairShapes[S].group, \
                                    warpsearch::gpu::detail::kPairShapes[S].regs, std::int16_t)
WARPSEARCH_PAIR_SHAPE(0);
WARPSEARCH_PAIR_SHAPE(1);
WARPSEARCH_PAIR_SHAPE(2);
WARPSEARCH_PAIR_SHAPE(3);
WARPSEARCH_PAIR_SHAPE(4);
WARPSEARCH_PAIR_SHAPE(5);
WARPSEARCH_PAIR_SHAPE(6);
WARPSEARCH_PAIR_SHAPE(7);
static_assert(warpsearch::gpu::detail::kPairShapeCount == 8, "instantiate every shape");
