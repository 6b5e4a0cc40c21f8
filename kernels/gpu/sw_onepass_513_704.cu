// Explicit instantiations of the scoring kernel for length bins 25..30: the one-pass bins of 513..704 residues (17..22
// columns per lane). One file per few bins: the build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(25);
WARPSEARCH_INSTANTIATE_BIN(26);
WARPSEARCH_INSTANTIATE_BIN(27);
WARPSEARCH_INSTANTIATE_BIN(28);
WARPSEARCH_INSTANTIATE_BIN(29);
WARPSEARCH_INSTANTIATE_BIN(30);
