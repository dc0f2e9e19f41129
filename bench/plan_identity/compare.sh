#!/bin/bash
# Compares two folders of bench/plan_identity/run.sh, file by file, with what differs
# between any two runs left out: the command line, the tool's version and the search's
# own wall time. Prints the files that differ (a diff of the first few) and exits 1 if any.
set -uo pipefail
A=${1:?usage: compare.sh BEFORE AFTER}
B=${2:?usage: compare.sh BEFORE AFTER}
# JSON files are compared as documents (written again by Python, two spaces a level): the
# plans' text put arrays of numbers on one line from 2026-12-02 on.
layout() {
  case "$1" in
    *.json) /usr/bin/python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), indent=2, ensure_ascii=False))' "$1" 2>/dev/null ||
      { echo "(not JSON)"; cat "$1"; } ;;
    *) cat "$1" ;;
  esac
}
normalize() {
  local extra=()
  # compare's table has a column of search times
  case "$1" in *.compare.txt) extra=(-e 's/[0-9.]+ (ns|us|µs|ms|s)( |$)/T\2/g' -e 's/ +/ /g') ;; esac
  sed -E "${extra[@]}" -e '/"command":|"version":|^# (command|version|einplan)/d' \
    -e 's/"search_time_s": [0-9.e+-]+/"search_time_s": T/' \
    -e 's/search [0-9.]+ ?[a-zµ]*s/search T/g' \
    -e 's/(searched|planned) in [0-9.]+ ?[a-zµ]*s/\1 in T/g' <(layout "$1")
}
differ=0
shown=0
for f in "$A"/plans/*; do
  n=$(basename "$f")
  if [ ! -f "$B/plans/$n" ]; then
    echo "missing in $B: $n"
    differ=$((differ + 1))
    continue
  fi
  if ! diff -q <(normalize "$f") <(normalize "$B/plans/$n") >/dev/null; then
    differ=$((differ + 1))
    echo "differs: $n"
    if [ $shown -lt 5 ]; then
      diff <(normalize "$f") <(normalize "$B/plans/$n") | head -20
      shown=$((shown + 1))
    fi
  fi
done
echo "$(ls "$A"/plans | wc -l) files compared, $differ differ"
[ $differ -eq 0 ]
