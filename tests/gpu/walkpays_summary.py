"""Summarises walkpays.jsonl files (later files override earlier ones for
the same kernel, size and step): per kernel and bench size, the naive
kernel's time, the last step's, and the gated walk's (a step kept only when
its outputs match and it is at least 2% faster than the version it follows,
as tileadvise --walk keeps steps), the steps kept, and the gated time over
the first reference's. Prints markdown rows and the geometric mean.

Usage: python3 tests/gpu/walkpays_summary.py RUN/walkpays.jsonl..."""
import json,math,sys
d={}; refs={}
for f in sys.argv[1:]:
    for l in open(f):
        r=json.loads(l)
        if 'ms' not in r: continue
        key=(r['kernel'],json.dumps(r['size']))
        if 'id' in r: d.setdefault(key,{})[r['step']]=(r['id'],r['ms'],r['ok'])
        else: refs.setdefault(key,{})[r['step']]=r['ms']
gm=[]; lines=[]
for key in sorted(d):
    steps=sorted(d[key].items())
    v0=steps[0][1][1]; cur=v0; kept=[]
    for st,(i,ms,ok) in steps[1:]:
        if ok and ms<cur*0.98: cur=ms; kept.append(i)
    rn,rm=list(refs.get(key,{'-':float('nan')}).items())[0]
    gm.append(v0/cur)
    sz=key[1] if len(key[1])<40 else 'grouped, 8 problems'
    lines.append(f"| {key[0]} | {sz} | {v0:.3f} | {steps[-1][1][1]:.3f} | {cur:.3f} | {v0/cur:.2f}× | {', '.join(kept) or '—'} | {rn} {rm:.3f} | {cur/rm:.2f}× |")
print("\n".join(lines))
print('geomean %.3f over %d kernel-sizes'%(math.exp(sum(map(math.log,gm))/len(gm)),len(gm)))
