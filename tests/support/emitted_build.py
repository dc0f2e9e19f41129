"""How the tests build emitted projects: at -O0 where a project's own default is -O3
(its Release build). The tests check bytes, peaks and values, which the optimization level
does not change, on small tensors, and the compile of kernels.cpp is most of every
end-to-end test: a small LLaMA training step's 44 s at -O3, 19 s at -O2, 12 s at -O1; in
whole tests, programs' runs included, autodiff_training_steps 62 s at -O2, 55 s at -O1,
46 s at -O0, codegen_e2e_bf16_families 42, 34, 29 s (2026-11-27). Benchmarks build the
projects as users do."""
import pathlib

# One word for the shell that runs the project's Makefile recipe (the backslash keeps
# the space): CMAKE_ARGS is written into that recipe as it is.
TEST_CMAKE_ARGS = r"-DCMAKE_CXX_FLAGS_RELEASE=-O0\ -DNDEBUG"


def make_command(project, *extra):
    """`make -C PROJECT EXTRA...`, configuring at -O0 on the first build of the folder (the
    project's Makefile configures again whenever CMAKE_ARGS is given, so only then)."""
    configured = (pathlib.Path(project) / "build" / "CMakeCache.txt").exists()
    return ["make", "-C", str(project), *map(str, extra)] + ([] if configured else [f"CMAKE_ARGS={TEST_CMAKE_ARGS}"])
