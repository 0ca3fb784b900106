# The layout plan (tune --json) beside oneDNN over the same operators, grouped by
# kind of convolution: kernel and conversion milliseconds of the plan, oneDNN's
# per-operator best of the given `show --network --peers onednn --json` runs,
# and the trials each group's tasks got, in the layout the plan runs them in and
# in all.
# usage: plan_by_group.py TUNE.json SHOW1.json [SHOW2.json ...]
import json, re, sys

tune = json.load(open(sys.argv[1]))
plan = tune['layout_plan']['tasks']
runs = [json.load(open(f))['network']['peers'][0]['tasks'] for f in sys.argv[2:]]


def group(op):
    if op.startswith('matmul'):
        return 'classifier (matmul)'
    f = dict(re.findall(r'(\w+)=(\w+)', op))
    if f.get('C') == '3':
        return 'stem (7x7, stride 2)'
    return f"{f['R']}x{f['S']}" + (', stride 2' if f.get('stride') == '2' else '')


rows = {}
for i, step in enumerate(plan):
    times = [r[i]['peer_seconds'] for r in runs if r[i]['peer_ok']]
    if not times:
        continue
    op, w = runs[0][i]['op'], runs[0][i]['weight']
    task = tune['tasks'][i]
    in_plan = sum(v['trials'] for v in task.get('layout_variants') or []
                  if step['layout'] and v['workload'].endswith('layout=' + step['layout']))
    g = rows.setdefault(group(op), dict(n=0, kernel=0.0, conv=0.0, onednn=0.0, trials=0, in_plan=0))
    g['n'] += w
    g['kernel'] += w * step['kernel_seconds']
    g['conv'] += w * step['conversion_seconds']
    g['onednn'] += w * min(times)
    g['trials'] += task['trials']
    g['in_plan'] += in_plan

print('| operators | occurrences | plan kernels (ms) | conversions (ms) | oneDNN (ms) | plan / oneDNN | trials (in the plan\'s layout) |')
print('|---|---|---|---|---|---|---|')
tot = dict(kernel=0.0, conv=0.0, onednn=0.0)
for name, g in rows.items():
    for k in tot:
        tot[k] += g[k]
    print(f"| {name} | {g['n']:.0f} | {g['kernel'] * 1e3:.3f} | {g['conv'] * 1e3:.3f} | {g['onednn'] * 1e3:.3f} | "
          f"{(g['kernel'] + g['conv']) / g['onednn']:.2f}× | {g['trials']} ({g['in_plan']}) |")
print(f"| **all** | | {tot['kernel'] * 1e3:.3f} | {tot['conv'] * 1e3:.3f} | {tot['onednn'] * 1e3:.3f} | "
      f"**{(tot['kernel'] + tot['conv']) / tot['onednn']:.3f}×** | |")
