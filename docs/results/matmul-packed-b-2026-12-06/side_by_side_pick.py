# Each run's 3 fastest distinct schedules per operator, interleaved run by run, into one log
# that `tlptune measure --from-log` measures again side by side.
import json, glob, sys, os
runs = ['before', 'after', 'after-any']
labels = ['matmul-1024', 'bert-qkv', 'bert-ffn-up', 'bert-ffn-down']
out = open(sys.argv[1], 'w')
index = {}
for label in labels:
    tops = []
    for run in runs:
        f, = glob.glob(f'/tmp/mm/{run}/logs/tlp-*-{label}-t150-s1.jsonl')
        recs = [json.loads(l) for l in open(f)]
        recs = [r for r in recs if r.get('error') == 'none']
        recs.sort(key=lambda r: r['median'])
        seen, top = set(), []
        for r in recs:
            key = (r['workload'], json.dumps(r['schedule']))
            if key in seen: continue
            seen.add(key); top.append(r)
            if len(top) == 3: break
        tops.append(top)
        for r in top: index.setdefault(json.dumps([r['workload'], r['schedule']]), []).append((label, run))
    for i in range(3):
        for top in tops:
            out.write(json.dumps(top[i]) + '\n')
json.dump(index, open(sys.argv[1] + '.index.json', 'w'))
