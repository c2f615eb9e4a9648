#!/usr/bin/env bash
# Runs each named libFuzzer target for SECONDS: its checked-in corpus (fuzz/NAME/corpus) seeds it,
# what it finds goes to .build/fuzz/corpus/NAME, a crash to .build/fuzz/crashes/.
# Extra libFuzzer flags for a target come from fuzz/NAME/options (one line).
# Prints the executions of each target; exits 1 when any target failed.
# Usage: fuzz/run.sh SECONDS NAME...
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=$1
shift
out=${FUZZ_OUT:-.build/fuzz}
mkdir -p "$out/crashes" "$out/logs"
summary=() failed=0
for target in "$@"; do
    mkdir -p "$out/corpus/$target" "fuzz/$target/corpus"
    options=()
    [[ -f fuzz/$target/options ]] && read -r -a options <"fuzz/$target/options"
    log=$out/logs/$target.log
    echo "fuzz: $target for ${seconds}s"
    # ASan's leak check is off (Swift's runtime keeps caches it reports as leaks); so is Swift's backtracer,
    # which ASan trips over: the fatal error's message and ASan's own report say what broke. No allocation
    # stacks and a small quarantine: a third more executions, and an overflow is still caught where it happens.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:malloc_context_size=0:quarantine_size_mb=16:${ASAN_OPTIONS:-} "$out/bin/$target" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$out/crashes/$target-" "${options[@]}" "$out/corpus/$target" "fuzz/$target/corpus" >"$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    if [[ $status -ne 0 ]]; then
        failed=1
        summary+=("$target: FAILED (exit $status) after ${runs:-?} runs; see $log")
        grep -m5 -E "ERROR|Fatal error|precondition|SUMMARY" "$log" | sed 's/^/    /'
    else
        summary+=("$target: ${runs:-?} runs in ${seconds}s, peak RSS ${rss:-?} MB")
    fi
done
printf '%s\n' "${summary[@]}"
exit $failed
