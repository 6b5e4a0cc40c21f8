#!/usr/bin/env bash
# Compiles the GPU engine for a pre-Hopper architecture (default sm_80, CUDA_ARCHITECTURES overrides), in
# build-portable/: the kernels' portable path (no DPX instructions) must build, warning-free, even where no
# such GPU exists to run it. The libraries only (the engine, and the public libwarpsearch.so linked from it):
# no tests, tools or benchmarks. Skips without nvcc.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
if ! command -v nvcc >/dev/null; then
  echo "check-portable: no nvcc, nothing to compile"
  exit 0
fi
cmake -S . -B build-portable -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-80}" \
  -DWARPSEARCH_CUDA=ON -DWARPSEARCH_TESTS=OFF -DWARPSEARCH_BENCH=OFF -DWARPSEARCH_MPI=OFF >/dev/null
cmake --build build-portable --target warpsearch_shared --parallel "$(nproc)"
