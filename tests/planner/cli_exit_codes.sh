#!/bin/sh
# einplan's planning commands: exit codes and messages for bad input (SPEC 5), plan-file
# round trips through the CLI, and compare --baseline. Usage: cli_exit_codes.sh EINPLAN DATA_DIR PYTHON
EINPLAN=$1
DATA=$2
PYTHON=${3:-/usr/bin/python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0

# expect CODE MESSAGE-SUBSTRING COMMAND...
expect() {
  code=$1; message=$2; shift 2
  "$@" >"$WORK/out" 2>"$WORK/err"
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$message" "$WORK/out" "$WORK/err"; then
    echo "FAIL: expected exit $code and '$message' from: $*"
    echo "  got exit $rc; stderr: $(cat "$WORK/err")"
    failures=$((failures + 1))
  fi
}

M=$DATA/matmul8.yaml
C=$DATA/chain.yaml
MACHINE=$WORK/machine.yaml
printf 'latency: 1e-6\nbandwidth: 1e9\nflops: 1e12\n' >"$MACHINE"

# -p must be a positive integer
expect 2 "-p/--devices: '0' is not a positive integer" "$EINPLAN" plan "$M" -p 0
expect 2 "-p/--devices: '-3' is not a positive integer" "$EINPLAN" plan "$M" --devices=-3
expect 2 "-p/--devices: 'abc' is not a positive integer" "$EINPLAN" plan "$M" -p abc
expect 2 "-p/--devices: '1.5' is not a positive integer" "$EINPLAN" plan "$M" -p 1.5
expect 2 "-p/--devices: 'nan' is not a positive integer" "$EINPLAN" plan "$M" -p nan
expect 2 "-p/--devices: '8x' is not a positive integer" "$EINPLAN" compare "$M" -p 8x
expect 2 "unknown algorithm 'magic'" "$EINPLAN" plan "$M" -p 4 --algorithm magic
expect 2 "unknown format" "$EINPLAN" plan "$M" -p 4 --format xml
expect 2 "is not a positive byte count" "$EINPLAN" plan "$M" -p 4 --mem-limit lots
expect 2 "--mem-limit: '' is not a positive byte count" "$EINPLAN" plan "$M" -p 4 --mem-limit ""
expect 0 "objective traffic" "$EINPLAN" plan "$M" -p 4 --mem-limit 1PiB
expect 2 "--time-margin applies to --objective time" "$EINPLAN" plan "$M" -p 4 --time-margin 0.1
expect 0 "objective time" "$EINPLAN" plan "$M" -p 4 --objective time --machine "$MACHINE" --time-margin 0
expect 2 "--time-margin: '1.5' is not a fraction from 0 to below 1" "$EINPLAN" plan "$M" -p 4 --objective time --machine "$MACHINE" --time-margin 1.5
expect 2 "--time-margin: 'x' is not a fraction" "$EINPLAN" compare "$M" -p 4 --objective time --machine "$MACHINE" --time-margin x

# a convolution's tap label and a spread window's label are never cut: by --fix or by a plan file
CONV=$DATA/../../codegen/pinned/convolution.yaml
expect 2 "label 'i' is a window's tap label (a convolution's kernel) or a spread window's label, which no partition cuts" "$EINPLAN" plan "$CONV" -p 3 --fix Z=i:3
expect 2 "label 'y' is a window's tap label (a convolution's kernel) or a spread window's label" "$EINPLAN" plan "$CONV" -p 3 --fix U=y:3
printf '{"devices": 3, "nodes": [{"name": "Z", "partition": {"i": 3}}]}' >"$WORK/tap.json"
expect 2 "tap.json:1:" "$EINPLAN" cost "$CONV" --plan "$WORK/tap.json"
expect 0 "objective traffic" "$EINPLAN" plan "$CONV" -p 3 --fix Z=y:3

# nothing is written when a command fails
"$EINPLAN" plan "$M" -p 0 -o "$WORK/never.json" 2>/dev/null
[ -e "$WORK/never.json" ] && { echo "FAIL: a failed plan wrote its output"; failures=$((failures + 1)); }

# plan files naming unknown nodes or labels, parts that do not divide, wrong products
printf '{"devices": 4, "nodes": [{"name": "XX", "partition": {"i": 4}}]}' >"$WORK/p1.json"
printf '{"devices": 4, "nodes": [{"name": "AB", "partition": {"q": 4}}]}' >"$WORK/p2.json"
printf '{"devices": 12, "nodes": [{"name": "AB", "partition": {"i": 3, "k": 4}}]}' >"$WORK/p3.json"
printf '{"devices": 16, "nodes": [{"name": "AB", "partition": {"i": 4, "k": 2}}]}' >"$WORK/p4.json"
printf 'devices: 4\nnodes:\n  - name: AB\n    partition: {i: 2, k: two}\n' >"$WORK/p5.yaml"
expect 2 "p1.json:1:" "$EINPLAN" cost "$M" --plan "$WORK/p1.json"
expect 2 "unknown node 'XX'" "$EINPLAN" cost "$M" --plan "$WORK/p1.json"
expect 2 "has no label 'q'" "$EINPLAN" cost "$M" --plan "$WORK/p2.json"
expect 2 "3 parts do not divide label 'i' of size 8" "$EINPLAN" cost "$M" --plan "$WORK/p3.json"
expect 2 "multiply to 8 kernel calls, expected 16" "$EINPLAN" cost "$M" --plan "$WORK/p4.json"
expect 2 "p5.yaml:4:" "$EINPLAN" cost "$M" --plan "$WORK/p5.yaml"
# the plan-wide switches take true or false
printf 'devices: 4\ninvariants_per_micro_batch: maybe\nnodes:\n  - name: AB\n    partition: {i: 4}\n' >"$WORK/p6.yaml"
expect 2 "p6.yaml:2:" "$EINPLAN" cost "$M" --plan "$WORK/p6.yaml"
expect 2 "'invariants_per_micro_batch' must be true or false" "$EINPLAN" cost "$M" --plan "$WORK/p6.yaml"
expect 2 "the plan is for 4 devices but -p gives 8" "$EINPLAN" cost "$M" --plan "$WORK/p1.json" -p 8
expect 2 "unknown node 'Q'" "$EINPLAN" plan "$M" -p 4 --fix Q=i:4
expect 2 "has no label 'z'" "$EINPLAN" plan "$M" -p 4 --fix AB=z:4
expect 2 "do not divide" "$EINPLAN" plan "$M" -p 6 --fix AB=i:3,k:2
expect 3 "no plan fits --mem-limit 16 bytes" "$EINPLAN" plan "$M" -p 16 --mem-limit 16

# the paper's worked example through the CLI: {4,1,4} costs 512; --fix and a hand-written plan agree
expect 0 "paper cost 512 elements" "$EINPLAN" plan "$M" -p 16 --fix AB=i:4,j:1,k:4
printf '{"devices": 16, "nodes": [{"name": "AB", "partition": {"i": 4, "j": 1, "k": 4}}]}' >"$WORK/hand.json"
expect 0 "paper cost 512 elements" "$EINPLAN" cost "$M" --plan "$WORK/hand.json"
expect 0 "paper cost 512 elements" "$EINPLAN" cost "$M" --plan - <"$WORK/hand.json"

# counts are 64-bit: 2^32 + 4 is not 4
expect 2 "4294967300 is above the planner's maximum of 1048576 ranks" "$EINPLAN" plan "$M" -p 4294967300
expect 2 "-p/--devices: 2147483647 is above the planner's maximum" "$EINPLAN" plan "$M" -p 2147483647
expect 2 "is not a positive integer that fits 63 bits" "$EINPLAN" plan "$M" -p 99999999999999999999

# option conflicts are errors
expect 2 "--algorithm and --plan exclude each other" "$EINPLAN" plan "$M" --plan "$WORK/hand.json" --algorithm uniform
expect 2 "--fix is given twice for node 'AB'" "$EINPLAN" plan "$M" -p 4 --fix AB=i:4 --fix AB=k:4
expect 2 "--objective time needs a machine file" "$EINPLAN" plan "$M" -p 4 --objective time
expect 2 "unknown objective 'trafic' (did you mean 'traffic'?)" "$EINPLAN" plan "$M" -p 4 --objective trafic

# plan -o never overwrites the graph it plans
cp "$M" "$WORK/g.yaml"
expect 2 "-o would overwrite the graph file being planned" "$EINPLAN" plan "$WORK/g.yaml" -p 4 -o "$WORK/g.yaml"
cmp -s "$M" "$WORK/g.yaml" || { echo "FAIL: plan -o overwrote its graph"; failures=$((failures + 1)); }

# a plan made for another graph is refused
"$EINPLAN" plan "$C" -p 4 -o "$WORK/chain_plan.json" >/dev/null
expect 2 "the plan was made for another graph" "$EINPLAN" cost "$M" --plan "$WORK/chain_plan.json"

# round trip: plan -o then cost --plan gives the same totals, JSON and YAML, several p
total() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_cost"])' "$1"; }
for p in 1 2 3 4 6 8; do
  for ext in json yaml; do
    "$EINPLAN" plan "$C" -p $p -o "$WORK/plan.$ext" >/dev/null || { echo "FAIL: plan -p $p -o .$ext"; failures=$((failures + 1)); }
    head -c 40 "$WORK/plan.$ext" | grep -q "schema_version" || { echo "FAIL: plan.$ext does not start with provenance"; failures=$((failures + 1)); }
    "$EINPLAN" plan "$C" -p $p --format json >"$WORK/planned.json"
    "$EINPLAN" cost "$C" --plan "$WORK/plan.$ext" --format json >"$WORK/costed.json"
    if [ "$(total "$WORK/planned.json")" != "$(total "$WORK/costed.json")" ]; then
      echo "FAIL: round trip p=$p .$ext: $(total "$WORK/planned.json") vs $(total "$WORK/costed.json")"
      failures=$((failures + 1))
    fi
  done
done

# compare --baseline: 0 within tolerance, 1 on a regression, under the objective's number
"$EINPLAN" plan "$C" -p 8 --format json >"$WORK/baseline.json"
expect 0 "eindecomp" "$EINPLAN" compare "$C" -p 8 --baseline "$WORK/baseline.json" --tolerance 0
"$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["total_traffic_bytes"]=r["total_traffic_bytes"]//2; r["total_cost"]=r["total_cost"]//2; json.dump(r,open(sys.argv[2],"w"))' \
  "$WORK/baseline.json" "$WORK/better.json"
expect 1 "uniform traffic" "$EINPLAN" compare "$C" -p 8 --algorithms uniform,eindecomp --baseline "$WORK/baseline.json" --tolerance 0.05
expect 1 "is worse than the baseline" "$EINPLAN" compare "$C" -p 8 --objective paper --baseline "$WORK/better.json"
expect 0 "uniform" "$EINPLAN" compare "$C" -p 8 --baseline "$WORK/better.json" --tolerance 1.5
expect 2 "baseline report has no 'graph_sha256'" "$EINPLAN" compare "$C" -p 8 --baseline "$WORK/p1.json"
# compare's own JSON is a baseline too (its first algorithm)
"$EINPLAN" compare "$C" -p 8 --format json >"$WORK/compared.json"
expect 0 "eindecomp" "$EINPLAN" compare "$C" -p 8 --baseline "$WORK/compared.json"
# a baseline for another graph or p, a tolerance that is not a number, or one without a baseline
expect 2 "the baseline is for another graph" "$EINPLAN" compare "$M" -p 8 --baseline "$WORK/baseline.json"
expect 2 "the baseline is for 8 devices, this comparison for 4" "$EINPLAN" compare "$C" -p 4 --baseline "$WORK/baseline.json"
expect 2 "--tolerance: 'nan' is not a non-negative number" "$EINPLAN" compare "$C" -p 8 --baseline "$WORK/baseline.json" --tolerance nan
expect 2 "--tolerance: '5%' is not a non-negative number" "$EINPLAN" compare "$C" -p 8 --baseline "$WORK/baseline.json" --tolerance 5%
expect 2 "--tolerance applies to a --baseline" "$EINPLAN" compare "$C" -p 8 --tolerance 0.1
# exit 3 when no algorithm fits --mem-limit; n/a cells keep the table's columns
expect 3 "no algorithm or plan fits --mem-limit" "$EINPLAN" compare "$M" -p 16 --mem-limit 16
"$EINPLAN" compare "$M" -p 16 --mem-limit 16 >"$WORK/na.txt" 2>/dev/null
grep -q "n/a: eindecomp: no plan fits --mem-limit 16 bytes" "$WORK/na.txt" || { echo "FAIL: compare names why an algorithm has no plan"; failures=$((failures + 1)); }

# hand strategies: a plan for the graph the same gen options write, whatever -o is; compare --plans
L="$EINPLAN gen llama --layers 1 --dim 32 --heads 4 --ffn 64 --vocab 50 --seq 8 --batch 2"
$L -o "$WORK/tiny.yaml" && $L -o "$WORK/elsewhere.yaml" && cmp -s "$WORK/tiny.yaml" "$WORK/elsewhere.yaml" ||
  { echo "FAIL: gen writes the same bytes for the same options"; failures=$((failures + 1)); }
for s in megatron sequence heads; do
  $L --strategy $s -p 4 -o "$WORK/$s.json" || { echo "FAIL: gen llama --strategy $s"; failures=$((failures + 1)); }
  expect 0 "objective traffic" "$EINPLAN" cost "$WORK/tiny.yaml" --plan "$WORK/$s.json"
done
expect 0 "megatron.json" "$EINPLAN" compare "$WORK/tiny.yaml" -p 4 --plans "$WORK/megatron.json,$WORK/sequence.json,$WORK/heads.json"
expect 2 "unknown strategy 'megatrn' (did you mean 'megatron'?)" $L --strategy megatrn -p 4
expect 2 "--strategy needs the device count" $L --strategy megatron
expect 3 "no plan fits --mem-limit" "$EINPLAN" compare "$WORK/tiny.yaml" -p 4 --algorithms data --plans "$WORK/megatron.json" --mem-limit 1KiB
# training strategies: data and zero3 (weights sharded at rest) for a --train step; zero1/2 are data here
$L --train -o "$WORK/train.yaml" && $L --train --strategy zero3 -p 4 -o "$WORK/zero3.json" &&
  $L --train --strategy data -p 4 -o "$WORK/data.json" || { echo "FAIL: gen llama --train --strategy data|zero3"; failures=$((failures + 1)); }
grep -q '"shard_at_rest"' "$WORK/zero3.json" || { echo "FAIL: the zero3 plan lists no shard_at_rest"; failures=$((failures + 1)); }
# megatron for a training step: every gradient and update node at full calls (the reader
# refused the backward before), also at a p no label size is a multiple of
$L --train --strategy megatron -p 4 --tensor-parallel 2 -o "$WORK/megatron_train.json" &&
  $L --train --strategy zero3 -p 3 -o "$WORK/zero3_p3.json" ||
  { echo "FAIL: gen llama --train --strategy megatron|zero3"; failures=$((failures + 1)); }
expect 0 "zero3.json" "$EINPLAN" compare "$WORK/train.yaml" -p 4 --plans "$WORK/zero3.json,$WORK/data.json,$WORK/megatron_train.json"
expect 0 "objective traffic" "$EINPLAN" cost "$WORK/train.yaml" --plan "$WORK/zero3_p3.json"
expect 2 "--strategy megatron-zero1: use megatron, which for a training step shards each update" $L --train --strategy megatron-zero1 -p 4
expect 2 "--strategy zero1: use data, which shards the optimizer state" $L --train --strategy zero1 -p 4
expect 2 "--strategy zero3: the graph has no trained weight" $L --strategy zero3 -p 4
# --recompute layers: the plan carries a copy of every layer activation but the layer's
# output; only for training steps, and only the value it names
$L --train --strategy zero3 -p 4 --recompute layers -o "$WORK/zero3_recompute.json" &&
  grep -q '"recompute"' "$WORK/zero3_recompute.json" ||
  { echo "FAIL: gen llama --train --strategy zero3 --recompute layers"; failures=$((failures + 1)); }
expect 0 "objective traffic" "$EINPLAN" cost "$WORK/train.yaml" --plan "$WORK/zero3_recompute.json"
expect 2 "--recompute layers: the graph has no layers of a training step" $L --strategy data -p 4 --recompute layers
expect 2 "--recompute" $L --train --strategy data -p 4 --recompute all
# --no-grad-outputs: the same step, its gradients read by the update only (not written)
$L --train --optimizer adamw -o "$WORK/adamw.yaml" && $L --train --optimizer adamw --no-grad-outputs -o "$WORK/adamw_ng.yaml" &&
  "$EINPLAN" eval "$WORK/adamw.yaml" --seed 3 --outputs "$WORK/adamw_out" >/dev/null &&
  "$EINPLAN" eval "$WORK/adamw_ng.yaml" --seed 3 --outputs "$WORK/adamw_ng_out" >/dev/null &&
  cmp -s "$WORK/adamw_out/L0_wq_next.npy" "$WORK/adamw_ng_out/L0_wq_next.npy" && cmp -s "$WORK/adamw_out/loss.npy" "$WORK/adamw_ng_out/loss.npy" &&
  [ -f "$WORK/adamw_out/grad_L0_wq.npy" ] && [ ! -e "$WORK/adamw_ng_out/grad_L0_wq.npy" ] ||
  { echo "FAIL: --no-grad-outputs writes the same step without its gradients"; ls "$WORK/adamw_ng_out" | head; failures=$((failures + 1)); }
expect 2 "--no-grad-outputs" $L --no-grad-outputs
# --gradient-accumulation-fusion: with --master only; a widening contraction must be a GEMM
expect 2 "--gradient-accumulation-fusion: fuses a weight gradient's cast back to its master type; add --master f32" \
  $L --train --gradient-accumulation-fusion
expect 2 "--gradient-accumulation-fusion fuses each weight gradient's cast back to its master type" \
  "$EINPLAN" grad "$M" --loss AB --gradient-accumulation-fusion -o "$WORK/fused.yaml"
printf 'dtype: bf16\ninputs:\n  - {name: A, shape: [4]}\n  - {name: B, shape: [4]}\nnodes:\n  - {name: C, einsum: "i,j->ij", inputs: [A, B], cast: f32}\n' >"$WORK/outer.yaml"
# a gradient whose labels make no GEMM (a Hadamard product's) keeps its cast back
printf 'dtype: bf16\ninputs:\n  - {name: X, shape: [4, 4]}\n  - {name: W, shape: [4, 4]}\nnodes:\n  - {name: Z, einsum: "ij,ij->ij", inputs: [X, W]}\n  - {name: L, einsum: "ij->", inputs: [Z]}\noutputs: [L]\n' >"$WORK/hadamard.yaml"
"$EINPLAN" grad "$WORK/hadamard.yaml" --loss L --wrt W --master f32 --gradient-accumulation-fusion -o "$WORK/hadamard_g.yaml" >/dev/null 2>&1 &&
  "$EINPLAN" plan "$WORK/hadamard_g.yaml" -p 2 >/dev/null 2>&1 || { echo "FAIL: a non-GEMM gradient under --gradient-accumulation-fusion must still plan"; failures=$((failures + 1)); }
expect 2 "node 'C': a contraction with \`cast: f32\` runs as a GEMM" "$EINPLAN" plan "$WORK/outer.yaml" -p 2
# fused_gradient_casts (a plan's gradient accumulation fusion): data fuses on a step of
# micro-batches, --no-gradient-fusion keeps the casts; entries that name no fusible cast are
# exit 2 at their line; the planner offers the fused data plan under --objective time
S="$L --train --optimizer adamw --dtype bf16 --master f32 --no-grad-outputs --micro-batches 2"
$S -o "$WORK/step.yaml" && $S --strategy data -p 2 -o "$WORK/step_data.yaml" &&
  $S --strategy data -p 2 --no-gradient-fusion -o "$WORK/step_kept.yaml" &&
  grep -q '^fused_gradient_casts:' "$WORK/step_data.yaml" && ! grep -q 'fused_gradient_casts' "$WORK/step_kept.yaml" ||
  { echo "FAIL: the data plan of a step of micro-batches lists fused_gradient_casts, --no-gradient-fusion none"; failures=$((failures + 1)); }
expect 0 "graph llama_7b_train" "$EINPLAN" cost "$WORK/step.yaml" --plan "$WORK/step_data.yaml"
expect 0 "widening: its 2-byte operands' products summed in f32" "$EINPLAN" explain "$WORK/step.yaml" --plan "$WORK/step_data.yaml"
line=$(grep -n '^  - "grad_L0_wq"' "$WORK/step_data.yaml" | cut -d: -f1)
sed 's/^  - "grad_L0_wq"$/  - "L0_q"/' "$WORK/step_data.yaml" >"$WORK/bad_fused.yaml"
expect 2 "bad_fused.yaml:$line:5: error: fused_gradient_casts: node 'L0_q' is not a cast to f32" \
  "$EINPLAN" cost "$WORK/step.yaml" --plan "$WORK/bad_fused.yaml"
sed 's/^  - "grad_L0_wq"$/  - "grad_L0_wk"/' "$WORK/step_data.yaml" >"$WORK/twice_fused.yaml"
expect 2 "fused_gradient_casts: 'grad_L0_wk' is given twice" "$EINPLAN" cost "$WORK/step.yaml" --plan "$WORK/twice_fused.yaml"
sed 's/^  - "grad_L0_wq"$/  - [grad_L0_wq]/' "$WORK/step_data.yaml" >"$WORK/list_fused.yaml"
expect 2 "each entry of 'fused_gradient_casts' must be a node name" "$EINPLAN" cost "$WORK/step.yaml" --plan "$WORK/list_fused.yaml"
# at M = 8 the fused data plan moves the gradients once, not 8 times: the planner returns
# it (faster by more than --time-margin), --no-gradient-fusion does not
"$EINPLAN" gen llama --layers 1 --dim 32 --heads 4 --ffn 64 --vocab 50 --seq 8 --batch 16 --train --optimizer adamw --dtype bf16 \
  --master f32 --no-grad-outputs --micro-batches 8 -o "$WORK/step8.yaml" &&
  "$EINPLAN" plan "$WORK/step8.yaml" -p 2 --machine "$MACHINE" --objective time -o "$WORK/step8_plan.json" >/dev/null 2>&1 &&
  grep -q '"fused_gradient_casts"' "$WORK/step8_plan.json" && grep -q "gradient casts fused" "$WORK/step8_plan.json" &&
  "$EINPLAN" plan "$WORK/step8.yaml" -p 2 --machine "$MACHINE" --objective time --no-gradient-fusion \
    -o "$WORK/step8_kept.json" >/dev/null 2>&1 && grep -q '"algorithm"' "$WORK/step8_kept.json" &&
  ! grep -q '"fused_gradient_casts"' "$WORK/step8_kept.json" ||
  { echo "FAIL: at M = 8 the planner fuses the step's gradient casts, and --no-gradient-fusion plans them as written"; failures=$((failures + 1)); }
# an entry whose gradient makes no GEMM (a Hadamard product's), at its line of the plan file
printf 'fused_gradient_casts:\n  - grad_W\nnodes: []\n' >"$WORK/hadamard_plan.yaml"
expect 2 "hadamard_plan.yaml:2:5: error: fused_gradient_casts: node 'grad_W' casts a gradient" \
  "$EINPLAN" cost "$WORK/hadamard_g.yaml" -p 2 --plan "$WORK/hadamard_plan.yaml"
# a plan naming the graph's nodes as written beside fused_gradient_casts
printf 'fused_gradient_casts:\n  - grad_L0_wq\nnodes:\n  - {name: d_L0_wq_bf16, partition: {a: 2}}\n' >"$WORK/stale_plan.yaml"
expect 2 "the plan's fused_gradient_casts rewrite the graph first" "$EINPLAN" cost "$WORK/step.yaml" -p 2 --plan "$WORK/stale_plan.yaml"

# every report format from the CLI parses
"$EINPLAN" plan "$C" -p 6 --format yaml | "$PYTHON" -c 'import sys, yaml; assert yaml.safe_load(sys.stdin)["devices"] == 6' 2>/dev/null ||
  "$EINPLAN" plan "$C" -p 6 --format yaml | grep -q "^devices: 6" || { echo "FAIL: yaml report"; failures=$((failures + 1)); }
expect 0 "digraph" "$EINPLAN" dot "$C" -p 4
expect 0 "local join" "$EINPLAN" explain "$C" -p 4
expect 0 "candidates for node AB" "$EINPLAN" explain "$C" -p 4 --node AB

# the command line itself (issue 13): subcommand and option typos get a suggestion, plan is
# the default subcommand, every --help names the program and ends in examples
expect 2 "unknown subcommand 'chek' (did you mean 'check'?)" "$EINPLAN" chek "$M"
expect 2 "unknown subcommand 'frobnicate'; subcommands: check, eval, plan" "$EINPLAN" frobnicate
expect 2 "unknown family 'matrx-chain' (did you mean 'matrix-chain'?)" "$EINPLAN" gen matrx-chain
expect 2 "\`einplan gen\` needs one of: matrix-chain, ffnn, attention, llama" "$EINPLAN" gen
expect 2 "unknown option '--algoritm' for \`einplan plan\` (did you mean '--algorithm'?)" "$EINPLAN" plan "$M" -p 4 --algoritm uniform
expect 2 "unknown option '--devcies' for \`einplan compare\` (did you mean '--devices'?)" "$EINPLAN" compare "$M" --devcies 4
expect 0 "paper cost" "$EINPLAN" "$M" -p 4
expect 0 "paper cost" "$EINPLAN" -p 4 "$M"
expect 2 "missing.yaml: error: cannot open the graph file" "$EINPLAN" "$WORK/missing.yaml" -p 4
for sub in check eval plan cost compare explain dot gen; do
  "$EINPLAN" $sub --help >"$WORK/help" 2>&1
  if ! grep -q "^Usage: einplan $sub \[OPTIONS\]" "$WORK/help" || ! grep -q "^Examples:" "$WORK/help"; then
    echo "FAIL: einplan $sub --help lacks 'Usage: einplan $sub [OPTIONS]' or 'Examples:'"; failures=$((failures + 1))
  fi
done
for family in matrix-chain ffnn attention llama syn tt fctn tw getd trn; do
  "$EINPLAN" gen $family --help >"$WORK/help" 2>&1
  if ! grep -q "^Usage: einplan gen $family \[OPTIONS\]" "$WORK/help" || ! grep -q "^  einplan gen $family" "$WORK/help"; then
    echo "FAIL: einplan gen $family --help lacks its usage line or examples"; failures=$((failures + 1))
  fi
done
"$EINPLAN" --help >"$WORK/help" 2>&1
grep -q "^Usage: einplan \[OPTIONS\] SUBCOMMAND" "$WORK/help" && grep -q "^Examples:" "$WORK/help" ||
  { echo "FAIL: einplan --help"; failures=$((failures + 1)); }
# a usage error's message is bounded and valid UTF-8 whatever was typed
"$EINPLAN" plan "$(printf 'g\377\033[2J.yaml')" -p 4 2>"$WORK/err" >/dev/null
"$PYTHON" -c 'import sys; t = open(sys.argv[1], "rb").read(); t.decode("utf-8"); assert b"\x1b" not in t and b"\\xff\\x1b[2J" in t, t' "$WORK/err" ||
  { echo "FAIL: a file name with bytes that are not UTF-8: $(cat -v "$WORK/err")"; failures=$((failures + 1)); }
"$EINPLAN" plan "$M" -p 4 --objective "$(head -c 100000 /dev/zero | tr '\0' x)" 2>"$WORK/err" >/dev/null
[ "$(wc -c <"$WORK/err")" -lt 2048 ] || { echo "FAIL: a 100 kB option value is echoed whole"; failures=$((failures + 1)); }

# extensions in any case: plan -o p.JSON writes JSON, a .YML graph is YAML
expect 0 "paper cost" "$EINPLAN" plan "$M" -p 4 -o "$WORK/upper.JSON"
head -c 1 "$WORK/upper.JSON" | grep -q "{" || { echo "FAIL: plan -o upper.JSON did not write JSON"; failures=$((failures + 1)); }
expect 0 "paper cost" "$EINPLAN" cost "$M" --plan "$WORK/upper.JSON"
cp "$M" "$WORK/graph.YML"
expect 0 "paper cost" "$EINPLAN" plan "$WORK/graph.YML" -p 4 -o "$WORK/upper.Yaml"
grep -q "^schema_version: 1" "$WORK/upper.Yaml" || { echo "FAIL: plan -o upper.Yaml did not write YAML"; failures=$((failures + 1)); }

# A label repeated in a tensor multiplies its blocks (A[i,i,i] cut 2048 ways along i has
# 2048^3): einrt numbers blocks in 32 bits, so that cut is refused by name, not wrapped.
cat >"$WORK/diag3.yaml" <<'YAML'
name: diag3
inputs: {A: [4096, 4096, 4096], X: [4096]}
nodes:
  - {name: d, einsum: "iii,i->i", inputs: [A, X]}
outputs: [d]
YAML
expect 0 '"kernel_calls": 1024' "$EINPLAN" plan "$WORK/diag3.yaml" -p 1024 --format json
expect 2 "node 'd': every partition into 2048 kernel calls gives a tensor of 2^31 blocks" \
  "$EINPLAN" plan "$WORK/diag3.yaml" -p 2048

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all CLI cases passed"
