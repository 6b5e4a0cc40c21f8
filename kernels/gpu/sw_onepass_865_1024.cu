// Explicit instantiations of the scoring kernel for length bins 36..40: the one-pass bins of 865..1024 residues (28..32
// columns per lane). One file per few bins: the build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(36);
WARPSEARCH_INSTANTIATE_BIN(37);
WARPSEARCH_INSTANTIATE_BIN(38);
WARPSEARCH_INSTANTIATE_BIN(39);
WARPSEARCH_INSTANTIATE_BIN(40);
