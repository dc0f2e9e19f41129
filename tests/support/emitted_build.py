"""How the tests build emitted projects: at -O1 where a project's own default is -O3
(its Release build). The tests check bytes, peaks and values, which the optimization level
does not change, and the compile of kernels.cpp is most of every end-to-end test: a small
LLaMA training step's 44 s at -O3, 19 s at -O2, 12 s at -O1; in whole tests, programs'
runs included, codegen_e2e_bf16_families 42 s at -O2, 34 s at -O1. -O0 compiles faster
still but runs slower: codegen_e2e_example_matrix_chain took 86 s at -O0 against 27 s at
-O2, and the whole suite was slower (2026-11-27). Where a graph has many tiny nodes and runs
in milliseconds (imported layers, small training steps) -O0 is the quicker whole: import_torch_layers
55 -> 24 s, import_torch_lm 30 -> 17 s, torch_models 32 -> 21 s (2026-11-28); those tests ask
for it with `opt`. Benchmarks build the projects as users do."""
import pathlib

# One word for the shell that runs the project's Makefile recipe (the backslash keeps
# the space): CMAKE_ARGS is written into that recipe as it is.
def test_cmake_args(opt="O1"):
    return rf"-DCMAKE_CXX_FLAGS_RELEASE=-{opt}\ -DNDEBUG"


TEST_CMAKE_ARGS = test_cmake_args()


def make_command(project, *extra, opt="O1"):
    """`make -C PROJECT EXTRA...`, configuring at -O1 (or `opt`: O0 for a training step of
    a few hundred tiny nodes, whose kernels.cpp compiles in 4 s instead of 12 and runs in
    milliseconds either way) on the first build of the folder (the project's Makefile
    configures again whenever CMAKE_ARGS is given, so only then)."""
    configured = (pathlib.Path(project) / "build" / "CMakeCache.txt").exists()
    return ["make", "-C", str(project), *map(str, extra)] + ([] if configured else [f"CMAKE_ARGS={test_cmake_args(opt)}"])
