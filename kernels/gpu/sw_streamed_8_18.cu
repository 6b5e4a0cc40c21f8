// Explicit instantiations of the streamed kernel (kernels/gpu/sw_streamed.cuh) for 8..18 query rows a lane.
// One file per few register counts: the build compiles them in parallel.
#include "kernels/gpu/sw_streamed.cuh"

WARPSEARCH_INSTANTIATE_STREAMED(8);
WARPSEARCH_INSTANTIATE_STREAMED(10);
WARPSEARCH_INSTANTIATE_STREAMED(12);
WARPSEARCH_INSTANTIATE_STREAMED(14);
WARPSEARCH_INSTANTIATE_STREAMED(16);
WARPSEARCH_INSTANTIATE_STREAMED(18);
