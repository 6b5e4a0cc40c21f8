// Striped pair kernels in plain C++ (no instruction-set flags): one lane, the scalar fallback.
#include "kernels/cpu/striped_kernel.hpp"

namespace warpsearch::cpu::detail {

const StripedTable kStripedScalar =
    make_striped_table<ScalarStripedTraits<std::int16_t, true>, ScalarStripedTraits<std::int32_t, false>>();

}  // namespace warpsearch::cpu::detail
