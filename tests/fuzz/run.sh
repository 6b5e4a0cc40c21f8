#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a while.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     default: 60 s each, every target
#
# Targets: fasta (db/fasta.hpp), database (db/database.hpp + db/manifest.hpp), matrix (matrix files).
# The seed corpus is tests/fuzz/corpus/TARGET (small files, kept in git); what the fuzzer finds grows a
# working corpus in build-fuzz/corpus/TARGET, outside the source tree. A crashing input is written to
# build-fuzz/crash-* and the script fails. The clang++ to use may be set with CLANGXX (default
# clang++-14, Debian 12's, else clang++). Runs niced: it is meant to run beside other work.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fasta database matrix)

clangxx="${CLANGXX:-$(command -v clang++-14 || command -v clang++ || true)}"
[ -n "$clangxx" ] || { echo "tests/fuzz/run.sh: clang++ not found (apt-get install clang)" >&2; exit 1; }
build=build-fuzz
mkdir -p "$build"

flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I. -DWARPSEARCH_VERSION='"fuzz"')
db_sources=(base/atomic_file.cpp base/interrupt.cpp base/mapped_file.cpp base/text.cpp base/usable_cpus.cpp
            core/alphabet.cpp db/byte_source.cpp db/database.cpp db/decompress.cpp db/fasta.cpp db/makedb.cpp db/makedb_chunks.cpp
            db/manifest.cpp)
declare -A sources=(
  [fasta]="tests/fuzz/fuzz_fasta.cpp core/alphabet.cpp db/byte_source.cpp db/decompress.cpp db/fasta.cpp base/interrupt.cpp base/text.cpp"
  [database]="tests/fuzz/fuzz_database.cpp ${db_sources[*]}"
  [matrix]="tests/fuzz/fuzz_matrix.cpp core/alphabet.cpp base/text.cpp profile/scoring.cpp profile/builtin_matrices.cpp"
)

status=0
for target in "${targets[@]}"; do
  [ -n "${sources[$target]:-}" ] || { echo "unknown target '$target' (fasta, database, matrix)" >&2; exit 2; }
  binary="$build/fuzz_$target"
  # shellcheck disable=SC2086
  nice -n 19 "$clangxx" "${flags[@]}" ${sources[$target]} -lz -lbz2 -llzma -lzstd -o "$binary"
  mkdir -p "$build/corpus/$target"
  echo "== $target: ${seconds} s" >&2
  log="$build/fuzz_$target.log"
  if ! nice -n 19 "$binary" "$build/corpus/$target" "tests/fuzz/corpus/$target" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$build/" -print_final_stats=1 >"$log" 2>&1; then
    echo "== $target: FINDING, see $log" >&2
    status=1
  fi
  grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|^#[0-9]+.*DONE" "$log" >&2 || true
  echo "   corpus: $(find "$build/corpus/$target" -type f | wc -l) files" >&2
done
exit "$status"
