#!/usr/bin/env python3
"""Runs the built einplan / eincodegen on every malformed graph and plan of this folder,
as listed in cases.txt, and checks for each: the documented exit status, the expected
message fragment on stderr, the offending file named in the diagnostic (`FILE:`), no
traceback-like crash (a signal), nothing written to the output location, an answer
within a bounded time (a hang is a failure), and a stderr that is valid UTF-8 and at
most 8 KiB whatever the input held.

Inputs that cannot live in git are made here: a FILE of `@NAME` is made by GENERATED
below (FIFOs, directories, sparse files past the size limit, 10 MB einsums), an
absolute FILE (/dev/zero) is used as it is.

usage: run_bad_inputs.py EINPLAN EINCODEGEN [CASES_FILE]
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE_GRAPH = os.path.join(HERE, "base", "matmul.yaml")
TIME_LIMIT_S = 20
MAX_STDERR_BYTES = 8192
TEN_MB = 10 << 20


def write_text(text):
    def make(path):
        with open(path, "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)
    return make


def sparse(size):
    def make(path):
        with open(path, "wb") as f:
            f.truncate(size)
    return make


# @NAME -> how to make it at PATH.
GENERATED = {
    "fifo.yaml": os.mkfifo,
    "fifo.json": os.mkfifo,
    "dir.yaml": os.mkdir,
    "sparse_300MB.yaml": sparse(300 << 20),
    "huge_einsum.yaml": write_text(
        "inputs: {A: [2, 2]}\nnodes:\n  - {name: B, einsum: \"" + "i" * TEN_MB + "->ii\", inputs: [A]}\n"),
    "huge_join.yaml": write_text(
        "inputs: {A: [2]}\nnodes:\n  - {name: B, einsum: \"i->i\", inputs: [A], join: \"x + " + "(" * TEN_MB + "\"}\n"),
    "huge_json_string.json": write_text('{"inputs": {"' + "a" * TEN_MB + '\u001b[2J": [2]}, "nodes": []}'),
    "huge_name.yaml": write_text("inputs: {A: [2]}\nnodes:\n  - name: " + "n" * TEN_MB + "\n    einsum: \"i->i\"\n"
                                 "    inputs: [A]\n"),
    "huge_number.yaml": write_text("inputs: {A: [" + "9" * TEN_MB + "]}\nnodes: []\n"),
    "huge_unknown_field.yaml": write_text(b"inputs: {}\nnodes: []\nx: " + b"x\xfe" * (TEN_MB // 2) + b"\n"),
    "huge_join_argument.yaml": write_text("inputs: {A: [2]}\nnodes:\n  - {name: B, einsum: \"i->i\", inputs: [A], "
                                          "join: \"exp(" + "x" * TEN_MB + ")\"}\n"),
}


def command_for(kind, tools, path, out):
    einplan, eincodegen = tools
    commands = {
        "check": [einplan, "check", path],
        "plan": [einplan, "plan", path, "-p", "4", "-o", os.path.join(out, "plan.json")],
        "eval": [einplan, "eval", path, "--seed", "1", "--outputs", os.path.join(out, "eval")],
        "codegen": [eincodegen, path, "-p", "4", "-o", os.path.join(out, "project")],
        "cost": [einplan, "cost", BASE_GRAPH, "--plan", path],
        "codegen-plan": [eincodegen, BASE_GRAPH, "--plan", path, "-o", os.path.join(out, "project")],
    }
    if kind not in commands:
        raise SystemExit(f"cases.txt: unknown command kind '{kind}' (one of {', '.join(commands)})")
    return commands[kind]


def read_cases(cases_file):
    cases = []
    with open(cases_file, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [field.strip() for field in line.split("|", 3)]
            if len(fields) != 4 or not fields[1].isdigit():
                raise SystemExit(f"{cases_file}:{number}: expected 'FILE | EXIT | COMMAND | FRAGMENT'")
            cases.append((number, fields[0], int(fields[1]), fields[2], fields[3]))
    return cases


def case_path(rel, scratch):
    """The file a case names: made in `scratch` for @NAME, else under this folder."""
    if rel.startswith("@"):
        if rel[1:] not in GENERATED:
            raise SystemExit(f"cases.txt: no generator for {rel} (one of {', '.join(GENERATED)})")
        path = os.path.join(scratch, rel[1:])
        if not os.path.lexists(path):
            GENERATED[rel[1:]](path)
        return path
    return os.path.join(HERE, rel)


def run_case(tools, case, scratch):
    _, rel, want_code, kind, fragment = case
    path = case_path(rel, scratch)
    if not os.path.lexists(path):
        return [f"missing case file {rel}"]
    with tempfile.TemporaryDirectory() as out:
        cmd = command_for(kind, tools, path, out)
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=TIME_LIMIT_S)
        except subprocess.TimeoutExpired:
            return [f"no answer within {TIME_LIMIT_S} s (hang)"]
        stderr = done.stderr.decode("utf-8", "replace")
        problems = []
        try:
            done.stderr.decode("utf-8", "strict")
        except UnicodeDecodeError as e:
            problems.append(f"stderr is not valid UTF-8 ({e})")
        if len(done.stderr) > MAX_STDERR_BYTES:
            problems.append(f"stderr holds {len(done.stderr)} bytes, more than {MAX_STDERR_BYTES}")
        if done.returncode < 0:
            problems.append(f"killed by signal {-done.returncode}")
        elif done.returncode != want_code:
            problems.append(f"exit {done.returncode}, expected {want_code}")
        if fragment not in stderr:
            problems.append(f"stderr lacks '{fragment}'")
        if want_code != 0 and path + ":" not in stderr:
            problems.append("the diagnostic does not name the file")
        if want_code != 0 and os.listdir(out):
            problems.append(f"wrote {sorted(os.listdir(out))} although it failed")
        if problems:
            problems.append("command: " + " ".join(cmd))
            problems.append("stderr: " + stderr.strip()[:600])
        return problems


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    tools = (sys.argv[1], sys.argv[2])
    cases = read_cases(sys.argv[3] if len(sys.argv) == 4 else os.path.join(HERE, "cases.txt"))
    failed = 0
    scratch = tempfile.TemporaryDirectory(prefix="bad_inputs_")
    for case in cases:
        problems = run_case(tools, case, scratch.name)
        if problems:
            failed += 1
            print(f"FAIL cases.txt:{case[0]} {case[1]} ({case[3]})")
            for p in problems:
                print("    " + p)
    scratch.cleanup()
    print(f"{len(cases) - failed} of {len(cases)} malformed inputs refused as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
