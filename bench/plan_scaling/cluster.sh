#!/bin/bash
# Planning time and peak memory with a cluster's machine file (issue "Planning at the scale
# of the largest training runs"): LLaMA-65B (80 layers, 2,645 nodes, `einplan gen llama
# --preset 65b`) with bench/clusters/dgx-a100.yaml (8 ranks per node) at p = 1024 with the
# traffic and the time objective and with `--objective time --mem-limit 60GiB`, and at
# p = 4096 and 16384 with the traffic objective (runs past LIMIT seconds, default 300, are
# stopped and shown as ">LIMIT"). Each run is one process: wall seconds and maximum
# resident set (GNU time), and the size of the plan file it wrote; the load average is
# printed first.
# Usage: bench/plan_scaling/cluster.sh [EINPLAN]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EINPLAN=${1:-$HERE/../../build/bin/einplan}
MACHINE=$HERE/../clusters/dgx-a100.yaml
LIMIT=${LIMIT:-300}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$EINPLAN" gen llama --preset 65b -o "$WORK/llama65b.yaml" >/dev/null

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
printf "%-44s %6s %9s %9s %8s\n" request p wall_s rss_MiB plan_MB
row() {  # LABEL P ARGS...
  local label=$1 p=$2
  shift 2
  if timeout "$LIMIT" /usr/bin/time -f "%e %M" -o "$WORK/time" "$EINPLAN" plan "$WORK/llama65b.yaml" -p "$p" \
      --machine "$MACHINE" "$@" -o "$WORK/plan.json" >/dev/null 2>&1; then
    read -r wall rss <"$WORK/time"
    printf "%-44s %6s %9s %9s %8s\n" "$label" "$p" "$wall" "$((rss / 1024))" "$(($(stat -c %s "$WORK/plan.json") / 1000000))"
  else
    printf "%-44s %6s %9s %9s %8s\n" "$label" "$p" ">$LIMIT" "-" "-"
  fi
}
row "llama-65b, traffic" 1024 --objective traffic
row "llama-65b, time" 1024 --objective time
row "llama-65b, time, --mem-limit 60GiB" 1024 --objective time --mem-limit 60GiB
row "llama-65b, traffic" 4096 --objective traffic
row "llama-65b, traffic" 16384 --objective traffic
