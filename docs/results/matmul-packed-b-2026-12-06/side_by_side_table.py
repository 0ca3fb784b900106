# The table of README.md from the three rounds of `tlptune measure --from-log picked.jsonl`:
# each schedule's median over the rounds, each run's best of its three.
import collections, json, statistics, sys
d = sys.argv[1] if len(sys.argv) > 1 else '.'
index = json.load(open(f'{d}/picked.jsonl.index.json'))
meds = collections.defaultdict(list)
for k in (1, 2, 3):
    for line in open(f'{d}/round{k}.jsonl'):
        r = json.loads(line)
        if r.get('error') == 'none':
            meds[json.dumps([r['workload'], r['schedule']])].append(r['median'])
flops = {'matmul-1024': 2 * 1024**3, 'bert-qkv': 2 * 128 * 768 * 768,
         'bert-ffn-up': 2 * 128 * 3072 * 768 + 2 * 128 * 3072, 'bert-ffn-down': 2 * 128 * 768 * 3072}
best, which = collections.defaultdict(lambda: float('inf')), {}
for key, owners in index.items():
    m = statistics.median(meds[key])
    for label, run in owners:
        if m < best[(label, run)]:
            best[(label, run)], which[(label, run)] = m, json.loads(key)[0]
for label in flops:
    b, a, y = (best[(label, r)] for r in ('before', 'after', 'after-any'))
    gf = lambda s: flops[label] / s / 1e9
    print(f'| {label} | {gf(b):.1f} | {gf(a):.1f} | {gf(y):.1f} ({which[(label, "after-any")].split(",")[-1]}) '
          f'| {b / a:.3f} | {b / y:.3f} |')
