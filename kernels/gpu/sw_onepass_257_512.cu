// Explicit instantiations of the scoring kernel for length bins 17..24: the one-pass bins of 257..512 residues (9..16
// columns per lane). One file per few bins: the build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(17);
WARPSEARCH_INSTANTIATE_BIN(18);
WARPSEARCH_INSTANTIATE_BIN(19);
WARPSEARCH_INSTANTIATE_BIN(20);
WARPSEARCH_INSTANTIATE_BIN(21);
WARPSEARCH_INSTANTIATE_BIN(22);
WARPSEARCH_INSTANTIATE_BIN(23);
WARPSEARCH_INSTANTIATE_BIN(24);
