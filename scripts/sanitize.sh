#!/usr/bin/env bash
# Builds the CPU-only tool and its tests with AddressSanitizer and UndefinedBehaviorSanitizer (CMake
# preset asan-ubsan, in build-asan/) and runs the test suite under them. Any sanitizer report fails the
# run (halt_on_error, no recovery from undefined behaviour).
#
#   scripts/sanitize.sh                 the whole CPU test suite (ctest)
#   scripts/sanitize.sh FILTER...       only the Catch2 test cases FILTER selects, e.g. "[robustness]"
#
# The tool the tests run (build-asan/tools/warpsearch) is sanitized too. The preset turns off GCC's
# -Wmaybe-uninitialized: under the sanitizers at -O1, GCC 12 reports it inside libstdc++'s <regex>
# (std::function moved in _NFA::_M_insert_subexpr_end), where nothing is uninitialised.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cmake --preset asan-ubsan >/dev/null
cmake --build --preset asan-ubsan --parallel "$(nproc)"
if (($#)); then
  build-asan/tests/warpsearch_tests "$@"
else
  ctest --preset asan-ubsan --parallel "$(nproc)"
fi
