// Explicit instantiations of the streamed kernel (kernels/gpu/sw_streamed.cuh) for 20..26 query rows a lane.
// One file per few register counts: the build compiles them in parallel.
#include "kernels/gpu/sw_streamed.cuh"

WARPSEARCH_INSTANTIATE_STREAMED(20);
WARPSEARCH_INSTANTIATE_STREAMED(22);
WARPSEARCH_INSTANTIATE_STREAMED(24);
WARPSEARCH_INSTANTIATE_STREAMED(26);
