#!/usr/bin/env python3
"""Resource limits (issue 7): generated graphs at the edges of what the tools accept.
Each row runs one command on one generated graph and requires an answer within a time
bound: either success (exit 0) or a refusal with the documented exit status and a
message naming the limit. A signal (stack overflow, out of memory) or a timeout fails.

  - a 100,000-node chain: check, plan, eval and eincodegen answer in linear time
    (every stage that walks the graph looks names up through a GraphIndex; each takes
    5-23 s here, 0.5-2 s at 10,000 nodes. The bound of 120 s leaves room for a loaded
    machine and still fails a quadratic stage, which took minutes);
  - a node with 20 labels at p = 4096 and at p = 65536: the partition enumeration stays
    bounded, and so does the memory of the search (9.9 GB at p = 65536 before graph
    inputs stopped carrying per-rank reads);
  - sizes whose products reach 2^63: refused, not wrapped.

Every command runs with its address space limited to 4 GiB (the 100,000-node chain needs
1.2 GB), so a blow-up fails as an out-of-memory error instead of swapping. Under the
sanitizers (ASAN_OPTIONS set; `make test-asan` leaves this test out) there is no address-space limit (ASan
reserves terabytes of shadow memory) and the time bounds are 4x: ASan makes the
allocation-heavy stages 6-10x slower (eincodegen of the chain: 141 s).

usage: run_limits.py EINPLAN EINCODEGEN
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

SANITIZED = bool(os.environ.get("ASAN_OPTIONS"))
TIME_FACTOR = 4 if SANITIZED else 1
ADDRESS_SPACE_BYTES = 4 << 30


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_BYTES, ADDRESS_SPACE_BYTES))


def chain_graph(nodes):
    """A chain of elementwise nodes, each reading the previous one: the deepest graph."""
    graph = {"name": "deep_chain", "inputs": {"A": [4, 4]}, "nodes": []}
    previous = "A"
    for i in range(nodes):
        name = f"N{i}"
        graph["nodes"].append({"name": name, "einsum": "ij->ij", "join": "relu(x)", "inputs": [previous]})
        previous = name
    return graph


def wide_labels_graph(labels):
    """One node over `labels` labels of size 2 each, aggregating the last one."""
    alphabet = "abcdefghijklmnopqrstuvwxyz"[:labels]
    return {"name": "wide", "inputs": {"A": [2] * labels, "B": [2] * labels},
            "nodes": [{"name": "C", "einsum": f"{alphabet},{alphabet}->{alphabet[:-1]}", "inputs": ["A", "B"]}]}


def big_sizes_graph():
    """Sizes whose element count is exactly 2^62 (fits) feeding a product that does not."""
    return {"name": "big", "inputs": {"A": [2147483648, 2147483648], "B": [2147483648, 2]},
            "nodes": [{"name": "C", "einsum": "ij,jk->ik", "inputs": ["A", "B"]}]}


def run(cmd, limit_s):
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=limit_s * TIME_FACTOR,
                              preexec_fn=None if SANITIZED else limit_memory)
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    einplan, eincodegen = sys.argv[1], sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        def write(name, graph):
            path = os.path.join(work, name)
            with open(path, "w") as f:
                json.dump(graph, f)
            return path

        chain = write("chain100k.json", chain_graph(100_000))
        wide = write("wide20.json", wide_labels_graph(20))
        big = write("big.json", big_sizes_graph())
        out = os.path.join(work, "out")
        stopped = "partition enumeration stopped at 50000 candidates"  # the bound, said in the report
        # (what, command, time bound s, accepted exit codes, fragment required in the output)
        rows = [
            ("100k chain: check", [einplan, "check", chain], 120, {0}, ""),
            ("100k chain: plan p=4", [einplan, "plan", chain, "-p", "4", "-o", out + ".plan.json"], 120, {0}, ""),
            ("100k chain: eval", [einplan, "eval", chain, "--seed", "1", "--outputs", out + ".eval"], 120, {0}, ""),
            ("100k chain: eincodegen", [eincodegen, chain, "-p", "4", "-o", out + ".codegen"], 120, {0}, ""),
            ("20 labels, p=4096: plan", [einplan, "plan", wide, "-p", "4096"], 120, {0}, stopped),
            ("20 labels, p=4096: brute", [einplan, "plan", wide, "-p", "4096", "--algorithm", "brute"], 120, {0}, stopped),
            ("20 labels, p=65536: plan", [einplan, "plan", wide, "-p", "65536"], 120, {0}, ""),
            ("20 labels, p=65536: eincodegen", [eincodegen, wide, "-p", "65536", "-o", out + ".wide"], 120, {0}, ""),
            ("sizes near 2^63: check", [einplan, "check", big], 30, {2}, "overflow"),
        ]
        for what, cmd, limit_s, accepted, fragment in rows:
            code, output = run(cmd, limit_s)
            verdict = "ok"
            if code is None:
                verdict = f"no answer within {limit_s * TIME_FACTOR} s"
            elif code < 0:
                verdict = f"killed by signal {-code}"
            elif code not in accepted:
                verdict = f"exit {code}, expected one of {sorted(accepted)}"
            elif fragment not in output:
                verdict = f"exit {code} without saying '{fragment}'"
            print(f"{'PASS' if verdict == 'ok' else 'FAIL'} {what}: exit {code}" + ("" if verdict == "ok" else f" -- {verdict}"))
            if verdict != "ok":
                failures += 1
                print("    " + " ".join(cmd))
                print("    output: " + output.strip()[:600])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
