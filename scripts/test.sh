#!/usr/bin/env bash
# Builds warpsearch and runs the whole test suite (GPU tests skip, with a message, where no GPU is usable).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh "$@"
ctest --test-dir build --output-on-failure --parallel "$(nproc)"
