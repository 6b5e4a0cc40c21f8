#!/usr/bin/env bash
# Here (no GPU needed): copies the built GPU test and benchmark binaries into carry/bin for
# bench/gpu/run_on_device.sh. carry/ is git-ignored; data and CUDASW++ binaries are put there by hand
# (docs/gpu_kernels.md says how).
set -eu
BUILD=${1:-build-gpu}
mkdir -p carry/bin
cp "$BUILD/tests/warpsearch_tests" "$BUILD/bench/gpu_score_bench" carry/bin/
du -sh carry
