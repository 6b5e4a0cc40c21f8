// Explicit instantiations of the query-profile kernel for shapes 3..4 (profile_shapes.hpp).
#include "kernels/gpu/profile_kernel.cuh"

WARPSEARCH_INSTANTIATE_PROFILE(3);
WARPSEARCH_INSTANTIATE_PROFILE(4);

static_assert(warpsearch::gpu::detail::kProfileShapeCount == 5,
              "kProfileShapes changed: update the sw_profile_*.cu split");
