"""Runs a command for the overhead scripts and appends one line to OUTFILE:
its `RESULT {json}` line (or NORESULT) and the CPU seconds, user and system,
of its whole process tree (getrusage of the children, so a profiler's own
reader process counts). The RESULT line is read from the file named by
$OVH_RESULT when the command wrote it there (a profiler may keep the
program's output in its own log), else from the command's output. That
output's tail goes to stderr when there is no RESULT, or always with
KEEP_OUTPUT set.
Usage: rusage_run.py OUTFILE CMD..."""
import os
import resource
import subprocess
import sys

p = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
where = os.environ.get("OVH_RESULT", "")
text = open(where).read() if where and os.path.exists(where) else p.stdout
res = [line for line in text.splitlines() if line.startswith("RESULT ")]
with open(sys.argv[1], "a") as f:
    f.write("%s CPU %.6f\n" % (res[0] if res else "NORESULT", r.ru_utime + r.ru_stime))
if not res or os.environ.get("KEEP_OUTPUT"):
    sys.stderr.write(p.stdout[-3000:])
