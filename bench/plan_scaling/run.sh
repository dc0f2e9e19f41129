#!/bin/bash
# Planning time and peak memory of `einplan plan` against graph size and device count:
# a chain of 250..2000 matmuls and, when `einplan gen llama` exists, LLaMA-7B prefill
# (32 layers). Baseline measured in the same run: the `balanced` heuristic (one pass per
# node, no search) on the same graph; the ratios are eindecomp's wall time and plan cost
# over balanced's. Usage: bench/plan_scaling/run.sh [EINPLAN] (default build/bin/einplan)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EINPLAN=${1:-$HERE/../../build/bin/einplan}
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# measure GRAPH P ALGORITHM -> "wall_s rss_mib search_s total_cost"
measure() {
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$EINPLAN" plan "$1" -p "$2" --algorithm "$3" --format json >"$WORK/report.json"
  read -r wall rss <"$WORK/time"
  $PY - "$WORK/report.json" "$wall" "$rss" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(sys.argv[2], "%.1f" % (int(sys.argv[3]) / 1024), "%.3f" % r["search_time_s"], r["total_cost"])
PYEOF
}

printf "%-22s %5s %4s %9s %9s %9s %10s %14s %11s %11s\n" graph nodes p wall_s search_s rss_MiB base_wall_s cost wall_ratio cost_ratio
row() {  # LABEL GRAPH NODES P
  read -r wall rss search cost < <(measure "$2" "$4" eindecomp)
  read -r bwall _ _ bcost < <(measure "$2" "$4" balanced)
  printf "%-22s %5s %4s %9s %9s %9s %10s %14s %11s %11s\n" "$1" "$3" "$4" "$wall" "$search" "$rss" "$bwall" "$cost" \
    "$($PY -c "print('%.2f' % ($wall / max($bwall, 0.01)))")" "$($PY -c "print('%.3f' % ($cost / $bcost))")"
}

for n in 250 500 1000 2000; do
  $PY "$HERE/make_chain.py" "$n" "$WORK/chain_$n.yaml"
  for p in 8 16 64; do row "matmul chain" "$WORK/chain_$n.yaml" "$n" "$p"; done
done

if "$EINPLAN" gen llama --preset 7b -o "$WORK/llama7b.yaml" >/dev/null 2>&1; then
  nodes=$(grep -c "einsum" "$WORK/llama7b.yaml")
  for p in 8 16 64; do row "llama 7b (32 layers)" "$WORK/llama7b.yaml" "$nodes" "$p"; done
else
  echo "skipped LLaMA-7B: this einplan has no 'gen llama'"
fi
