// Explicit instantiations of the streamed kernel (kernels/gpu/sw_streamed.cuh) for 8..15 query rows a lane.
// One file per few register counts: the build compiles them in parallel.
#include "kernels/gpu/sw_streamed.cuh"

WARPSEARCH_INSTANTIATE_STREAMED(8);
WARPSEARCH_INSTANTIATE_STREAMED(9);
WARPSEARCH_INSTANTIATE_STREAMED(10);
WARPSEARCH_INSTANTIATE_STREAMED(11);
WARPSEARCH_INSTANTIATE_STREAMED(12);
WARPSEARCH_INSTANTIATE_STREAMED(13);
WARPSEARCH_INSTANTIATE_STREAMED(14);
WARPSEARCH_INSTANTIATE_STREAMED(15);
