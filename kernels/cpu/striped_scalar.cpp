// Striped pair kernels in plain C++ (no instruction-set flags): one lane, the scalar fallback, and the
// 64-bit kernels that every instruction set falls back to beyond the 32-bit bound.
#include "kernels/cpu/striped_kernel.hpp"

namespace warpsearch::cpu::detail {

const StripedTable kStripedScalar =
    make_striped_table<ScalarStripedTraits<std::int16_t, true>, ScalarStripedTraits<std::int32_t, false>>();

const StripedFunction64 kStriped64 = make_striped_64();

}  // namespace warpsearch::cpu::detail
