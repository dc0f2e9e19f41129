#!/usr/bin/env bash
# The demo of the README: check and evaluate a bundled example with the built tools.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== einplan check examples/matrix-chain.yaml"
"$bin/einplan" check "$here/matrix-chain.yaml"
echo "== einplan eval examples/matrix-chain.yaml --seed 7"
"$bin/einplan" eval "$here/matrix-chain.yaml" --seed 7 --outputs "$out"
ls -l "$out"
# The whole pipeline (issue 6): gen -> plan -> eincodegen -> make -> mpirun --check.
if [ -x "$bin/eincodegen" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
  echo "== einplan gen matrix-chain --shape skewed"
  "$bin/einplan" gen matrix-chain --shape skewed -o "$out/chain.yaml"
  echo "== einplan plan -p 4 -o plan.json"
  "$bin/einplan" plan "$out/chain.yaml" -p 4 -o "$out/plan.json"
  echo "== eincodegen --plan plan.json -o program"
  "$bin/eincodegen" "$out/chain.yaml" --plan "$out/plan.json" -o "$out/program"
  echo "== make -C program"
  make -s -C "$out/program" > "$out/make.log" || { cat "$out/make.log"; exit 1; }
  echo "== mpirun -np 4 program/matrix_chain_skewed --check --iters 3 --warmup 1"
  mpirun --oversubscribe -np 4 "$out/program/matrix_chain_skewed" --check --iters 3 --warmup 1 --seed 7
fi
