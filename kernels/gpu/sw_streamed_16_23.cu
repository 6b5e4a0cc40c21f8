// Explicit instantiations of the streamed kernel (kernels/gpu/sw_streamed.cuh) for 16..23 query rows a lane.
// One file per few register counts: the build compiles them in parallel.
#include "kernels/gpu/sw_streamed.cuh"

WARPSEARCH_INSTANTIATE_STREAMED(16);
WARPSEARCH_INSTANTIATE_STREAMED(17);
WARPSEARCH_INSTANTIATE_STREAMED(18);
WARPSEARCH_INSTANTIATE_STREAMED(19);
WARPSEARCH_INSTANTIATE_STREAMED(20);
WARPSEARCH_INSTANTIATE_STREAMED(21);
WARPSEARCH_INSTANTIATE_STREAMED(22);
WARPSEARCH_INSTANTIATE_STREAMED(23);
