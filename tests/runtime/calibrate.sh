#!/bin/sh
# einrt-calibrate end to end: on 1 and 2 ranks it writes a machine file whose estimate
# fields are positive numbers, that einplan reads (--machine, --objective time), and a
# bad option is exit 2. Usage: calibrate.sh EINRT_CALIBRATE EINPLAN GRAPH
CALIBRATE=$1 EINPLAN=$2 GRAPH=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for np in 1 2; do
  mpirun --oversubscribe -np $np "$CALIBRATE" --quick -o "$WORK/m$np.yaml" || fail "calibrate on $np ranks"
  for key in latency bandwidth flops flops_f64 memory_bandwidth; do
    value=$(sed -n "s/^$key: *\([0-9.e+-]*\).*/\1/p" "$WORK/m$np.yaml")
    [ -n "$value" ] || fail "$key missing from the $np-rank machine file"
  done
  grep -q "^ranks: $np" "$WORK/m$np.yaml" || fail "ranks: $np"
  "$EINPLAN" plan "$GRAPH" -p $np --machine "$WORK/m$np.yaml" --objective time --format json >"$WORK/plan.json" ||
    fail "einplan --machine reads the $np-rank file"
  grep -q '"estimated_time_s"' "$WORK/plan.json" || fail "the plan has an estimated time"
done
mpirun --oversubscribe -np 1 "$CALIBRATE" --bogus 2>"$WORK/err" && fail "a bad option is an error"
grep -q "unknown option '--bogus'" "$WORK/err" || fail "the bad option is named"
echo "einrt-calibrate: ok"
