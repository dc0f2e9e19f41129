#!/bin/sh
# einrt-calibrate end to end: on 1 and 2 ranks it writes a machine file whose estimate
# fields are positive numbers, with the grids of calls with A and B transposed, that
# einplan reads (--machine, --objective time), and a bad option is exit 2. With
# --ranks-per-node 2 on 4 ranks of this one machine it measures
# the intra-node link only and says so (no cluster fields); with --as-cluster it measures
# both links and writes a cluster file that einplan reads, whose plans split their bytes.
# Usage: calibrate.sh EINRT_CALIBRATE EINPLAN GRAPH
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
  for grid in gemm_at_flops_f32 gemm_bt_flops_f32; do  # the transposed calls' grids, which einplan reads below
    grep -q "^  $grid: \[[0-9]" "$WORK/m$np.yaml" || fail "$grid missing from the $np-rank machine file"
  done
  "$EINPLAN" plan "$GRAPH" -p $np --machine "$WORK/m$np.yaml" --objective time --format json >"$WORK/plan.json" ||
    fail "einplan --machine reads the $np-rank file"
  grep -q '"estimated_time_s"' "$WORK/plan.json" || fail "the plan has an estimated time"
done
mpirun --oversubscribe -np 4 "$CALIBRATE" --quick --ranks-per-node 2 -o "$WORK/one.yaml" || fail "calibrate --ranks-per-node 2"
grep -q '^links_measured: "intra-node only: --ranks-per-node 2 asked for a cluster, but all 4 ranks share one machine' "$WORK/one.yaml" ||
  fail "on one machine the file says only the intra-node link was measured"
grep -q "^ranks_per_node:" "$WORK/one.yaml" && fail "no cluster fields without a network"
mpirun --oversubscribe -np 4 "$CALIBRATE" --quick --ranks-per-node 2 --as-cluster -o "$WORK/two.yaml" || fail "calibrate --as-cluster"
grep -q '^links_measured: "intra-node and inter-node: 2 ranks per node' "$WORK/two.yaml" || fail "both links recorded"
grep -q "^ranks_per_node: 2$" "$WORK/two.yaml" || fail "ranks_per_node: 2"
for key in inter_node_latency inter_node_bandwidth; do
  value=$(sed -n "s/^$key: *\([0-9.e+-]*\).*/\1/p" "$WORK/two.yaml")
  [ -n "$value" ] || fail "$key missing from the cluster file"
done
"$EINPLAN" plan "$GRAPH" -p 4 --machine "$WORK/two.yaml" --objective time --format json >"$WORK/plan4.json" ||
  fail "einplan --machine reads the cluster file"
grep -q '"ranks_per_node": 2' "$WORK/plan4.json" || fail "the plan is for 2 ranks per node"
grep -q '"inter_node_bytes"' "$WORK/plan4.json" || fail "the plan splits its bytes by link"
mpirun --oversubscribe -np 1 "$CALIBRATE" --as-cluster 2>"$WORK/err" && fail "--as-cluster alone is an error"
grep -q "needs --ranks-per-node" "$WORK/err" || fail "--as-cluster alone is explained"
mpirun --oversubscribe -np 1 "$CALIBRATE" --bogus 2>"$WORK/err" && fail "a bad option is an error"
grep -q "unknown option '--bogus'" "$WORK/err" || fail "the bad option is named"
echo "einrt-calibrate: ok"
