// The dispatch tables: one entry per length bin, built from kLengthBins' indices, and one per register
// count of the streamed kernel.
#include "kernels/gpu/sw_dispatch.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace warpsearch::gpu::detail {
namespace {

template <std::size_t... Bins>
constexpr auto make_bin_table(std::index_sequence<Bins...>) {
  return std::array<BinEntry, sizeof...(Bins)>{BinEntry{&prepare_bin<static_cast<int>(Bins)>,
                                                        &bin_occupancy<static_cast<int>(Bins)>,
                                                        &launch_bin<static_cast<int>(Bins)>}...};
}

template <std::size_t... K>
constexpr auto make_streamed_table(std::index_sequence<K...>) {
  return std::array<BinEntry, sizeof...(K)>{BinEntry{&prepare_streamed<kStreamedMinRegs + static_cast<int>(K)>,
                                                     &streamed_occupancy<kStreamedMinRegs + static_cast<int>(K)>,
                                                     &launch_streamed<kStreamedMinRegs + static_cast<int>(K)>}...};
}

}  // namespace

const BinEntry& streamed_entry(int regs) {
  static const auto table = make_streamed_table(std::make_index_sequence<kStreamedRegCount>{});
  if (regs < kStreamedMinRegs || regs > kStreamedMaxRegs)
    throw std::out_of_range("no streamed kernel of " + std::to_string(regs) + " rows a lane");
  return table[static_cast<std::size_t>(regs - kStreamedMinRegs)];
}

const BinEntry& bin_entry(int bin) {
  static const auto table = make_bin_table(std::make_index_sequence<kBinCount>{});
  if (bin < 0 || bin >= kBinCount) throw std::out_of_range("no length bin " + std::to_string(bin));
  return table[static_cast<std::size_t>(bin)];
}

}  // namespace warpsearch::gpu::detail
