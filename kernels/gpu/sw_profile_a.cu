// Explicit instantiations of the query-profile kernel for shapes 0..2 (profile_shapes.hpp); one file per
// few shapes: the build compiles them in parallel.
#include "kernels/gpu/profile_kernel.cuh"

WARPSEARCH_INSTANTIATE_PROFILE(0);
WARPSEARCH_INSTANTIATE_PROFILE(1);
WARPSEARCH_INSTANTIATE_PROFILE(2);
