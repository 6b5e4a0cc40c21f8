// Explicit instantiations of the pair kernel for every 32-bit shape of kPairShapes, 16-bit profiles,
// with the early exit of local reverse passes (PairKernelParams::stop_scores).
// One file per element type and stop flag, so that they compile in parallel (pair_shapes_packed.cu: the
// packed shapes).
#include "kernels/gpu/pair_kernel.cuh"

WARPSEARCH_INSTANTIATE_32BIT_PAIR_SHAPES(std::int16_t, true);
