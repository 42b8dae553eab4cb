#!/usr/bin/env bash
# Builds the libFuzzer targets of Sources/ocd-fuzz and runs each one (docs/LongRuns.md).
#
#   Scripts/fuzz.sh                 short run: 100 000 inputs per target (CI, under a minute after the build)
#   OCD_FUZZ=1 Scripts/fuzz.sh      long run: 10 000 000 inputs per target
#   Scripts/fuzz.sh sql             one target only; OCD_FUZZ_RUNS=N overrides the count
#   OCD_FUZZ_CONFIG=debug Scripts/fuzz.sh
#                                   a debug build (CI: it skips an optimised build of swift-syntax)
#
# A failure leaves crash-* / timeout-* files in .fuzz/TARGET/ and exits non-zero; replay one with
# `swift run ocd-fuzz TARGET .fuzz/TARGET/crash-…` (a plain build, no libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."

# The short run uses a fixed libFuzzer seed, so CI is repeatable; the long run a new one each time
# (libFuzzer prints it: "INFO: Seed: N"; OCD_FUZZ_SEED=N repeats it).
if [[ "${OCD_FUZZ:-0}" == "1" ]]; then runs=10000000; seed=0; else runs=100000; seed=1; fi
seed="${OCD_FUZZ_SEED:-$seed}"
runs="${OCD_FUZZ_RUNS:-$runs}"
config="${OCD_FUZZ_CONFIG:-release}"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(parser sql)

# lld: the system's gold linker fails with an internal error on libFuzzer's archive.
swift build -c "$config" --product ocd-fuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DOCD_FUZZ -Xswiftc -use-ld=lld
binary="$(swift build -c "$config" --product ocd-fuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DOCD_FUZZ -Xswiftc -use-ld=lld --show-bin-path)/ocd-fuzz"

export SWIFT_BACKTRACE=enable=no  # let libFuzzer's handler report the crash and save the input
for target in "${targets[@]}"; do
    work=".fuzz/$target"
    mkdir -p "$work/corpus"
    seeds=()
    [[ -d "Fuzz/corpus/$target" ]] && seeds=("Fuzz/corpus/$target")
    echo "== ocd-fuzz $target: $runs inputs"
    start=$(date +%s)
    set +e
    "$binary" "$target" -runs="$runs" -seed="$seed" -timeout=10 -max_len=512 -print_final_stats=1 \
        -artifact_prefix="$work/" "$work/corpus" "${seeds[@]}" > "$work/log.txt" 2>&1
    status=$?
    set -e
    grep -E "^INFO: Seed:|^#[0-9]+[[:space:]]+(INITED|DONE)|^ocd-fuzz|^SUMMARY|^stat::(number_of_executed_units|slowest_unit_time_sec)|^artifact_prefix" "$work/log.txt" || true
    echo "== ocd-fuzz $target: exit $status after $(( $(date +%s) - start )) s (log: $work/log.txt)"
    [[ $status -eq 0 ]] || exit "$status"
done
