#!/usr/bin/python3
"""Outputs that never clobber (SPEC 10, docs/hardening.md): every case of issue 28.

  einplan -o through a symlink, into a FIFO with a reader, onto /dev/null; eincodegen
  into a folder left by a killed run, eight eincodegens into one folder at once, a folder
  named with quotes, backticks, # and spaces (built with make, `make clean` leaving its
  sibling alone) and one with $( ) (refused, nothing created); a program's --report onto a
  symlink and /dev/null, its --outputs with planted links at the old temporary names, two
  programs writing one --outputs folder at once; and no source writes a predictable
  temporary name. Usage: outputs.py EINPLAN EINCODEGEN GRAPH WORK SOURCE_ROOT
"""
import os
import pathlib
import re
import shutil
import stat
import subprocess
import sys
import threading

failures = []


def check(ok, what, p=None):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}" + (f"\n  exit {p.returncode}\n  stderr: {p.stderr[-2000:]}" if p is not None else ""))
    else:
        print(f"ok: {what}")


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], text=True, capture_output=True, **kw)


def main():
    einplan, eincodegen, graph, work, root = sys.argv[1:6]
    work = pathlib.Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")

    # einplan -o LINK: the link stays, its target gets the plan.
    target = work / "target.json"
    target.write_text("old")
    (work / "link.json").symlink_to(target)
    p = run([einplan, "plan", graph, "-p", 2, "-o", work / "link.json"])
    check(p.returncode == 0 and (work / "link.json").is_symlink() and target.read_text().lstrip().startswith("{"),
          "-o onto a symlink writes through it and keeps the link", p)

    # einplan -o FIFO with a reader: the reader gets the plan, the FIFO stays a FIFO.
    fifo = work / "fifo.json"
    os.mkfifo(fifo)
    got = {}
    reader = threading.Thread(target=lambda: got.setdefault("text", open(fifo).read()))
    reader.start()
    p = run([einplan, "plan", graph, "-p", 2, "-o", fifo])
    reader.join(timeout=30)
    check(p.returncode == 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode) and got.get("text", "").lstrip().startswith("{"),
          "-o onto a FIFO with a reader: the reader gets the plan, the FIFO stays", p)

    # einplan -o /dev/null (as root this used to replace the system's /dev/null).
    p = run([einplan, "dot", graph, "-o", "/dev/null"])
    check(p.returncode == 0 and stat.S_ISCHR(os.lstat("/dev/null").st_mode), "-o /dev/null writes to the device", p)

    # A folder left by a killed run (staging folders of this and older versions) is taken.
    project = work / "project"
    p = run([eincodegen, graph, "-p", 2, "-o", project])
    (project / ".einrt-staging-abc123").mkdir()
    (project / ".einrt-staging-abc123" / "program.cpp").write_text("half")
    (project / ".einplan-partial-4242").mkdir()
    p = run([eincodegen, graph, "-p", 3, "-o", project])
    leftovers = [f.name for f in project.iterdir() if f.name.startswith((".einrt-staging-", ".einplan-partial-"))]
    check(p.returncode == 0 and not leftovers, "a killed run's staging folders are cleaned up by the next eincodegen", p)
    fresh = work / "fresh"
    fresh.mkdir()
    (fresh / ".einplan-partial-77").mkdir()
    p = run([eincodegen, graph, "-p", 2, "-o", fresh])
    check(p.returncode == 0, "a folder holding only a killed run's staging folder needs no --force", p)

    # Eight eincodegens into one folder at once: all succeed, one after the other, and the
    # folder ends up holding one whole project (the marker lists what is there).
    many = work / "many"
    procs = [subprocess.Popen([eincodegen, graph, "-p", str(p), "-o", str(many)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for p in range(1, 9)]
    codes = [q.wait() for q in procs]
    marker = [line for line in (many / ".eincodegen").read_text().splitlines() if line and not line.startswith("#")]
    listed = all((many / name).is_file() for name in marker)
    plan_devices = re.search(r'"devices": (\d+)', (many / "plan.json").read_text()).group(1)
    program_devices = re.search(r"p\.devices = (\d+);", (many / "program.cpp").read_text()).group(1)
    check(codes == [0] * 8 and listed and plan_devices == program_devices,
          f"8 concurrent eincodegen -o into one folder: exits {codes}, one whole project (p = {plan_devices} in both files)")

    # A folder named with quotes, backticks, # and spaces builds; nothing in its name runs.
    hostile = work / "h q 'a' `touch PWNED` #1 [x]"
    sibling = work / "h"
    sibling.mkdir()
    p = run([eincodegen, graph, "-p", 2, "-o", hostile])
    check(p.returncode == 0, "eincodegen into a folder named with quotes, backticks, # and spaces", p)
    p = run(["make", "-C", hostile, "JOBS=1"], env=env)
    program = hostile / "matrix_chain"
    check(p.returncode == 0 and program.exists() and not (work / "PWNED").exists() and not (hostile / "PWNED").exists(),
          "make builds it and runs nothing from its name", p)
    # The program's outputs: --report onto a symlink and onto /dev/null; --outputs with
    # links planted at the old predictable temporary names.
    report_target = work / "report-target.json"
    report_target.write_text("old")
    (work / "report-link.json").symlink_to(report_target)
    victim = work / "victim"
    victim.write_text("keep")
    out = work / "out"
    out.mkdir()
    for name in ["Z.npy.partial", f"Z.npy.tmp.{os.getpid()}", ".write_probe.1"]:
        (out / name).symlink_to(victim)
    p = run(["mpirun", "--oversubscribe", "-np", 2, program, "--outputs", out, "--report", work / "report-link.json"], env=env)
    check(p.returncode == 0 and (work / "report-link.json").is_symlink() and report_target.read_text().lstrip().startswith("{")
          and victim.read_text() == "keep" and (out / "Z.npy").read_bytes()[:6] == b"\x93NUMPY",
          "a program's --report writes through a symlink; links at old temporary names are never followed", p)
    p = run(["mpirun", "--oversubscribe", "-np", 2, program, "--report", "/dev/null"], env=env)
    check(p.returncode == 0 and stat.S_ISCHR(os.lstat("/dev/null").st_mode), "a program's --report /dev/null stays a device", p)
    # Two programs into one --outputs folder at once: both finish, the files are whole.
    # Each mpirun gets its own session folder: Open MPI's mkdir of a shared one races between
    # two launchers started together ("File exists"), a fault of the launcher, not of the program.
    shared = work / "shared"
    def own_session(k):
        folder = work / f"ompi-session-{k}"
        folder.mkdir(exist_ok=True)
        return {**env, "OMPI_MCA_orte_tmpdir_base": str(folder)}
    procs = [subprocess.Popen(["mpirun", "--oversubscribe", "-np", "2", str(program), "--outputs", str(shared), "--seed", str(s)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=own_session(s)) for s in (1, 2)]
    results = [q.communicate() for q in procs]
    codes = [q.returncode for q in procs]
    staged = [f.name for f in shared.iterdir() if f.name.startswith(".einrt-staging-")] if shared.is_dir() else ["(no folder)"]
    whole = (shared / "Z.npy").is_file() and (shared / "Z.npy").read_bytes()[:6] == b"\x93NUMPY"
    ok = codes == [0, 0] and whole and not staged
    check(ok, f"two programs into one --outputs folder: exits {codes}, whole files, no staging left" +
          ("" if ok else "".join(f"\n  program {k + 1} stdout: {o[-1500:]}\n  program {k + 1} stderr: {e[-1500:]}"
                                 for k, (o, e) in enumerate(results)) + f"\n  folder: {sorted(os.listdir(shared)) if shared.is_dir() else 'missing'}"))
    p = run(["make", "-C", hostile, "clean"], env=env)
    check(p.returncode == 0 and sibling.is_dir() and not program.exists(), "make clean removes the build, not the sibling 'h'", p)

    # A name CMake cannot build in is refused before anything is written.
    refused = work / "q $(touch PWNED)"
    p = run([eincodegen, graph, "-p", 2, "-o", refused])
    check(p.returncode == 2 and "CMake cannot build in" in p.stderr and not refused.exists(), "a folder with $( ) is refused, exit 2", p)

    # No source writes a file under a predictable temporary name.
    pattern = re.compile(r'"\.tmp\."|"\.partial"|\.partial-|write_probe|getpid\(\)')
    hits = []
    for folder in ["cli", "codegen", "planner", "runtime", "templates"]:
        for f in pathlib.Path(root, folder).rglob("*"):
            if f.is_file() and f.suffix in {".cpp", ".h", ".tpl", ".cu", ".cuh"}:
                for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                    if pattern.search(line) and "einplan-partial-" not in line:
                        hits.append(f"{f}:{n}: {line.strip()}")
    check(not hits, "no predictable temporary names in the sources" + ("".join("\n  " + h for h in hits)))

    print(f"{len(failures)} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
