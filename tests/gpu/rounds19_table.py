"""Table of tests/gpu/rounds19.sh: launch-bound and GPU-bound overhead and
CPU time, as ratios with bootstrap 95% intervals over rounds.
Usage: rounds19_table.py ROUNDS_TXT CONDITIONS

ROUNDS_TXT has one line per process: `MODE RESULT {json} CPU seconds` (or
`MODE NORESULT CPU ...`), the lines of each mode in round order. A round
counts only if all three of its processes gave a result. The bootstrap
resamples whole rounds, so the two sides of a ratio stay paired (rounds
share the machine's drift); two estimates are given: the ratio of the
medians over rounds, and the median of the per-round ratios."""
import json
import math
import random
import statistics
import sys

MODES = ("bare", "ta", "proton")
NAMES = {"bare": "bare", "ta": "tileadvise", "proton": "Proton"}
FIGS = (("launch_s", "launch-bound region, s"), ("gpu_s", "GPU-bound region, s"), ("cpu", "process CPU time, s"))
B = 4000

rows = {m: [] for m in MODES}
for line in open(sys.argv[1]):
    mode, _, rest = line.partition(" ")
    if mode not in rows:
        continue
    if not rest.startswith("RESULT "):
        rows[mode].append(None)
        continue
    js, cpu = rest[len("RESULT "):].rsplit(" CPU ", 1)
    r = json.loads(js)
    r["cpu"] = float(cpu)
    rows[mode].append(r)
n = min(len(v) for v in rows.values())
ok = [i for i in range(n) if all(rows[m][i] for m in MODES)]
rng = random.Random(19)
idx_sets = [[rng.randrange(len(ok)) for _ in ok] for _ in range(B)] if ok else []


def col(m, k):
    return [rows[m][i][k] for i in ok]


def interval(est, boots):
    boots.sort()
    lo, hi = boots[int(0.025 * B)], boots[int(0.975 * B) - 1]
    return est, lo, hi


def ratio_of_medians(a, b):
    est = statistics.median(a) / statistics.median(b)
    return interval(est, [statistics.median([a[i] for i in s]) / statistics.median([b[i] for i in s])
                          for s in idx_sets])


def median_of_ratios(a, b):
    r = [x / y for x, y in zip(a, b)]
    return interval(statistics.median(r), [statistics.median([r[i] for i in s]) for s in idx_sets])


def fmt(t):
    est, lo, hi = t
    return f"{est:.3f} [{lo:.3f}, {hi:.3f}] (±{50 * (hi - lo) / est:.1f}%)"


print(f"rounds: {len(ok)} complete of {n}; {sys.argv[2]}; each figure a process's median region; "
      f"modes interleaved in each round, order rotating; bootstrap {B} resamples of whole rounds\n")
if not ok:
    sys.exit("no complete round")
print("| median over rounds | " + " | ".join(NAMES[m] for m in MODES) + " |")
print("|---" * (len(MODES) + 1) + "|")
for k, label in FIGS:
    print(f"| {label} | " + " | ".join(f"{statistics.median(col(m, k)):.4f}" for m in MODES) + " |")
for k, label in FIGS[:1]:
    print(f"| {label}: min-max | " + " | ".join(f"{min(col(m, k)):.4f}-{max(col(m, k)):.4f}" for m in MODES) + " |")
# spread inside one process: the regions' range over their median, median over processes
spread = {m: statistics.median([(max(rows[m][i]["launch_regions"]) - min(rows[m][i]["launch_regions"]))
                                / rows[m][i]["launch_s"] for i in ok]) for m in MODES}
print("| launch-bound regions inside a process: (max-min)/median, median | " +
      " | ".join(f"{100 * spread[m]:.1f}%" for m in MODES) + " |")

print("\n| ratio [95% bootstrap interval] | launch-bound, ratio of medians | launch-bound, median of "
      "per-round ratios | GPU-bound, ratio of medians | CPU time, ratio of medians |")
print("|---|---|---|---|---|")
verdict = None
for a, b in (("ta", "bare"), ("proton", "bare"), ("ta", "proton")):
    rm = ratio_of_medians(col(a, "launch_s"), col(b, "launch_s"))
    mr = median_of_ratios(col(a, "launch_s"), col(b, "launch_s"))
    print(f"| {NAMES[a]} / {NAMES[b]} | {fmt(rm)} | {fmt(mr)} | "
          f"{fmt(ratio_of_medians(col(a, 'gpu_s'), col(b, 'gpu_s')))} | "
          f"{fmt(ratio_of_medians(col(a, 'cpu'), col(b, 'cpu')))} |")
    if (a, b) == ("ta", "proton"):
        verdict = rm

# Overhead over bare, per round: (profiled - bare) / bare; tileadvise's against Proton's.
ovh = {m: [x / y - 1 for x, y in zip(col(m, "launch_s"), col("bare", "launch_s"))] for m in ("ta", "proton")}
print(f"\nlaunch-bound overhead over bare, median of rounds: tileadvise {100 * statistics.median(ovh['ta']):+.1f}%, "
      f"Proton {100 * statistics.median(ovh['proton']):+.1f}%")
sd = statistics.stdev([math.log(x / y) for x, y in zip(col("ta", "launch_s"), col("proton", "launch_s"))]) \
    if len(ok) > 1 else float("nan")
need = math.ceil((1.96 * sd / 0.03) ** 2) if sd == sd else "?"
print(f"sd of log(tileadvise/Proton) per round: {sd:.3f}; rounds a ±3% interval would need at this spread: "
      f"about {need}")
est, lo, hi = verdict
half = 50 * (hi - lo) / est
print(f"\nverdict over {len(ok)} rounds (tileadvise/Proton, launch-bound, ratio of medians): {est:.3f} [{lo:.3f}, {hi:.3f}]; "
      f"interval ±{half:.1f}% ({'narrower' if half < 3 else 'NOT narrower'} than ±3%); "
      f"{'below 1.0' if hi < 1 else 'NOT below 1.0'}")
