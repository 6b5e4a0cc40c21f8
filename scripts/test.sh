#!/usr/bin/env bash
# Builds warpsearch and runs the whole test suite (GPU tests skip, with a message, where no GPU is usable).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Cluster mode (MPI) is built and tested wherever Open MPI is installed; -DWARPSEARCH_MPI=OFF overrides.
mpi=()
if command -v mpirun >/dev/null && command -v mpicxx >/dev/null; then mpi=(-DWARPSEARCH_MPI=ON); fi
scripts/build.sh "${mpi[@]}" "$@"
ctest --test-dir build --output-on-failure --parallel "$(nproc)"
