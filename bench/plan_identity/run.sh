#!/bin/bash
# Writes every plan file and report of the bench workloads, the examples and the generator
# families into OUT, so that a refactor can be checked byte for byte against the build
# before it (issue "One home for every rule the plan and the program share"):
#   bench/plan_identity/run.sh build/bin/einplan /tmp/before [MACHINE.yaml]
#   (change, rebuild)
#   bench/plan_identity/run.sh build/bin/einplan /tmp/after [MACHINE.yaml]
#   bench/plan_identity/compare.sh /tmp/before /tmp/after
# Per graph and p in 1 2 3 8 64: the plan file and table report of the default request,
# the JSON report with --objective paper, and with MACHINE (a file of einrt-calibrate) the
# JSON report with --objective time; at p = 8 the comparison of every algorithm and a plan
# under memory limits of 60 and 85 % of the unconstrained peak (which may be exit
# 3: the message is kept), also with --objective time; at p = 64 the LLaMA graphs on the DGX cluster file. Provenance lines
# (the command, the tool's version) differ between runs and are left to compare.sh.
set -uo pipefail
EINPLAN=$(realpath "${1:?usage: run.sh EINPLAN OUT [MACHINE]}")
OUT=${2:?usage: run.sh EINPLAN OUT [MACHINE]}
MACHINE=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$HERE/../..
mkdir -p "$OUT/graphs" "$OUT/plans"
G=$OUT/graphs

gen() {  # NAME ARGS...
  local name=$1
  shift
  "$EINPLAN" gen "$@" -o "$G/$name.yaml" >/dev/null 2>&1 || echo "gen $name failed" >&2
}
# bench/time_estimate's workloads, both size sets
gen mc-square matrix-chain --shape square --scale 1024
gen mc-skewed matrix-chain --shape skewed --scale 1000
gen ffnn ffnn --batch 1024 --features 1024 --hidden 2048 --classes 256
gen attention attention --batch 4 --seq 256 --dim 512 --heads 8
gen llama-layer llama --layers 1 --dim 1024 --heads 8 --ffn 2752 --seq 256 --vocab 4096
gen mc-640 matrix-chain --shape square --scale 640
gen ffnn-512 ffnn --batch 512 --features 768 --hidden 1536 --classes 128
gen attention-128 attention --batch 8 --seq 128 --dim 256 --heads 4
gen llama-768 llama --layers 1 --dim 768 --heads 12 --ffn 2048 --seq 128 --vocab 2048
for f in syn tt fctn tw getd trn; do
  gen "$f" "$f"
  gen "$f-2" "$f" --scale 2
done
# the generator families at their defaults, training and 2-byte variants
gen llama-7b llama --preset 7b --layers 2
gen llama-train llama --layers 2 --dim 256 --heads 4 --ffn 688 --seq 64 --vocab 512 --train
gen llama-bf16 llama --layers 1 --dim 512 --heads 8 --ffn 1376 --seq 128 --vocab 1024 --dtype bf16
gen ffnn-default ffnn
gen attention-default attention
gen mc-default matrix-chain
gen syn-split syn --split
for f in "$ROOT"/examples/*.yaml "$ROOT"/examples/*.json; do
  cp "$f" "$G/example-$(basename "$f")"
done

for g in "$G"/*; do
  name=$(basename "$g")
  name=${name%.*}
  for p in 1 2 3 8 64; do
    base=$OUT/plans/$name.p$p
    "$EINPLAN" plan "$g" -p "$p" -o "$base.plan.json" >"$base.report.txt" 2>&1
    echo "exit $?" >>"$base.report.txt"
    "$EINPLAN" plan "$g" -p "$p" --objective paper --format json >"$base.paper.json" 2>&1
    if [ -n "$MACHINE" ]; then
      "$EINPLAN" plan "$g" -p "$p" --machine "$MACHINE" --objective time --format json >"$base.time.json" 2>&1
      echo "exit $?" >>"$base.time.json"
    fi
  done
  base=$OUT/plans/$name.p8
  "$EINPLAN" compare "$g" -p 8 --algorithms eindecomp,uniform,balanced,data >"$base.compare.txt" 2>&1
  for fraction in 0.6 0.85; do
    peak=$(/usr/bin/python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['peak_bytes_per_device'] * $fraction))" \
      "$base.plan.json" 2>/dev/null || echo "")
    [ -n "$peak" ] || continue
    "$EINPLAN" plan "$g" -p 8 --mem-limit "$peak" --format json >"$base.memlimit$fraction.json" 2>&1
    echo "exit $?" >>"$base.memlimit$fraction.json"
    if [ -n "$MACHINE" ]; then
      "$EINPLAN" plan "$g" -p 8 --mem-limit "$peak" --machine "$MACHINE" --objective time --format json \
        >"$base.memlimit$fraction.time.json" 2>&1
      echo "exit $?" >>"$base.memlimit$fraction.time.json"
    fi
  done
done
for name in llama-7b llama-train; do
  "$EINPLAN" plan "$G/$name.yaml" -p 64 --machine "$ROOT/bench/clusters/dgx-a100.yaml" --format json \
    >"$OUT/plans/$name.p64.cluster.json" 2>&1
  "$EINPLAN" plan "$G/$name.yaml" -p 64 --machine "$ROOT/bench/clusters/dgx-a100.yaml" --objective time --format json \
    >"$OUT/plans/$name.p64.cluster-time.json" 2>&1
done
echo "wrote $(ls "$OUT/plans" | wc -l) files into $OUT/plans"
