// Explicit instantiations of the scoring kernel for length bins 0..8: the one-pass bins of 1..128 residues (groups of 1
// to 8 lanes). One file per few bins: the build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(0);
WARPSEARCH_INSTANTIATE_BIN(1);
WARPSEARCH_INSTANTIATE_BIN(2);
WARPSEARCH_INSTANTIATE_BIN(3);
WARPSEARCH_INSTANTIATE_BIN(4);
WARPSEARCH_INSTANTIATE_BIN(5);
WARPSEARCH_INSTANTIATE_BIN(6);
WARPSEARCH_INSTANTIATE_BIN(7);
WARPSEARCH_INSTANTIATE_BIN(8);
