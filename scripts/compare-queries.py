#!/usr/bin/env python3
"""Times queries through two builds of searchlight on one index, alternating them, and prints
one Markdown table row per query: the median of RUNS wall times for each build, and whether
their outputs agree (every item identifier and count of `query --format json`, and the exit
status).

usage: python3 scripts/compare-queries.py DB QUERIES OLD_BINARY NEW_BINARY [RUNS]

QUERIES holds one query per line (blank lines are skipped). The clock is fixed
(`--now 2026-11-29T12:00:00Z`) so that both builds see the same dates."""
import hashlib, re, statistics, subprocess, sys, time

if len(sys.argv) < 5:
    sys.exit(__doc__)
db, queries_path, old, new = sys.argv[1:5]
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 3
queries = [line.rstrip("\n") for line in open(queries_path, encoding="utf-8") if line.strip()]
for query in queries:
    times = {old: [], new: []}
    digests, statuses = {}, {}
    for _ in range(runs):
        for binary in (old, new):
            start = time.time()
            result = subprocess.run(
                [binary, "query", "--db", db, "--now", "2026-11-29T12:00:00Z", "--format", "json", query], capture_output=True)
            times[binary].append(time.time() - start)
            found = b"".join(re.findall(rb'"id":"[^"]*"|"count":\d+', result.stdout))
            digests[binary] = hashlib.md5(found).hexdigest()
            statuses[binary] = result.returncode
    same = "same" if digests[old] == digests[new] and statuses[old] == statuses[new] else "DIFFERENT"
    shown = query.replace("|", "\\|")
    print(f"| `{shown}` | {statistics.median(times[old]):.2f} s | {statistics.median(times[new]):.2f} s | {same} (exit {statuses[new]}) |",
          flush=True)
