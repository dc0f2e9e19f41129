#!/bin/bash
# The LLaMA-7B AdamW training step (f32, batch 8, seq 1024) at p = 8 under --mem-limit
# (issue "Training as people train"): what each rewrite reaches. Per row the request, the
# exit status, the plan's (or the smallest reached) peak per rank, how many inputs it
# shards at rest and nodes it computes again, and the wall time of the whole request.
#   bench/training_memory/run.sh build/bin/einplan [LIMIT ...]   (default: 44GiB 40GiB)
#   GEN_FLAGS=--no-grad-outputs bench/training_memory/run.sh ...   (the step without gradient outputs)
set -uo pipefail
EINPLAN=$(realpath "${1:?usage: run.sh EINPLAN [LIMIT ...]}")
shift
LIMITS=("${@:-44GiB}")
[ $# -eq 0 ] && LIMITS=(44GiB 40GiB)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck disable=SC2086
"$EINPLAN" gen llama --preset 7b --train --optimizer adamw --batch 8 --seq 1024 ${GEN_FLAGS:-} -o "$WORK/step.yaml" || exit 1
echo "# gen flags: ${GEN_FLAGS:-(none)}; $(date -u +%FT%TZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-28s %4s %12s %7s %9s %8s\n' limit rewrites exit peak_GiB shards recomputed wall_s
for limit in "${LIMITS[@]}"; do
  for flags in "--no-shard --no-recompute" "--no-recompute" "--no-shard" ""; do
    start=$EPOCHREALTIME
    # shellcheck disable=SC2086
    "$EINPLAN" plan "$WORK/step.yaml" -p 8 --mem-limit "$limit" $flags -o "$WORK/plan.json" 2>"$WORK/err" >/dev/null
    rc=$?
    wall=$(awk "BEGIN { print $EPOCHREALTIME - $start }")
    if [ $rc -eq 0 ]; then
      read -r peak shards recomputed < <(/usr/bin/python3 -c "
import json; r = json.load(open('$WORK/plan.json'))
print(round(r['peak_bytes_per_device'] / 2**30, 1), len(r.get('shard_at_rest', [])), len(r.get('recompute', [])))")
    else
      # the smallest peak of the last search the message names
      peak=$(grep -o '[0-9.]* GiB)' "$WORK/err" | tail -1 | tr -d ' GiB)')
      shards=$(grep -o 'with [0-9]* input(s) sharded' "$WORK/err" | grep -o '[0-9]*' || echo 0)
      recomputed=$(grep -o 'computing [0-9]* node(s)' "$WORK/err" | grep -o '[0-9]*' || echo 0)
    fi
    printf '%-8s %-28s %4s %12s %7s %9s %8.1f\n' "$limit" "${flags:-(both allowed)}" "$rc" "$peak" "${shards:-0}" "${recomputed:-0}" "$wall"
    rm -f "$WORK/plan.json"
  done
done
