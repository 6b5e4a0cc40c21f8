// The dispatch tables: one entry per length bin (kLengthBins) and per query-profile shape (kProfileShapes).
#include "kernels/gpu/sw_dispatch.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace warpsearch::gpu::detail {
namespace {

template <std::size_t... Bins>
constexpr auto make_bin_table(std::index_sequence<Bins...>) {
  return std::array<BinEntry, sizeof...(Bins)>{
      BinEntry{&prepare_bin<static_cast<int>(Bins)>, &launch_bin<static_cast<int>(Bins)>}...};
}

template <std::size_t... Shapes>
constexpr auto make_profile_table(std::index_sequence<Shapes...>) {
  return std::array<ProfileEntry, sizeof...(Shapes)>{
      ProfileEntry{&prepare_profile<static_cast<int>(Shapes)>, &launch_profile<static_cast<int>(Shapes)>}...};
}

}  // namespace

const ProfileEntry& profile_entry(int shape) {
  static const auto table = make_profile_table(std::make_index_sequence<kProfileShapeCount>{});
  if (shape < 0 || shape >= kProfileShapeCount) throw std::out_of_range("no profile shape " + std::to_string(shape));
  return table[static_cast<std::size_t>(shape)];
}

const BinEntry& bin_entry(int bin) {
  static const auto table = make_bin_table(std::make_index_sequence<kBinCount>{});
  if (bin < 0 || bin >= kBinCount) throw std::out_of_range("no length bin " + std::to_string(bin));
  return table[static_cast<std::size_t>(bin)];
}

}  // namespace warpsearch::gpu::detail
