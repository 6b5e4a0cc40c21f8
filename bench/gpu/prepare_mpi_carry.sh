#!/usr/bin/env bash
# Here (no GPU needed): copies this machine's Open MPI runtime (Debian 12 packages) into carry/openmpi, for
# bench/gpu/mpi_on_device.sh on a GPU machine that has no MPI of its own, and the cluster-mode binaries
# into carry/bin. The runtime is relocated there with OPAL_PREFIX / PMIX_INSTALL_PREFIX (mpi_on_device.sh
# sets them); about 20 MB. carry/ is git-ignored.
#
# usage: bench/gpu/prepare_mpi_carry.sh [BUILD]   BUILD: a build with -DWARPSEARCH_MPI=ON (and CUDA for the
#        GPU run; -DWARPSEARCH_STATIC_BOOST=ON so that Boost need not be carried), default build-gpu-mpi
set -euo pipefail
build=${1:-build-gpu-mpi}
packages=(openmpi-bin openmpi-common libopenmpi3 libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
          libfabric1 libucx0 libibverbs1)
rm -rf carry/openmpi
mkdir -p carry/openmpi carry/bin
for package in "${packages[@]}"; do
  dpkg -L "$package" >/dev/null 2>&1 || { echo "prepare_mpi_carry: $package is not installed" >&2; exit 2; }
  dpkg -L "$package" | while read -r path; do
    [[ -f $path || -L $path ]] || continue
    case $path in /usr/share/doc/* | /usr/share/man/* | /usr/share/lintian/*) continue ;; esac
    mkdir -p "carry/openmpi$(dirname "$path")"
    cp -P "$path" "carry/openmpi$path"
  done
done
# The alternatives' links (mpirun -> /etc/alternatives/mpirun) point outside the copy.
for tool in mpirun mpiexec; do ln -sf orterun "carry/openmpi/usr/bin/$tool"; done
cp "$build/tools/warpsearch" carry/bin/warpsearch
du -sh carry/openmpi carry/bin/warpsearch
