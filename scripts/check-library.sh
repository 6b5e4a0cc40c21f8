#!/usr/bin/env bash
# The library as others use it (docs/library.md): builds build/ (reusing what scripts/test.sh built) with
# the Python module, installs it into a scratch prefix, and there
#   - builds the standalone CMake project examples/ against the installed package (find_package) and runs
#     its programs, the shared and the static link;
#   - finds the package with pkg-config and compiles an example with its flags;
#   - runs the Python tests (python/tests) on the installed module;
# then builds the .deb with cpack, unpacks it into a scratch root (dpkg -x) and runs the tool and the
# Python import from there. Extra arguments go to cmake's configure step. BUILD_DIR overrides build/.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD
build=${BUILD_DIR:-build}
jobs=$(nproc)
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3  # Debian's, where python3-pybind11 and pytest live
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/warpsearch-library.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
step() { printf '== check-library: %s (%ds)\n' "$1" "$SECONDS"; }

step "build with the Python module"
cmake -S . -B "$build" -G Ninja -DWARPSEARCH_PYTHON=ON -DPython3_EXECUTABLE="$python" "$@" >/dev/null
cmake --build "$build" --parallel "$jobs"
version=$(sed -n 's/^project(warpsearch VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)

step "install into a scratch prefix"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name warpsearch.pc -path '*/pkgconfig/*')")/..
for installed in bin/warpsearch include/warpsearch/warpsearch.hpp include/warpsearch/version.hpp; do
  [ -e "$prefix/$installed" ] || { echo "check-library: $installed is not installed" >&2; exit 1; }
done
for installed in libwarpsearch.a libwarpsearch.so cmake/warpsearch/warpsearchConfig.cmake pkgconfig/warpsearch.pc; do
  [ -e "$libdir/$installed" ] || { echo "check-library: $installed is not installed" >&2; exit 1; }
done
# The shared library exports the API and nothing of the engine inside it (api/exports.map).
if nm -DC --defined-only "$libdir"/libwarpsearch.so | grep -v ' warpsearch::v0::' | grep -Ev ' [A-Z] (_init|_fini)$' \
  | grep -E ' [TDBRVWiu] '; then
  echo "check-library: libwarpsearch.so exports more than warpsearch::v0" >&2
  exit 1
fi
# The public headers stand alone: no internal header, no CUDA.
if grep -En '#include "(base|core|db|profile|kernels|statistics|search|output|cluster|api|tools)/|cuda' "$prefix"/include/warpsearch/*.hpp; then
  echo "check-library: an installed header includes an internal or CUDA header" >&2
  exit 1
fi

step "examples/ against the installed package"
cmake -S examples -B "$scratch/examples" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Wshadow -Werror" >/dev/null
cmake --build "$scratch/examples" --parallel "$jobs"
"$scratch/examples/build_database" "$scratch/db"
"$scratch/examples/search_database" "$scratch/db" data/queries.fa 3 >"$scratch/hits.tsv"
"$scratch/examples/search_database_static" "$scratch/db" data/queries.fa 3 >"$scratch/hits_static.tsv"
[ -s "$scratch/hits.tsv" ] || { echo "check-library: search_database found no hits" >&2; exit 1; }
cmp "$scratch/hits.tsv" "$scratch/hits_static.tsv"
"$scratch/examples/align_pairs"

step "pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
pkg-config --exists warpsearch
[ "$(pkg-config --modversion warpsearch)" = "$version" ]
# shellcheck disable=SC2046  # the flags are words
c++ -std=c++17 examples/align_pairs.cpp -o "$scratch/align_pairs_pc" $(pkg-config --cflags --libs warpsearch) \
  -Wl,-rpath,"$libdir"
"$scratch/align_pairs_pc" >/dev/null
unset PKG_CONFIG_PATH

step "Python tests on the installed module"
PYTHONPATH=$prefix/lib/python3/dist-packages WARPSEARCH_BINARY=$prefix/bin/warpsearch \
  "$python" -m pytest -q -p no:cacheprovider python/tests

step "cpack -G DEB, unpacked into a scratch root"
(cd "$build" && cpack -G DEB -B "$scratch/deb" >/dev/null)
deb=$(ls "$scratch"/deb/*.deb)
dpkg-deb -c "$deb" | awk '{print $6}' >"$scratch/deb.list"
for packaged in usr/bin/warpsearch usr/include/warpsearch/warpsearch.hpp "libwarpsearch.so.$version" libwarpsearch.a \
                cmake/warpsearch/warpsearchConfig.cmake pkgconfig/warpsearch.pc python3/dist-packages/warpsearch.; do
  grep -q "$packaged" "$scratch/deb.list" || { echo "check-library: the .deb lacks $packaged" >&2; exit 1; }
done
for optional in warpsearch.1:man1/warpsearch.1 warpsearch.bash-completion:completions/warpsearch; do
  if [ -e "tools/${optional%%:*}" ] && ! grep -q "${optional#*:}" "$scratch/deb.list"; then
    echo "check-library: the .deb lacks ${optional#*:}" >&2
    exit 1
  fi
done
root=$scratch/root
dpkg -x "$deb" "$root"
[ "$("$root/usr/bin/warpsearch" --version | head -n 1)" = "warpsearch $version" ]
(cd "$scratch" && PYTHONPATH=$root/usr/lib/python3/dist-packages "$python" -c \
  "import warpsearch; assert warpsearch.__version__ == '$version', warpsearch.__version__; print('python:', warpsearch.__file__)")
# The unpacked package serves find_package too.
cmake -S examples -B "$scratch/examples-deb" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" >/dev/null
cmake --build "$scratch/examples-deb" --parallel "$jobs" --target align_pairs >/dev/null
LD_LIBRARY_PATH=$root/usr/lib "$scratch/examples-deb/align_pairs" >/dev/null
cd "$source_dir"
step "done: $(basename "$deb")"
