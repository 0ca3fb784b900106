import json, glob, statistics, collections, math, sys
out = sys.argv[1]
r = json.load(open(f'{out}/report.json'))
peers = {p['op']: p['gflops'] for p in r['peers']}
runs = collections.defaultdict(dict)
for x in r['runs']: runs[(x['label'], x['op'])][x['seed']] = x['remeasured_gflops']
ratios = []
for (label, op), seeds in runs.items():
    med = statistics.median(seeds.values()); ratio = med / peers[op]; ratios.append(ratio)
    wins = []
    for s in sorted(seeds):
        f = glob.glob(f'{out}/logs/*{label}-t300-s{s}.jsonl')[0]
        best = (1e9, None); n = collections.Counter()
        for l in open(f):
            rec = json.loads(l); lay = (rec['workload'].split('layout=') + ['plain'])[1]; n[lay] += 1
            if rec.get('error') == 'none' and rec['median'] < best[0]: best = (rec['median'], lay)
        wins.append(f'{best[1]} {n[best[1]]}')
    print(f"| {label} | {med:.1f} ({', '.join(f'{seeds[s]:.1f}' for s in sorted(seeds))}) | {peers[op]:.1f} | {ratio:.2f}× | {' · '.join(wins)} |")
print(f'geomean {math.exp(sum(map(math.log, ratios))/len(ratios)):.3f}')
