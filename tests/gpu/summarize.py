"""Builds the RESULTS table from the files run.sh left in its work folder."""
import glob
import json
import os
import statistics
import sys

W = sys.argv[1]


def results(name):
    path = os.path.join(W, name)
    if not os.path.exists(path):
        return []
    return [json.loads(l[7:]) for l in open(path) if l.startswith("RESULT ")]


def main_group(prof_json, kernel):
    try:
        d = json.load(open(os.path.join(W, prof_json)))
    except Exception as e:  # noqa: BLE001
        return None, "no profile (%s)" % e
    for k in d.get("kernels", []):
        if k["name"] == kernel:
            g = [g for g in k["groups"] if g["main"]][0]
            return g, k
    return None, "kernel not recorded"


print(open(os.path.join(W, "env.txt")).read().strip().replace("\n", "  \n"))
print()
print("| kernel | CUPTI median (us) | n | do_bench same run (us) | diff | do_bench bare run (us) | diff | occupancy ours (blocks/SM, limiter) | driver API on the Triton kernel |")
print("|---|---|---|---|---|---|---|---|---|")
for name, kern in [("vector_add", "add_kernel"), ("softmax", "softmax_kernel"),
                   ("matmul", "matmul_kernel"), ("attention", "attn_fwd")]:
    g, k = main_group("prof-%s.json" % name, kern)
    rp = results("res-%s.txt" % name)
    rb = results("bare-%s.txt" % name)
    if g is None or "median_ns" not in g:
        print("| %s | %s | | | | | | | |" % (name, k))
        continue
    cu = g["median_ns"] / 1e3
    dp = rp[0]["do_bench_median_us"] if rp else float("nan")
    db = rb[0]["do_bench_median_us"] if rb else float("nan")
    occ = g.get("occupancy", {})
    drv = (rp[0].get("driver_occupancy") if rp else None) or {}
    print("| %s | %.1f | %d | %.1f | %+.1f%% | %.1f | %+.1f%% | %s (%s), regs %d, smem %d | %s |" % (
        kern, cu, g["count"], dp, (cu / dp - 1) * 100, db, (cu / db - 1) * 100,
        occ.get("blocks_per_sm"), occ.get("limiter"), g["regs"], g["smem_dynamic"],
        drv.get("blocks_per_sm", drv.get("error"))))
print()


def ratio(kind, other):
    bare = [r["timed_s"] for r in results("ovh-%s-bare.txt" % kind)]
    prof = [r["timed_s"] for r in results("ovh-%s-%s.txt" % (kind, other))]
    n = min(len(bare), len(prof))
    if n == 0:
        return "no data", bare, prof
    rs = [p / b for p, b in zip(prof[:n], bare[:n])]
    return "%.3f (median of %d pairs; min %.3f, max %.3f)" % (statistics.median(rs), n, min(rs), max(rs)), bare, prof


print("| overhead (timed region, profiled / bare) | ratio | bare s | profiled s |")
print("|---|---|---|---|")
for label, kind, other in [("GPU-bound: matmul 8192^3 fp16 x300", "gpu", "prof"),
                           ("launch-bound: 20,000 adds of 4096 floats, tileadvise", "launch", "prof"),
                           ("launch-bound: the same under proton", "launch", "proton")]:
    r, b, p = ratio(kind, other)
    print("| %s | %s | %s | %s |" % (label, r, " ".join("%.3f" % x for x in b),
                                      " ".join("%.3f" % x for x in p)))
print()
# launches recorded in the launch-bound runs
for f in sorted(glob.glob(os.path.join(W, "prof-launch-*.txt")))[:1]:
    print("launch-bound profiled run, first round:  \n```\n" + open(f).read().strip() + "\n```")
occ = os.path.join(W, "..", "occ.txt")
