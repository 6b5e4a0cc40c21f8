// Explicit instantiations of the scoring kernel for length bins 9..16: the one-pass bins of 129..256 residues (groups
// of 16 lanes). One file per few bins: the build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(9);
WARPSEARCH_INSTANTIATE_BIN(10);
WARPSEARCH_INSTANTIATE_BIN(11);
WARPSEARCH_INSTANTIATE_BIN(12);
WARPSEARCH_INSTANTIATE_BIN(13);
WARPSEARCH_INSTANTIATE_BIN(14);
WARPSEARCH_INSTANTIATE_BIN(15);
WARPSEARCH_INSTANTIATE_BIN(16);
