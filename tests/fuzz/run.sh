#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time, one process on
# one core each, JOBS of them at once (default 1). Fails on the first crash, sanitizer
# report, leak or hang; the input that caused it is left in $BUILD/artifacts/.
#
#   tests/fuzz/run.sh [seconds per target, default 60] [target ...]
#
# Targets: fen move uci usi xboard (all by default). The seeds are tests/fuzz/corpus/<target>;
# what a run discovers is kept in $BUILD/corpus/<target> (not in the repository), so a
# later run starts from there. BUILD defaults to build-fuzz; CXX to clang++ (or clang++-14).
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fen move uci usi xboard)
BUILD=${BUILD:-build-fuzz}
CXX=${CXX:-$(command -v clang++ || command -v clang++-14)}

# The compiler is chosen once, when the build directory is made. A build already made
# with KHUN_FUZZ (.ci/run's sanitizer build, tests and asserts on) is used as it is.
if ! grep -q '^KHUN_FUZZ:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
  compiler=()
  [ -f "$BUILD/CMakeCache.txt" ] || compiler=(-DCMAKE_CXX_COMPILER="$CXX")
  # FUZZ_OPT: the optimisation level (-O2 by default; CI takes -O1 to build sooner).
  cmake -S . -B "$BUILD" "${compiler[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKHUN_FUZZ=ON \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${FUZZ_OPT:--O2} -g -DNDEBUG" -DKHUN_TESTS=OFF >/dev/null
fi
cmake --build "$BUILD" -j"${JOBS:-1}" --target $(printf 'fuzz_%s ' "${targets[@]}")

mkdir -p "$BUILD/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One target's run; its stats when it passes, the log's tail when it fails.
fuzz_one() {
  local t=$1
  mkdir -p "$BUILD/corpus/$t"
  # -timeout: one input that runs 20 s is a hang. -rss_limit_mb: a leak or a runaway
  # allocation fails the run.
  if ! "$BUILD/tests/fuzz/fuzz_$t" "$BUILD/corpus/$t" "tests/fuzz/corpus/$t" \
      -dict="tests/fuzz/dict/$t.dict" -max_total_time="$secs" -timeout=20 \
      -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$BUILD/artifacts/$t-" 2>"$BUILD/fuzz_$t.log"; then
    tail -n 60 "$BUILD/fuzz_$t.log"
    echo "fuzz_$t FAILED: see $BUILD/fuzz_$t.log and $BUILD/artifacts/" >&2
    return 1
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$BUILD/fuzz_$t.log" |
    sed "s/^/fuzz_$t /"
}

# JOBS targets run at once (each is one process on one core).
running=()
failed=0
for t in "${targets[@]}"; do
  echo "== fuzz_$t: ${secs} s"
  fuzz_one "$t" &
  running+=($!)
  if [ ${#running[@]} -ge "${JOBS:-1}" ]; then
    wait "${running[0]}" || failed=1
    running=("${running[@]:1}")
    [ "$failed" = 0 ] || break
  fi
done
for pid in "${running[@]}"; do wait "$pid" || failed=1; done
[ "$failed" = 0 ] || exit 1
echo "fuzzing: no crash in ${targets[*]}"
