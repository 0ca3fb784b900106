#!/usr/bin/env python3
"""Sums a peer library's latency over a network file's operators, weighted by their
counts, for comparing with 'tlptune tune --network': one 'tlptune peers' run per
operator the peer applies to (the others are listed and left out of the sum).

usage: scripts/network-peer-sum.py NETWORK.json [--peer onednn] [--tlptune build/bin/tlptune]
                                   [--min-seconds 0.5] [--json OUT.json]

Run it on an otherwise idle machine: every operator is timed once, one after another.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("network")
    ap.add_argument("--peer", default="onednn")
    ap.add_argument("--tlptune", default="build/bin/tlptune")
    ap.add_argument("--min-seconds", default="0.5")
    ap.add_argument("--json")
    a = ap.parse_args()
    with open(a.network) as f:
        net = json.load(f)
    rows, total, skipped = [], 0.0, []
    with tempfile.TemporaryDirectory() as tmp:
        for i, task in enumerate(net["tasks"]):
            out = os.path.join(tmp, f"{i}.json")
            r = subprocess.run([a.tlptune, "peers", "--op", task["op"], "--peers", a.peer, "--quiet",
                                "--min-seconds", a.min_seconds, "--json", out], capture_output=True, text=True)
            if r.returncode != 0:
                skipped.append((task["op"], r.stdout.strip().splitlines()[-1:] or r.stderr.strip().splitlines()[-1:]))
                continue
            peer = json.load(open(out))["peers"][0]
            if peer.get("skipped") or peer.get("error") != "none":
                skipped.append((task["op"], peer.get("note") or peer.get("error")))
                continue
            w = float(task.get("weight", 1))
            total += w * peer["median_seconds"]
            rows.append({"op": task["op"], "weight": w, "median_seconds": peer["median_seconds"],
                         "what_ran": peer.get("what_ran", "")})
            print(f"{peer['median_seconds'] * 1e3:9.4f} ms x{w:g}  {task['op']}", flush=True)
    print(f"\n{a.peer} over {len(rows)} operators of {net.get('name', a.network)}: {total * 1e3:.3f} ms "
          f"(sum of weight x median)")
    for op, why in skipped:
        print(f"left out: {op}: {why}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"network": net.get("name"), "peer": a.peer, "total_seconds": total, "operators": rows,
                       "left_out": [op for op, _ in skipped]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
