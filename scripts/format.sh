#!/usr/bin/env bash
# Formats the C++ and CUDA sources with the root .clang-format, or checks that they are formatted.
#   scripts/format.sh            format every source in place
#   scripts/format.sh --check    list the sources that are not formatted; exit 1 if there are any
# Formatting differs a little between clang-format versions; the tree is kept in version 14's (Debian 12's).
# With another major version, --check skips (exit 77) rather than report differences of the version.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
format=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [[ -z $format ]]; then
  echo "format: clang-format not found (Debian: apt-get install clang-format)" >&2
  exit 77
fi
version=$("$format" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
cd "$root"
mapfile -t sources < <(find api base cluster core db include kernels output profile python search statistics tests \
  tools bench examples -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) \
  | sort)
if [[ ${1:-} == --check ]]; then
  if [[ $version != 14 ]]; then
    echo "format: $format is version $version; the tree is kept in clang-format 14's format, not checked" >&2
    exit 77
  fi
  bad=0
  for file in "${sources[@]}"; do
    if ! "$format" --dry-run --Werror "$file" >/dev/null 2>&1; then
      echo "not formatted: $file (scripts/format.sh formats it)"
      bad=1
    fi
  done
  exit $bad
fi
"$format" -i "${sources[@]}"
