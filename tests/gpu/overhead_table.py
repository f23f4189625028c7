"""Table of tests/gpu/overhead.sh: launch-bound overhead measured inside each
process (profiler off and on in alternating regions), as ratios with
bootstrap 95% intervals over rounds.
Usage: overhead_table.py ROUNDS_TXT CONDITIONS

ROUNDS_TXT has one line per process, `MODE RESULT {json} CPU seconds` (or
`MODE NORESULT CPU ...`), the lines of each mode in round order; the json is
tests/gpu/kernels/ovh_ab.py's. A process's overhead is the sum of its on
regions over the sum of its off regions; its pairs share the process, so
what sets one process's speed apart from another's divides out. A round
counts only if its three processes gave a result; the bootstrap resamples
whole rounds, so tileadvise's and Proton's figures of a round stay paired.
bare's on/off is an A/A test: the same switch calls with no profiler."""
import json
import math
import random
import statistics
import sys

MODES = ("bare", "ta", "proton")
NAMES = {"bare": "bare (A/A)", "ta": "tileadvise", "proton": "Proton"}
B = 4000


def load(path):
    rows = {m: [] for m in MODES}
    for line in open(path):
        mode, _, rest = line.partition(" ")
        if mode not in rows:
            continue
        if not rest.startswith("RESULT "):
            rows[mode].append(None)
            continue
        js, cpu = rest[len("RESULT "):].rsplit(" CPU ", 1)
        r = json.loads(js)
        r["process_cpu"] = float(cpu)
        rows[mode].append(r)
    return rows


def figures(r):
    """A process's figures: on/off time and CPU ratios, microseconds added
    per launch, off time per launch, and each pair's on/off ratio."""
    n = r["pairs"] * r["launch"]
    on, off = sum(r["on_s"]), sum(r["off_s"])
    return {"ratio": on / off, "cpu": sum(r["on_cpu"]) / sum(r["off_cpu"]),
            "added_us": (on - off) / n * 1e6, "off_us": off / n * 1e6, "on_us": on / n * 1e6,
            "pairs": [a / b for a, b in zip(r["on_s"], r["off_s"])]}


def geo(xs):
    return math.exp(statistics.fmean(math.log(x) for x in xs))


def interval(values, stat, idx_sets):
    boots = sorted(stat([values[i] for i in s]) for s in idx_sets)
    return stat(values), boots[int(0.025 * B)], boots[int(0.975 * B) - 1]


def fmt(t, digits=3):
    est, lo, hi = t
    return f"{est:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}] (±{50 * (hi - lo) / est:.1f}%)"


def main():
    rows = load(sys.argv[1])
    n = min(len(v) for v in rows.values())
    ok = [i for i in range(n) if all(rows[m][i] for m in MODES)]
    print(f"rounds: {len(ok)} complete of {n}; {sys.argv[2] if len(sys.argv) > 2 else ''}")
    if not ok:
        sys.exit("no complete round")
    first = rows["ta"][ok[0]]
    print(f"each process: {first['pairs']} pairs of regions off and on, {first['launch']} timed launches "
          f"a region after {first['warm']} untimed ones; bootstrap {B} resamples of whole rounds\n")
    fig = {m: [figures(rows[m][i]) for i in ok] for m in MODES}
    rng = random.Random(19)
    idx = [[rng.randrange(len(ok)) for _ in ok] for _ in range(B)]

    print("| profiler on / off, inside one process | time ratio, geometric mean over rounds "
          "[95% interval] | µs added per launch, median | launching process's CPU, on / off | "
          "pairs' ratios, 10th-90th percentile |")
    print("|---|---|---|---|---|")
    for m in MODES:
        ratios = [f["ratio"] for f in fig[m]]
        pairs = sorted(p for f in fig[m] for p in f["pairs"])
        q = lambda x: pairs[min(len(pairs) - 1, int(x * len(pairs)))]  # noqa: E731
        print(f"| {NAMES[m]} | {fmt(interval(ratios, geo, idx))} | "
              f"{statistics.median(f['added_us'] for f in fig[m]):+.2f} | "
              f"{fmt(interval([f['cpu'] for f in fig[m]], geo, idx))} | {q(0.1):.3f}-{q(0.9):.3f} |")

    per_round = [t["ratio"] / p["ratio"] for t, p in zip(fig["ta"], fig["proton"])]
    verdict = interval(per_round, geo, idx)
    print("\n| tileadvise / Proton | estimate [95% interval] |")
    print("|---|---|")
    print(f"| overhead ratio (on/off of tileadvise over on/off of Proton, per round), geometric mean | "
          f"{fmt(verdict)} |")
    print(f"| the same, median of rounds | {fmt(interval(per_round, statistics.median, idx))} |")
    added = [t["added_us"] / p["added_us"] for t, p in zip(fig["ta"], fig["proton"]) if p["added_us"] > 0]
    if added:
        print(f"| µs added per launch, tileadvise's over Proton's, median of rounds | "
              f"{statistics.median(added):.3f} |")

    # Whole processes, for reference: the off regions (does switched off
    # equal bare?) and CPU time of the process tree (getrusage).
    print("\n| whole processes (between-process spread included) | bare | tileadvise | Proton |")
    print("|---|---|---|---|")
    print("| off regions, µs per launch: median (min-max) | " + " | ".join(
        f"{statistics.median(f['off_us'] for f in fig[m]):.2f} "
        f"({min(f['off_us'] for f in fig[m]):.2f}-{max(f['off_us'] for f in fig[m]):.2f})" for m in MODES) + " |")
    # What a profiler may cost while switched off (loaded, subscribed) is not
    # in the on/off ratio; across processes it is, within their spread.
    cells = []
    for m in MODES:
        r = [a["off_us"] / b["off_us"] for a, b in zip(fig[m], fig["bare"])]
        cells.append("1" if m == "bare" else fmt(interval(r, geo, idx)))
    print("| off regions over bare's, per round, geometric mean [95% interval] | " + " | ".join(cells) + " |")
    # The same across processes, tileadvise against Proton: what stays while
    # switched off, and the on regions as whole processes would see them.
    for label, key in (("off regions", "off_us"), ("on regions", "on_us")):
        r = [a[key] / b[key] for a, b in zip(fig["ta"], fig["proton"])]
        print(f"| {label}, tileadvise over Proton, per round, geometric mean [95% interval] | | "
              f"{fmt(interval(r, geo, idx))} | 1 |")
    print("| process tree CPU seconds (getrusage), median | " + " | ".join(
        f"{statistics.median(rows[m][i]['process_cpu'] for i in ok):.2f}" for m in MODES) + " |")

    est, lo, hi = verdict
    half = 50 * (hi - lo) / est
    print(f"\nverdict over {len(ok)} rounds: tileadvise's launch-bound overhead over Proton's "
          f"{est:.3f} [{lo:.3f}, {hi:.3f}]; interval ±{half:.1f}% "
          f"({'narrower' if half < 3 else 'NOT narrower'} than ±3%); "
          f"{'below 1.0' if hi < 1 else 'NOT below 1.0'}")


main()
