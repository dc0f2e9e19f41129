#!/usr/bin/env bash
# Planning LLaMA prefill graphs from `einplan gen llama`: node count and planning time of
# `einplan plan` at p = 8 and 64, for eindecomp and (baseline, same run) uniform, with
# the ratio of their plan costs. Wall time is the median of REPEATS runs.
# usage: bench/llama_planning.sh [EINPLAN] [PRESET] [SEQ] [REPEATS]
set -eu
einplan=${1:-build/bin/einplan} preset=${2:-7b} seq=${3:-1024} repeats=${4:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
graph=$work/llama.yaml
"$einplan" gen llama --preset "$preset" --seq "$seq" -o "$graph"
nodes=$("$einplan" check "$graph" --format json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["nodes"])')

median_time() {  # median wall seconds of `einplan plan GRAPH -p P --algorithm A`, and the plan's cost
  local p=$1 algo=$2 times=()
  for _ in $(seq "$repeats"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$einplan" plan "$graph" -p "$p" --algorithm "$algo" --format json -o "$work/plan.json" >/dev/null
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  local med cost
  med=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (repeats + 1) / 2 ))p")
  cost=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_cost"])' "$work/plan.json")
  echo "$med $cost"
}

echo "llama --preset $preset --seq $seq: $nodes nodes (median of $repeats runs)"
printf '%-4s %-10s %10s %22s %22s\n' p algorithm time_s cost cost/uniform
for p in 8 64; do
  read -r tu cu < <(median_time "$p" uniform)
  read -r te ce < <(median_time "$p" eindecomp)
  printf '%-4s %-10s %10.2f %22s %22s\n' "$p" uniform "$tu" "$cu" 1
  printf '%-4s %-10s %10.2f %22s %22.3f\n' "$p" eindecomp "$te" "$ce" "$(echo "$ce / $cu" | bc -l)"
done
