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
