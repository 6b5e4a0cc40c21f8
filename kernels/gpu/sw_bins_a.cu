// Explicit instantiations of the scoring kernel for length bins 0 1 2 3 4 5 6. One file per few bins: the
// build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(0);
WARPSEARCH_INSTANTIATE_BIN(1);
WARPSEARCH_INSTANTIATE_BIN(2);
WARPSEARCH_INSTANTIATE_BIN(3);
WARPSEARCH_INSTANTIATE_BIN(4);
WARPSEARCH_INSTANTIATE_BIN(5);
WARPSEARCH_INSTANTIATE_BIN(6);
