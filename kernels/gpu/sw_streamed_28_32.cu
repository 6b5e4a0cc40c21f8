// Explicit instantiations of the streamed kernel (kernels/gpu/sw_streamed.cuh) for 28..32 query rows a lane.
// One file per few register counts: the build compiles them in parallel.
#include "kernels/gpu/sw_streamed.cuh"

WARPSEARCH_INSTANTIATE_STREAMED(28);
WARPSEARCH_INSTANTIATE_STREAMED(30);
WARPSEARCH_INSTANTIATE_STREAMED(32);
