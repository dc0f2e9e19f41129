#!/bin/bash
# Planning time and peak memory of `einplan plan` (default objective, eindecomp) against the
# device count and the number of nodes (issue 24), and, given a second einplan, the same
# for it (the build before a change: "before"; the ratio is before / after):
#   LLaMA-7B (32 layers, 1,061 nodes) and LLaMA-65B (80 layers, 2,645 nodes), prefill at
#   `einplan gen llama --preset` sizes, at p = 64, 256, 1024, 2048, 4096;
#   LLaMA-65B with 10, 20, 40 and 80 layers at p = 1024 (time against the node count);
#   a chain of 2000 matmuls at p = 64 (the graph-size limit of docs/hardening.md).
# Each run is one process: wall seconds and maximum resident set (GNU time). A run of the
# "before" binary past BEFORE_LIMIT seconds (default 300) is stopped and shown as ">LIMIT".
# Usage: bench/plan_scaling/run.sh [EINPLAN] [BEFORE_EINPLAN]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EINPLAN=${1:-$HERE/../../build/bin/einplan}
BEFORE=${2:-}
LIMIT=${BEFORE_LIMIT:-300}
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# measure EINPLAN GRAPH P [TIMEOUT] -> "wall_s rss_mib" (or ">T -" when stopped)
measure() {
  if ! timeout "${4:-100000}" /usr/bin/time -f "%e %M" -o "$WORK/time" "$1" plan "$2" -p "$3" --format json >"$WORK/report.json" 2>/dev/null; then
    echo ">$4 -"
    return
  fi
  read -r wall rss <"$WORK/time"
  echo "$wall $($PY -c "print('%.0f' % ($rss / 1024))")"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
printf "%-24s %6s %5s %9s %9s %11s %11s %8s\n" graph nodes p wall_s rss_MiB before_s before_MiB speedup
row() {  # LABEL GRAPH P
  local nodes
  nodes=$(grep -c "einsum" "$2")
  read -r wall rss < <(measure "$EINPLAN" "$2" "$3")
  local bwall="-" brss="-" ratio="-"
  if [ -n "$BEFORE" ]; then
    read -r bwall brss < <(measure "$BEFORE" "$2" "$3" "$LIMIT")
    ratio=$($PY -c "b='$bwall'; print(('>' if b.startswith('>') else '') + '%.1f' % (float(b.lstrip('>')) / max($wall, 0.01)))")
  fi
  printf "%-24s %6s %5s %9s %9s %11s %11s %8s\n" "$1" "$nodes" "$3" "$wall" "$rss" "$bwall" "$brss" "$ratio"
}

"$EINPLAN" gen llama --preset 7b -o "$WORK/llama7b.yaml" >/dev/null
"$EINPLAN" gen llama --preset 65b -o "$WORK/llama65b.yaml" >/dev/null
for p in 64 256 1024 2048 4096; do row "llama-7b" "$WORK/llama7b.yaml" "$p"; done
for p in 64 256 1024 2048 4096; do row "llama-65b" "$WORK/llama65b.yaml" "$p"; done
for layers in 10 20 40; do
  "$EINPLAN" gen llama --preset 65b --layers "$layers" -o "$WORK/llama65b_$layers.yaml" >/dev/null
  row "llama-65b, $layers layers" "$WORK/llama65b_$layers.yaml" 1024
done
$PY "$HERE/make_chain.py" 2000 "$WORK/chain.yaml"
row "matmul chain" "$WORK/chain.yaml" 64
