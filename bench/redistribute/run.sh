#!/usr/bin/env bash
# Effective bandwidth of einrt's redistribute against a hand-written MPI_Alltoallv of the
# same data on the same ranks, and of the specialized collectives against einrt's
# general path. Usage: bench/redistribute/run.sh [BUILD_DIR] [RANKS...]
# (defaults: build, ranks 2 4). Extra driver options via EINRT_BENCH_ARGS, e.g.
# EINRT_BENCH_ARGS="--n 4096 --iters 30".
set -euo pipefail
build=${1:-build}
shift || true
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(2 4)
cmake --build "$build" --target einrt_bench_redistribute -j 2 > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
for np in "${ranks[@]}"; do
  # shellcheck disable=SC2086
  mpirun --oversubscribe -np "$np" "$build/bin/einrt_bench_redistribute" ${EINRT_BENCH_ARGS:-}
  echo
done
