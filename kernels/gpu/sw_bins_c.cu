// Explicit instantiations of the scoring kernel for length bins 14 15 16 17 18. One file per few bins: the
// build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(14);
WARPSEARCH_INSTANTIATE_BIN(15);
WARPSEARCH_INSTANTIATE_BIN(16);
WARPSEARCH_INSTANTIATE_BIN(17);
WARPSEARCH_INSTANTIATE_BIN(18);
