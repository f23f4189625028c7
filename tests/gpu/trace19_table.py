"""Tables of tests/gpu/trace19.sh: overhead ratios with bootstrap 95%
intervals, CPU time, and adaptive vs full tracing kernel figures.
Usage: trace19_table.py WORKDIR CORES LAUNCH"""
import glob
import json
import random
import statistics
import sys

w, cores, launch = sys.argv[1], sys.argv[2], int(sys.argv[3])
MODES = ("bare", "ta", "full", "proton")
NAMES = {"bare": "bare", "ta": "tileadvise (adaptive)", "full": "tileadvise (full tracing)", "proton": "Proton"}


def load(mode):
    rows = []
    for line in open(f"{w}/{mode}.txt"):
        if not line.startswith("RESULT "):
            rows.append(None)
            continue
        js, cpu = line[len("RESULT "):].rsplit(" CPU ", 1)
        r = json.loads(js)
        rows.append((r["launch_s"], r["gpu_s"], float(cpu)))
    return rows


data = {m: load(m) for m in MODES}
n = min(len(v) for v in data.values())
ok = [i for i in range(n) if all(data[m][i] for m in MODES)]
rng = random.Random(19)


def col(m, k):
    return [data[m][i][k] for i in ok]


def ci(a, b):
    est = statistics.median(a) / statistics.median(b)
    boots = []
    for _ in range(4000):
        idx = [rng.randrange(len(a)) for _ in range(len(a))]
        boots.append(statistics.median([a[i] for i in idx]) / statistics.median([b[i] for i in idx]))
    boots.sort()
    lo, hi = boots[int(0.025 * len(boots))], boots[int(0.975 * len(boots)) - 1]
    return f"{est:.3f} [{lo:.3f}, {hi:.3f}] (±{50 * (hi - lo) / est:.1f}%)"


print(f"rounds: {len(ok)} complete of {n}; each process: 5 regions of {launch} launches of a "
      f"4096-float add (launch-bound) and 5 regions of 200 adds of 2^26 floats (GPU-bound), "
      f"figure = its median region; modes interleaved, order rotating; pinned to cores {cores}\n")
print("| figure | " + " | ".join(NAMES[m] for m in MODES) + " |")
print("|---" * (len(MODES) + 1) + "|")
for k, label in ((0, "launch-bound region, s"), (1, "GPU-bound region, s"), (2, "process CPU time, s")):
    print(f"| {label} | " + " | ".join(f"{statistics.median(col(m, k)):.4f}" for m in MODES) + " |")
print("\n| ratio of medians [95% bootstrap interval] | launch-bound | GPU-bound | CPU time |")
print("|---|---|---|---|")
for a, b in (("ta", "bare"), ("full", "bare"), ("proton", "bare"), ("ta", "proton"), ("full", "proton"),
             ("ta", "full")):
    print(f"| {NAMES[a]} / {NAMES[b]} | " + " | ".join(ci(col(a, k), col(b, k)) for k in range(3)) + " |")


def streams(mode):
    per_shape = {}
    calls = {}
    for f in sorted(glob.glob(f"{w}/{mode}-*.jsonl")):
        if f.endswith("-0.jsonl"):
            continue
        seen = set()
        for line in open(f):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("type") == "kernel" and r["name"].startswith("tiny_add"):
                key = r["grid"][0]
                if key not in seen:        # the first launch of the process: warm-up
                    seen.add(key)
                    continue
                per_shape.setdefault(key, []).append(r["end"] - r["start"])
            elif r.get("type") == "calls" and r["name"].startswith("tiny_add"):
                c = calls.setdefault(r["grid"][0], [0, 0, []])
                c[0] += r["launches"]
                c[1] += r["traced"]
                if "period" in r:
                    c[2].append(r["period"]["median"])
    return per_shape, calls


sa, ca = streams("ta")
sf, cf = streams("full")
print("\n| shape (grid) | adaptive: GPU times / launches counted | full: GPU times / launches | "
      "median adaptive ns | median full ns | difference | host period adaptive / full (median of runs) |")
print("|---|---|---|---|---|---|---|")
for key in sorted(set(sa) | set(sf)):
    a, f = sa.get(key, []), sf.get(key, [])
    ma = statistics.median(a) if a else float("nan")
    mf = statistics.median(f) if f else float("nan")
    pa = statistics.median(ca[key][2]) if key in ca and ca[key][2] else float("nan")
    pf = statistics.median(cf[key][2]) if key in cf and cf[key][2] else float("nan")
    print(f"| {key} | {len(a)} / {ca.get(key, [0])[0]} | {len(f)} / {cf.get(key, [0])[0]} | {ma:.0f} | {mf:.0f} "
          f"| {100 * (ma / mf - 1):+.2f}% | {pa / 1e3:.2f} / {pf / 1e3:.2f} us |")
