// What the GPU tests (tests/gpu_test_*.cu) share: whether a GPU is usable, with the one skip message
// where none is. Header-only: only the CUDA builds compile the GPU tests.
#pragma once

#include "kernels/gpu/gpu_scorer.hpp"
#include "tests/catch.hpp"

namespace warpsearch::test {

// True where CUDA reports a usable device; else warns that `what` is skipped, and the test returns.
inline bool gpu_usable(const char* what) {
  if (gpu::usable_device_count() > 0) return true;
  WARN("no usable GPU: CUDA reports no device (or no driver); " << what << " skipped");
  return false;
}

}  // namespace warpsearch::test
