// Explicit instantiations of the pair kernel for every 32-bit shape of kPairShapes, 16-bit profiles
// (the schemes whose scores + open + extend do not fit 8 bits), without the early exit.
// One file per element type and stop flag, so that they compile in parallel (pair_shapes_packed.cu: the
// packed shapes).
#include "kernels/gpu/pair_kernel.cuh"

WARPSEARCH_INSTANTIATE_32BIT_PAIR_SHAPES(std::int16_t, false);
