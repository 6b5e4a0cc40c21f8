#!/usr/bin/env bash
# Configures and builds warpsearch in build/ (Release). Extra arguments go to cmake's configure step,
# e.g. scripts/build.sh -DWARPSEARCH_CUDA=OFF. GPU code is built for CUDA_ARCHITECTURES (default 90).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}" "$@" >/dev/null
cmake --build build --parallel "$(nproc)"
