// Explicit instantiations of the scoring kernel for length bins 19 20 21. (One file per few bins: the
// build compiles them in parallel.)
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(19);
WARPSEARCH_INSTANTIATE_BIN(20);
WARPSEARCH_INSTANTIATE_BIN(21);
