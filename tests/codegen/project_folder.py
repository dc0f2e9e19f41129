#!/usr/bin/env python3
"""eincodegen -o: the project is written whole or not at all, and never into a user's
non-empty folder without --force (cli/eincodegen/project_folder.h).

Checks, against the file system itself: a new folder gets the project and its
.eincodegen marker; regenerating leaves unchanged files untouched (timestamps kept), and
another plan or p rewrites program.cpp but not kernels.cpp;
a foreign non-empty folder is refused (exit 2, its files as they were) unless --force;
files an earlier generation wrote and this one does not are removed; a write failure
(a file-size limit standing in for a full disk) exits 2 and leaves a new folder absent
and an existing project byte for byte as it was."""
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys


def fail(what, proc=None):
    print("FAIL:", what)
    if proc is not None:
        print("stdout:", proc.stdout)
        print("stderr:", proc.stderr)
    sys.exit(1)


def snapshot(folder):
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in pathlib.Path(folder).iterdir() if p.is_file()}


def main():
    eincodegen, graph, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    def gen(out, *extra, limit=None):
        def restrict():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        return subprocess.run([eincodegen, graph, "-p", "2", "-o", str(out), *extra], text=True, capture_output=True,
                              preexec_fn=restrict if limit else None)

    project = work / "project"
    p = gen(project)
    if p.returncode != 0:
        fail("a new folder", p)
    names = sorted(f.name for f in project.iterdir())
    for expected in [".eincodegen", "CMakeLists.txt", "Makefile", "README.md", "plan.json", "program.cpp", "kernels.cpp"]:
        if expected not in names:
            fail(f"{expected} written: {names}")
    marker = (project / ".eincodegen").read_text()
    if "program.cpp" not in marker.splitlines():
        fail(f"the marker lists the files: {marker!r}")

    # Regenerating the same project touches nothing.
    for f in project.iterdir():
        os.utime(f, ns=(1_000_000_000, 1_000_000_000))
    before = snapshot(project)
    p = gen(project)
    if p.returncode != 0 or snapshot(project) != before:
        fail("regenerating the same project leaves its files and timestamps alone", p)

    # Another plan rewrites the tables (program.cpp) and leaves the kernels alone
    # (kernels.cpp depends on the graph only), so make recompiles only the tables.
    p = gen(project, "--algorithm", "data")
    if p.returncode != 0 or snapshot(project)["program.cpp"] == before["program.cpp"]:
        fail("regenerating with another algorithm rewrites program.cpp", p)
    p = subprocess.run([eincodegen, graph, "-p", "3", "-o", str(project)], text=True, capture_output=True)
    if p.returncode != 0 or snapshot(project)["kernels.cpp"] != before["kernels.cpp"]:
        fail("regenerating for another p and command line leaves kernels.cpp and its timestamp alone", p)

    # Files an earlier generation listed and this one does not write are removed; others stay.
    (project / "program_cuda.cu").write_text("// stale\n")
    (project / "notes.txt").write_text("mine\n")
    with open(project / ".eincodegen", "a") as m:
        m.write("program_cuda.cu\n../outside.txt\n")
    (work / "outside.txt").write_text("keep\n")
    p = gen(project)
    if p.returncode != 0 or (project / "program_cuda.cu").exists():
        fail("a file of an earlier generation is removed", p)
    if not (project / "notes.txt").exists() or not (work / "outside.txt").exists():
        fail("files eincodegen did not write stay, and the marker cannot point outside the folder")

    # A user's non-empty folder is refused, untouched; --force writes into it.
    mine = work / "mine"
    mine.mkdir()
    (mine / "program.cpp").write_text("my own program\n")
    p = gen(mine)
    if p.returncode != 2 or "--force" not in p.stderr or str(mine) not in p.stderr:
        fail("a non-empty folder eincodegen did not write is refused, naming it and --force", p)
    if sorted(f.name for f in mine.iterdir()) != ["program.cpp"] or (mine / "program.cpp").read_text() != "my own program\n":
        fail("the refused folder is untouched")
    p = gen(mine, "--force")
    if p.returncode != 0 or not (mine / ".eincodegen").exists():
        fail("--force writes the project", p)

    # A file, not a folder.
    p = gen(work / "outside.txt")
    if p.returncode != 2 or (work / "outside.txt").read_text() != "keep\n":
        fail("-o naming a file is refused", p)

    # A write that fails half-way (file-size limit: every write past 4 KiB fails with EFBIG).
    fresh = work / "fresh" / "deeper"
    p = gen(fresh, limit=4096)
    if p.returncode != 2 or "cannot write" not in p.stderr:
        fail("a failed write exits 2 and says so", p)
    if (work / "fresh").exists():
        fail("a failed write into a new folder leaves no folder behind")
    before = snapshot(project)
    p = gen(project, "--algorithm", "uniform", limit=4096)
    if p.returncode != 2:
        fail("a failed write into an existing project exits 2", p)
    if snapshot(project) != before or any(f.name.startswith((".einplan-partial", ".einrt-staging-")) for f in project.iterdir()):
        fail("a failed write leaves the existing project as it was, with no staging folder")
    print("ok")


if __name__ == "__main__":
    main()
