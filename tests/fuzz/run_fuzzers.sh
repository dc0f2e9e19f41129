#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz/project with clang++ into BUILD_DIR and
# runs each for SECONDS, seeded with tests/fuzz/corpus/<harness>/ (which also holds
# every input that once crashed or hung: the regression cases) and, for the graph
# loaders, every example and test graph in the repository. Exit 0 when every harness
# ran clean, 1 on a finding (the reproducer is written to BUILD_DIR/artifacts/), 77
# (ctest's skip) when clang++ or libFuzzer is missing.
#   usage: run_fuzzers.sh [--build-only|--run-only] SOURCE_ROOT BUILD_DIR SECONDS [HARNESS...]
# --build-only builds every harness and runs none (ctest's fuzz_build); --run-only runs
# harnesses built before (ctest's fuzz_<harness>, one each, side by side).
set -euo pipefail
mode=all
case ${1:-} in --build-only|--run-only) mode=${1#--}; shift ;; esac
root=$1; build=$2; seconds=$3; shift 3
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_graph_yaml fuzz_graph_json fuzz_einsum fuzz_expr fuzz_plan_file fuzz_file_writer fuzz_emitted_text fuzz_onnx_import)

clangxx=$(command -v clang++ || true)
if [ -z "$clangxx" ]; then
  echo "SKIP: clang++ not found; the fuzzers need clang with libFuzzer (Debian: clang libclang-rt-14-dev)"
  exit 77
fi
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
     "$clangxx" -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "SKIP: $clangxx cannot link -fsanitize=fuzzer (Debian: libclang-rt-14-dev)"
  exit 77
fi

if [ "$mode" != run-only ]; then
  cmake -S "$root/tests/fuzz/project" -B "$build" -DCMAKE_CXX_COMPILER="$clangxx" >/dev/null
  cmake --build "$build" -j 2 --target "${harnesses[@]}"
fi
[ "$mode" != build-only ] || exit 0
for h in "${harnesses[@]}"; do
  [ -x "$build/$h" ] || { echo "SKIP: $build/$h was not built (run_fuzzers.sh --build-only first)"; exit 77; }
done

mkdir -p "$build/artifacts"
status=0
for h in "${harnesses[@]}"; do
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  case $h in
    fuzz_graph_yaml) find "$root/examples" "$root/tests" -path "$root/tests/fuzz" -prune -o \( -name '*.yaml' -o -name '*.yml' \) -type f -size -64k -print0 | xargs -0 -r cp -t "$work" --backup=numbered ;;
    fuzz_graph_json) find "$root/examples" "$root/tests" -path "$root/tests/fuzz" -prune -o -name '*.json' -type f -size -64k -print0 | xargs -0 -r cp -t "$work" --backup=numbered ;;
    fuzz_plan_file) cp -t "$work" --backup=numbered "$root"/tests/bad_inputs/plans/* ;;
    # Small models of ONNX's node tests (Debian's libonnx-testdata), one per operator kind.
    fuzz_onnx_import)
      for t in matmul_3d gemm_all_attributes einsum_batch_matmul add_bcast reduce_mean_keepdims_example softmax_axis_1 \
               layer_normalization_3d_axis1_epsilon layer_normalization_2d_axis0_expanded reshape_reduced_dims \
               flatten_axis2 unsqueeze_axis_0 split_variable_parts_2d slice concat_2d_axis_1 where_example transpose_all_permutations_2; do
        f=/usr/share/libonnx-testdata/data/node/test_$t/model.onnx
        [ -f "$f" ] && cp "$f" "$work/$t.onnx"
      done ;;
  esac
  # The regression cases: every input that once failed (git keeps no empty folder).
  seeds=("$work")
  [ -d "$root/tests/fuzz/corpus/$h" ] && seeds+=("$root/tests/fuzz/corpus/$h")
  echo "== $h: ${seconds}s"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GiB is a memory blow-up.
  # Seeds over 64 KiB (the deep-nesting cases of tests/bad_inputs) would only slow the
  # mutation loop; the corpus runner gives them to the tools once each.
  if ! "$build/$h" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$build/artifacts/$h-" "${seeds[@]}" 2>"$build/$h.log"; then
    tail -n 60 "$build/$h.log"
    echo "FAIL: $h found a problem; reproducer in $build/artifacts/ (run: $build/$h FILE)"
    status=1
  else
    grep -E '^stat::number_of_executed_units|^Done' "$build/$h.log" || true
  fi
  rm -rf "$work"
done
exit $status
