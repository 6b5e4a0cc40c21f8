// Scan kernels in plain C++ (no instruction-set flags): the scalar fallback, and the 32-bit width
// that every instruction set uses for the rare subjects that saturate 16 bits.
#include "kernels/cpu/scan_kernel.hpp"

namespace warpsearch::cpu::detail {

const ScanTable kScanScalar = make_scan_table<ScalarTraits<std::uint8_t, kCap8>, ScalarTraits<std::uint16_t, kCap16>>();

}  // namespace warpsearch::cpu::detail
