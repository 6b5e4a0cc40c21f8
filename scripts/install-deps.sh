#!/usr/bin/env bash
# Installs the Debian 12 packages that building and testing warpsearch need, if any are missing.
# CUDA is optional: with nvcc on the PATH (or in /usr/local/cuda/bin) the GPU engine is built too.
set -euo pipefail
packages=(cmake ninja-build g++ make pkg-config zlib1g-dev libbz2-dev liblzma-dev libzstd-dev libboost-program-options-dev
          catch2 libparasail-dev libopenmpi-dev openmpi-bin python3-dev python3-pybind11 pybind11-dev python3-pytest
          python3-numpy dpkg-dev time clang clang-format
          # the tests' oracles for the output formats (they skip without them): BLAST+, samtools, xmllint, Biopython
          ncbi-blast+ samtools libxml2-utils python3-biopython)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
