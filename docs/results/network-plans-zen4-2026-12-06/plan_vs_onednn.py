# The network's layout plan (tune --json), conversions included, beside oneDNN's sum over the same
# operators: each operator's best of several `tlptune show --network --peers onednn --json` runs
# (oneDNN's timings on a 2-vCPU VM jump now and then), times its weight.
# usage: plan_vs_onednn.py TUNE.json SHOW1.json [SHOW2.json ...]
import json, sys
plan = json.load(open(sys.argv[1]))['layout_plan']
runs = [json.load(open(f))['network']['peers'][0]['tasks'] for f in sys.argv[2:]]
ours = theirs = conversions = 0.0
left_out = []
for i, step in enumerate(plan['tasks']):
    times = [r[i]['peer_seconds'] for r in runs if r[i]['peer_ok']]
    if not times:
        left_out.append(runs[0][i]['op'])
        continue
    w = runs[0][i]['weight']  # the plan's seconds are per occurrence
    ours += w * (step['kernel_seconds'] + step['conversion_seconds'])
    conversions += w * step['conversion_seconds']
    theirs += w * min(times)
print(f'plan over the {len(plan["tasks"]) - len(left_out)} operators oneDNN has: {ours * 1e3:.3f} ms '
      f'({conversions * 1e3:.3f} ms of conversions); whole plan {plan["latency_seconds"] * 1e3:.3f} ms')
print(f'oneDNN, per-operator best of {len(runs)} runs: {theirs * 1e3:.3f} ms')
print(f'plan / oneDNN: {ours / theirs:.3f}')
for op in left_out:
    print(f'left out (oneDNN has no such operator): {op}')
