// Explicit instantiations of the scoring kernel for length bins 19..22 (the one-pass 1024 bin, the
// tiled, cooperative and 32-bit rescoring bins). One file per few bins: the build compiles them in
// parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(19);
WARPSEARCH_INSTANTIATE_BIN(20);
WARPSEARCH_INSTANTIATE_BIN(21);
WARPSEARCH_INSTANTIATE_BIN(22);
