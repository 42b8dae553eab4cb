#!/bin/bash
# Runs two builds of `compare` at the same time, each pinned to its own core, N times, swapping the
# cores between runs, so that both see the same moments of a shared machine (see README.md,
# "Comparing two builds"). Output: OUT/old.K.md and OUT/new.K.md, one table per run.
#
#   Benchmarks/pair.sh OLD_BINARY NEW_BINARY N OUT [compare options...]
#   Benchmarks/pair.sh /tmp/compare-old Benchmarks/.build/release/compare 6 /tmp/pairs --only predicates
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: $0 OLD_BINARY NEW_BINARY N OUT_DIRECTORY [compare options...]" >&2
    exit 2
fi
old=$1 new=$2 n=$3 out=$4
shift 4
command -v taskset > /dev/null || { echo "$0: needs taskset (util-linux)" >&2; exit 2; }
mkdir -p "$out"
for k in $(seq 1 "$n"); do
    if [ $((k % 2)) = 1 ]; then old_core=0 new_core=1; else old_core=1 new_core=0; fi
    taskset -c $old_core "$old" "$@" > "$out/old.$k.md" 2> "$out/old.$k.log" &
    taskset -c $new_core "$new" "$@" > "$out/new.$k.md" 2> "$out/new.$k.log" &
    wait
    echo "pair $k of $n done" >&2
done
