// Explicit instantiations of the scoring kernel for length bins 41..46: the tiled bins (1025..4096
// residues, four tile widths), the cooperative bin and the 32-bit rescoring bin.
// One file per few bins: the build compiles them in parallel.
#include "kernels/gpu/sw_kernel.cuh"

WARPSEARCH_INSTANTIATE_BIN(41);
WARPSEARCH_INSTANTIATE_BIN(42);
WARPSEARCH_INSTANTIATE_BIN(43);
WARPSEARCH_INSTANTIATE_BIN(44);
WARPSEARCH_INSTANTIATE_BIN(45);
WARPSEARCH_INSTANTIATE_BIN(46);

static_assert(warpsearch::gpu::detail::kBinCount == 47,
              "kLengthBins changed: update the sw_onepass_*.cu / sw_tiled_cooperative_rescore.cu split");
