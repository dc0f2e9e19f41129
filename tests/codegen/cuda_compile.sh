#!/usr/bin/env bash
# Generates the CUDA backend of a graph and compiles it with nvcc (no GPU needed).
# The emitted CMakeLists names no CUDA location, so the compiler is found here and passed
# the way a user would: make CMAKE_ARGS=-DCMAKE_CUDA_COMPILER=... (CUDACXX, then nvcc on
# PATH, then CUDA_HOME / CUDA_PATH, then /usr/local/cuda). One architecture keeps it short.
# Exits 77 (ctest: skipped) with a message when no nvcc is available.
# A fourth argument (bf16, f16, ...) compiles the graph in that element type.
set -euo pipefail
eincodegen=$1 graph=$2 work=$3 dtype=${4:-}
nvcc=""
for c in "${CUDACXX:-}" "$(command -v nvcc || true)" "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" \
         "${CUDA_PATH:+$CUDA_PATH/bin/nvcc}" /usr/local/cuda/bin/nvcc; do
  if [ -n "$c" ] && [ -x "$c" ]; then nvcc=$c; break; fi
done
if [ -z "$nvcc" ]; then
  echo "SKIPPED: nvcc not found (CUDACXX, PATH, CUDA_HOME, CUDA_PATH, /usr/local/cuda); the CUDA backend was not compiled"
  exit 77
fi
case "$nvcc" in *" "*) echo "FAILED: CMAKE_ARGS cannot carry an nvcc path with a space: $nvcc"; exit 1 ;; esac
rm -rf "$work"
if [ -n "$dtype" ]; then
  mkdir -p "$work.graph"
  typed="$work.graph/$(basename "$graph")"
  if grep -q '^dtype:' "$graph"; then sed "s/^dtype:.*/dtype: $dtype/" "$graph" > "$typed"
  else { echo "dtype: $dtype"; cat "$graph"; } > "$typed"; fi
  graph=$typed
fi
"$eincodegen" "$graph" -p 4 --backend cuda -o "$work"
# The build must see only what is passed: no CUDACXX, no nvcc on PATH to fall back on.
path=""
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  if [ -n "$d" ] && [ ! -e "$d/nvcc" ]; then path="$path${path:+:}$d"; fi
done
env -u CUDACXX PATH="$path" make -C "$work" -j2 \
  CMAKE_ARGS="-DCMAKE_CUDA_COMPILER=$nvcc -DCMAKE_CUDA_ARCHITECTURES=90"
name=$(sed -n 's/^name: *//p' "$graph" | head -1)
[ -x "$work/$name" ] || { echo "FAILED: no program $work/$name"; exit 1; }
grep -q "^CMAKE_CUDA_COMPILER:[A-Z]*=$nvcc\$" "$work/build/CMakeCache.txt" ||
  { echo "FAILED: CMake did not use the nvcc passed in CMAKE_ARGS ($nvcc)"; exit 1; }
grep -q "^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=90\$" "$work/build/CMakeCache.txt" ||
  { echo "FAILED: CMAKE_CUDA_ARCHITECTURES=90 did not reach CMake"; exit 1; }
echo "built the CUDA program $work/$name with $nvcc (sm_90)"
