#!/usr/bin/python3
"""Plans for a cluster (SPEC 9) against the plans made for the same machine without its nodes.

For every example graph and (p, ranks per node) in {(8, 4), (16, 8), (12, 4)}, under the
time objective: `einplan plan --machine cluster.yaml` and `einplan plan --machine
flat.yaml` (the same links, no nodes), the flat plan then priced on the cluster with
`einplan cost --plan flat.json --machine cluster.yaml`. Requires: the cluster plan's
inter_node_bytes and estimated_time_s are no larger than the flat plan's on the cluster;
every report's intra_node_bytes + inter_node_bytes == total_traffic_bytes, per node and
per edge; the flat machine reports no bytes between nodes; and on this slow network the
cluster plans, summed over the examples, send fewer bytes between nodes than the flat
ones (the objective does see the network). Prints a table.
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

LINKS = "latency: 2 us\nbandwidth: 150 GB/s\nflops: 50 TFLOP/s\nmemory_bandwidth: 1 TB/s\n"
CLUSTER = LINKS + "ranks_per_node: {rpn}\ninter_node_latency: 8 us\ninter_node_bandwidth: 12.5 GB/s\n"


def run(cmd):
    p = subprocess.run([str(c) for c in cmd], text=True, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"FAILED: {' '.join(map(str, cmd))}\n{p.stderr}")
    return p


def split_ok(report, what):
    rows = [("total", report["total_traffic_bytes"], report["intra_node_bytes"], report["inter_node_bytes"])]
    rows += [(n["name"], n["traffic_bytes"], n["intra_node_bytes"], n["inter_node_bytes"]) for n in report["nodes"]]
    rows += [(e["from"] + "->" + e["to"], e["traffic_bytes"], e["intra_node_bytes"], e["inter_node_bytes"]) for e in report["edges"]]
    for name, total, intra, inter in rows:
        if intra + inter != total or min(intra, inter) < 0:
            sys.exit(f"FAILED: {what}: {name}: intra {intra} + inter {inter} != traffic {total}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--einplan", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    flat = work / "flat.yaml"
    flat.write_text(LINKS)
    graphs = sorted(p for p in pathlib.Path(a.examples).iterdir() if p.suffix in (".yaml", ".json"))
    sums = {"cluster": 0, "flat": 0}
    print(f"{'graph':34} {'p':>3} {'rpn':>3} {'inter (cluster)':>16} {'inter (flat)':>13} {'time (cluster)':>15} {'time (flat)':>12}")
    for p, rpn in [(8, 4), (16, 8), (12, 4)]:
        machine = work / f"cluster{rpn}.yaml"
        machine.write_text(CLUSTER.format(rpn=rpn))
        for g in graphs:
            tag = f"{g.stem}_{p}"
            c = json.loads(run([a.einplan, "plan", g, "-p", p, "--machine", machine, "--objective", "time", "--format", "json"]).stdout)
            run([a.einplan, "plan", g, "-p", p, "--machine", flat, "--objective", "time", "-o", work / f"{tag}.json"])
            f = json.loads(run([a.einplan, "cost", g, "--plan", work / f"{tag}.json", "--machine", machine, "--format", "json"]).stdout)
            flat_report = json.loads((work / f"{tag}.json").read_text())
            for report, what in [(c, "cluster plan"), (f, "flat plan on the cluster"), (flat_report, "flat plan")]:
                split_ok(report, f"{g.name} p={p}: {what}")
            if flat_report["inter_node_bytes"] != 0:
                sys.exit(f"FAILED: {g.name} p={p}: a machine without nodes reports {flat_report['inter_node_bytes']} bytes between nodes")
            print(f"{g.stem:34} {p:3} {rpn:3} {c['inter_node_bytes']:16} {f['inter_node_bytes']:13} "
                  f"{c['estimated_time_s']:15.4g} {f['estimated_time_s']:12.4g}")
            if c["inter_node_bytes"] > f["inter_node_bytes"]:
                sys.exit(f"FAILED: {g.name} p={p}: the cluster plan sends more between nodes than the flat one")
            if c["estimated_time_s"] > f["estimated_time_s"] * (1 + 1e-9):
                sys.exit(f"FAILED: {g.name} p={p}: the cluster plan is slower on the cluster than the flat one")
            sums["cluster"] += c["inter_node_bytes"]
            sums["flat"] += f["inter_node_bytes"]
    print(f"bytes between nodes, all examples: cluster-aware {sums['cluster']}, flat {sums['flat']}")
    if not sums["cluster"] < sums["flat"]:
        sys.exit("FAILED: the cluster-aware plans send no fewer bytes between nodes than the flat ones")
    print("cluster plans: ok")


if __name__ == "__main__":
    main()
