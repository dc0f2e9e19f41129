#!/usr/bin/python3
"""Emitted projects build anywhere (issue 12, item 5; SPEC 7: "any BLAS that CMake's
FindBLAS finds, any MPI, ... paths with spaces").

    portable_build.py MODE --eincodegen E --graph G --work W [--einrt-build B]

MODE
  plain-cmake  `cmake -S DIR -B DIR/build && cmake --build DIR/build`, not the Makefile,
               in an environment without the CUDA toolkit (no nvcc on PATH, no CUDA_*
               variables, CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON): a CPU project must
               not look CUDA up even when einrt was built with einrt::cuda.
  blas         the same with -DBLA_VENDOR=Generic and Debian's reference BLAS
               (libblas-dev, /usr/lib/<multiarch>/blas) instead of OpenBLAS; ldd must show
               the program loading that libblas.so.3 and no OpenBLAS.
  bf16         the graph in bf16, plain CMake: where einrt was built with oneDNN
               (einrt::dnnl) the program links libdnnl and its report's gemm_path is
               "onednn" (on processors without AVX-512, where oneDNN declines bf16,
               "f32-blas"); then again with -DEINRT_USE_ONEDNN=OFF: no libdnnl, "f32-blas".
  bf16-blas    the graph in bf16 with the reference BLAS (as `blas`) and without oneDNN
               (-DEINRT_USE_ONEDNN=OFF): the 2-byte GEMMs go through that BLAS in f32.
  space        the project in a folder whose path has a space, built with `make` against
               the build-tree einrt, then with `make -j2` against einrt installed into a
               prefix whose path has a space: no make warning (jobserver), and the
               compiler, run through a launcher, must see make's jobserver in MAKEFLAGS.
Each mode plans the graph for 2 ranks and requires `mpirun -np 2 PROGRAM --check` to
exit 0 with a report whose check passed. Exit 77 (skipped) only when a prerequisite is
absent (the reference BLAS for `blas`).
"""
import argparse
import glob
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

RANKS = 2


def run(cmd, env=None, cwd=None):
    start = time.monotonic()
    done = subprocess.run([str(c) for c in cmd], text=True, capture_output=True, env=env, cwd=cwd)
    print(f"+ ({time.monotonic() - start:.1f} s) rc={done.returncode}", " ".join(repr(str(c)) if " " in str(c) else str(c) for c in cmd), flush=True)
    return done


def fail(what, proc=None):
    if proc is not None:
        print("stdout:", proc.stdout[-6000:], "\nstderr:", proc.stderr[-6000:], sep="\n")
    print("FAILED:", what)
    sys.exit(1)


def require(ok, what, proc=None):
    if not ok:
        fail(what, proc)


def graph_name(graph):
    m = re.search(r"^name:\s*([A-Za-z_][A-Za-z0-9_]*)", pathlib.Path(graph).read_text(), re.M)
    return m.group(1) if m else "einprog"


def generate(a, project):
    p = run([a.eincodegen, a.graph, "-p", RANKS, "-o", project])
    require(p.returncode == 0, "eincodegen", p)
    cmake_lists = (project / "CMakeLists.txt").read_text()
    code = "\n".join(line for line in cmake_lists.splitlines() if not line.lstrip().startswith("#"))
    # The BLAS is the consumer's choice (FindBLAS, BLA_VENDOR); CUDA is not named in a
    # CPU project. Comments may mention both.
    for word in ("BLA_VENDOR", "openblas", "/usr/local/cuda", "CUDA"):
        require(word.lower() not in code.lower(), f"the emitted CMakeLists.txt hard-codes {word!r} outside comments")
    return project / graph_name(a.graph)


def run_check(program, env, what, gemm_path=None):
    report = program.parent / "report.json"
    if report.exists():
        report.unlink()
    p = run(["mpirun", "--oversubscribe", "-np", RANKS, program, "--check", "--report", report], env=env)
    require(p.returncode == 0, f"{what}: mpirun -np {RANKS} {program.name} --check exits 0", p)
    r = json.loads(report.read_text())
    require(r.get("ranks") == RANKS and r.get("check", {}).get("passed") is True,
            f"{what}: the report says ranks={RANKS} and check passed (got {r.get('ranks')}, {r.get('check')})", p)
    if gemm_path is not None:
        require(r.get("gemm_path") == gemm_path, f"{what}: the report's gemm_path is {gemm_path!r} (got {r.get('gemm_path')!r})", p)
    print(f"{what}: --check passed on {RANKS} ranks (max_rel_err {r['check'].get('max_rel_err')}, "
          f"dtype {r.get('dtype')}, GEMMs {r.get('gemm_path')!r})")


def ldd(program):
    """[(soname, resolved real path)] of the libraries the loader would map."""
    p = run(["ldd", program])
    require(p.returncode == 0, "ldd", p)
    libs = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+(\S+)\s+\(", line)
        if m:
            libs.append((m.group(1), os.path.realpath(m.group(2))))
    return libs


def blas_lines(libs):
    return [f"{name} => {path}" for name, path in libs if re.search(r"blas|blis|mkl|flexiblas|atlas", name + path, re.I)]


def cuda_free_env(env):
    """The environment less the CUDA toolkit: no folder holding nvcc on PATH, no CUDA variables."""
    env = dict(env)
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and not os.path.exists(os.path.join(d, "nvcc")))
    for k in list(env):
        if k.startswith("CUDA") or k in ("CUDACXX", "CUDAHOSTCXX", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "LIBRARY_PATH"):
            del env[k]
    return env


def require_no_cuda_in_cache(build):
    cache = (build / "CMakeCache.txt").read_text()
    found = [l for l in cache.splitlines() if re.match(r"(CUDAToolkit_|CMAKE_CUDA_|CUDA_)", l)]
    require(not found, "a CPU project's configuration looked up the CUDA toolkit:\n  " + "\n  ".join(found[:5]))


def plain_cmake(a, work, env, extra=(), what="plain CMake"):
    project = work / "project"
    program = generate(a, project)
    build = project / "build"
    env = cuda_free_env(env)
    require(shutil.which("nvcc", path=env["PATH"]) is None, "nvcc still on PATH")
    p = run(["cmake", "-S", project, "-B", build, "-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON", *extra], env=env)
    require(p.returncode == 0, f"{what}: cmake -S -B (configure)", p)
    p = run(["cmake", "--build", build], env=env)
    require(p.returncode == 0, f"{what}: cmake --build", p)
    require(program.is_file() and os.access(program, os.X_OK), f"{what}: the program {program} was built")
    require_no_cuda_in_cache(build)
    print("BLAS the program loads:", *blas_lines(ldd(program)), sep="\n  ")
    return program, build


def mode_plain_cmake(a, work, env):
    program, _ = plain_cmake(a, work, env)
    run_check(program, env, "plain CMake")


def reference_blas():
    for lib in sorted(glob.glob("/usr/lib/*/blas/libblas.so")) + ["/usr/lib/blas/libblas.so"]:
        if os.path.exists(lib):
            return pathlib.Path(lib).parent
    return None


def mode_blas(a, work, env):
    ref = reference_blas()
    if ref is None:
        print("SKIPPED: Debian's reference BLAS is not installed (apt-get install libblas-dev; `make deps` does)")
        sys.exit(77)
    ref_real = os.path.realpath(ref)
    # Debian's alternatives point /usr/lib/<multiarch>/libblas.so at OpenBLAS when it is
    # installed, so BLA_VENDOR=Generic alone would find OpenBLAS under the generic name:
    # CMAKE_LIBRARY_PATH makes FindBLAS look in the reference BLAS's own folder first.
    program, build = plain_cmake(a, work, env, ["-DBLA_VENDOR=Generic", f"-DCMAKE_LIBRARY_PATH={ref}"],
                                 what="BLA_VENDOR=Generic")
    cache = (build / "CMakeCache.txt").read_text()
    require(re.search(r"^BLA_VENDOR:\w+=Generic$", cache, re.M), "BLA_VENDOR=Generic reached CMake's cache")
    libs = ldd(program)
    openblas = [f"{n} => {p}" for n, p in libs if "openblas" in (n + p).lower()]
    require(not openblas, "the program loads OpenBLAS: " + ", ".join(openblas))
    blas = [(n, p) for n, p in libs if n.startswith("libblas.so")]
    require(blas and all(os.path.dirname(p) == ref_real for _, p in blas),
            f"the program loads the reference BLAS from {ref_real} (ldd: {blas_lines(libs)})")
    print(f"ldd: {blas[0][0]} => {blas[0][1]} (the reference BLAS; no OpenBLAS)")
    run_check(program, env, "reference BLAS")


def bf16_graph(a, work):
    """A copy of the graph in bf16 (a top-level `dtype:` line replaced or added)."""
    text = pathlib.Path(a.graph).read_text()
    text = re.sub(r"^dtype:.*$", "dtype: bf16", text, flags=re.M) if re.search(r"^dtype:", text, re.M) \
        else "dtype: bf16\n" + text
    work.mkdir(parents=True, exist_ok=True)
    typed = work / pathlib.Path(a.graph).name
    typed.write_text(text)
    a.graph = str(typed)


def dnnl_lines(program):
    return [f"{n} => {p}" for n, p in ldd(program) if "dnnl" in (n + p).lower()]


def onednn_runs_bf16():
    """oneDNN multiplies bf16 on processors with AVX-512's core subset (natively where they
    have avx512_bf16 or AMX); elsewhere it declines and einrt converts to f32 for the BLAS
    (SPEC 8), which the report's gemm_path names."""
    flags = set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags |= set(line.split(":", 1)[1].split())
    return {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags


def mode_bf16(a, work, env):
    require(a.einrt_build, "--einrt-build is needed for mode bf16")
    bf16_graph(a, work)
    with_dnnl = (pathlib.Path(a.einrt_build) / "runtime" / "einrtDnnlTargets.cmake").exists()
    program, build = plain_cmake(a, work, env, what="bf16")
    if with_dnnl:
        require(dnnl_lines(program), "the bf16 program links oneDNN (einrt was built with it)")
        if onednn_runs_bf16():
            run_check(program, env, "bf16 with oneDNN", "onednn")
        else:
            print("this processor has no AVX-512: oneDNN declines bf16, the program converts to f32 and says so")
            run_check(program, env, "bf16 with oneDNN linked, no AVX-512", "f32-blas")
    else:
        print("einrt was built without oneDNN: only the build without it is checked")
    shutil.rmtree(build)
    program, _ = plain_cmake(a, work, env, ["-DEINRT_USE_ONEDNN=OFF"], what="bf16, -DEINRT_USE_ONEDNN=OFF")
    require(not dnnl_lines(program), f"-DEINRT_USE_ONEDNN=OFF: the program loads no oneDNN ({dnnl_lines(program)})")
    run_check(program, env, "bf16 without oneDNN", "f32-blas")


def mode_bf16_blas(a, work, env):
    bf16_graph(a, work)
    ref = reference_blas()
    if ref is None:
        print("SKIPPED: Debian's reference BLAS is not installed (apt-get install libblas-dev; `make deps` does)")
        sys.exit(77)
    program, _ = plain_cmake(a, work, env, ["-DBLA_VENDOR=Generic", f"-DCMAKE_LIBRARY_PATH={ref}", "-DEINRT_USE_ONEDNN=OFF"],
                             what="bf16, reference BLAS, no oneDNN")
    libs = ldd(program)
    require(not [n for n, p in libs if "openblas" in (n + p).lower() or "dnnl" in (n + p).lower()],
            f"the program loads neither OpenBLAS nor oneDNN ({blas_lines(libs)}, {dnnl_lines(program)})")
    run_check(program, env, "bf16, reference BLAS, no oneDNN", "f32-blas")


MAKE_WARNING = re.compile(r"^.*(^g?make(\[\d+\])?: .*warning|jobserver).*$", re.I | re.M)


def make_warning(out):
    m = MAKE_WARNING.search(out)
    return m.group(0) if m else None


def mode_space(a, work, env):
    require(a.einrt_build, "--einrt-build is needed for mode space")
    root = work / "a folder with spaces"
    prefix = root / "einrt prefix"
    p = run(["cmake", "--install", a.einrt_build, "--component", "einrt", "--prefix", prefix])
    require(p.returncode == 0, "cmake --install (einrt into a prefix with a space)", p)
    configs = glob.glob(str(prefix / "**" / "einrtConfig.cmake"), recursive=True)
    require(len(configs) == 1, f"einrtConfig.cmake installed under {prefix}")
    einrt_dir = os.path.dirname(configs[0])

    project = root / "my project"
    program = generate(a, project)
    # The compiler is started through a launcher that records the MAKEFLAGS it inherits:
    # under `make -j2` they must carry make's job server (the Makefile's recursive `+`
    # line hands it to CMake's own make), otherwise the build ran without it.
    flags_log = work / "makeflags.log"
    launcher = work / "launcher.sh"
    launcher.write_text('#!/bin/sh\ncase "$*" in *program.cpp*) printf "%s\\n" "$MAKEFLAGS" >> "$EIN_MAKEFLAGS_LOG";; esac\nexec "$@"\n')
    launcher.chmod(0o755)
    env = dict(env, CMAKE_CXX_COMPILER_LAUNCHER=str(launcher), EIN_MAKEFLAGS_LOG=str(flags_log))
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    env.pop("EINRT_DIR", None)

    p = run(["make", "-C", project], env=env)
    require(p.returncode == 0, "make in a folder with a space", p)
    require(not make_warning(p.stdout + p.stderr), f"make printed a warning: {make_warning(p.stdout + p.stderr)}", p)
    require(program.is_file(), f"make left {program}")
    require(flags_log.exists(), "the compiler ran through the launcher")
    run_check(program, env, "make (path with a space)")

    # Again with the installed einrt and two jobs: program.cpp is recompiled.
    flags_log.unlink()
    (project / "program.cpp").touch()
    p = run(["make", "-C", project, "-j2", f"EINRT_DIR={einrt_dir}"], env=env)
    require(p.returncode == 0, "make -j2 in a folder with a space", p)
    out = p.stdout + p.stderr
    require(not make_warning(out), f"make -j2 printed a warning: {make_warning(out)}", p)
    cache = (project / "build" / "CMakeCache.txt").read_text()
    require(f"einrt_DIR:PATH={einrt_dir}\n" in cache or f"einrt_DIR:UNINITIALIZED={einrt_dir}\n" in cache,
            f"the build used the einrt installed in {einrt_dir}")
    require(flags_log.exists(), "make -j2 recompiled program.cpp through the launcher", p)
    seen = flags_log.read_text()
    require(all(re.search(r"--jobserver-(auth|fds)=", line) for line in seen.splitlines()),
            f"the compiler did not see make's job server under make -j2 (MAKEFLAGS: {seen.strip()!r})", p)
    print("make -j2: the compile ran under make's job server:", seen.strip().splitlines()[0])
    run_check(program, env, "make -j2 (paths with spaces, installed einrt)")

    p = run(["make", "-C", project, "clean"], env=env)
    require(p.returncode == 0 and not (project / "build").exists() and not program.exists(),
            "make clean removes build/ and the program", p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["plain-cmake", "blas", "bf16", "bf16-blas", "space"])
    ap.add_argument("--eincodegen", required=True)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--work", required=True, type=pathlib.Path)
    ap.add_argument("--einrt-build", help="eindecomp's build folder (mode space installs einrt from it)")
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    a.work.mkdir(parents=True)
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    start = time.monotonic()
    {"plain-cmake": mode_plain_cmake, "blas": mode_blas, "bf16": mode_bf16, "bf16-blas": mode_bf16_blas,
     "space": mode_space}[a.mode](a, a.work, env)
    print(f"PASSED: {a.mode} ({time.monotonic() - start:.1f} s)")


if __name__ == "__main__":
    main()
