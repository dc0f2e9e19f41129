#!/usr/bin/env bash
# Generates the CUDA backend of a graph and compiles it with nvcc (no GPU needed).
# Exits 77 (ctest: skipped) with a message when no nvcc is available.
set -euo pipefail
eincodegen=$1 graph=$2 work=$3
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "SKIPPED: nvcc not found; the CUDA backend was not compiled"
  exit 77
fi
rm -rf "$work"
"$eincodegen" "$graph" -p 4 --backend cuda -o "$work"
# One device architecture keeps the test short; users get 80 and 90 by default.
make -C "$work" JOBS=2 CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90
name=$(sed -n 's/^name: *//p' "$graph" | head -1)
test -x "$work/$name"
echo "built the CUDA program $work/$name with $nvcc"
