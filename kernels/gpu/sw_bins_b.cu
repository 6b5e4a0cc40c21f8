// Explicit instantiations of the scoring kernel for length bins 7 8 9 10 11 12 13. One file per few bins: the
// build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(7);
WARPSEARCH_INSTANTIATE_BIN(8);
WARPSEARCH_INSTANTIATE_BIN(9);
WARPSEARCH_INSTANTIATE_BIN(10);
WARPSEARCH_INSTANTIATE_BIN(11);
WARPSEARCH_INSTANTIATE_BIN(12);
WARPSEARCH_INSTANTIATE_BIN(13);
