// The substitution scores as one plain kMaxCodes x kMaxCodes table of int32 on a device (row = the
// first code), for the kernels that read them from shared memory by (code * kMaxCodes + code): the hot
// columns and the long-pair kernel. Private to kernels/gpu (it exposes CUDA types).
#pragma once

#include <cstdint>
#include <vector>

#include "core/alphabet.hpp"
#include "kernels/gpu/cuda_support.cuh"
#include "profile/scoring.hpp"

namespace warpsearch::gpu::detail {

inline DeviceBuffer<std::int32_t> upload_score_table(const ScoringScheme& scoring, int device) {
  std::vector<std::int32_t> table(kMaxCodes * kMaxCodes);
  for (int x = 0; x < kMaxCodes; ++x)
    for (int y = 0; y < kMaxCodes; ++y)
      table[static_cast<std::size_t>(x * kMaxCodes + y)] =
          scoring.score(static_cast<std::uint8_t>(x), static_cast<std::uint8_t>(y));
  DeviceBuffer<std::int32_t> buffer(table.size(), device);
  copy_to_device(buffer.get(), table.data(), table.size() * sizeof(std::int32_t));
  return buffer;
}

}  // namespace warpsearch::gpu::detail
