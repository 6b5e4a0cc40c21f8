// Explicit instantiations of the scoring kernel for length bins 31..35: the one-pass bins of 705..864 residues (23..27
// columns per lane). One file per few bins: the build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(31);
WARPSEARCH_INSTANTIATE_BIN(32);
WARPSEARCH_INSTANTIATE_BIN(33);
WARPSEARCH_INSTANTIATE_BIN(34);
WARPSEARCH_INSTANTIATE_BIN(35);
