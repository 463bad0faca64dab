#!/usr/bin/env python3
"""Requests per second and p50/p99 latency of `searchlight serve`'s /v1/query at 1, 4 and 16
concurrent clients, next to the same queries through the CLI (`searchlight query`, one process
per query), for BENCHMARKS.md.

    scripts/serve-bench.py BINARY DB [SECONDS] [CONCURRENCY...]

Starts `BINARY serve --db DB --port 0`; each HTTP client is a thread with one keep-alive
connection (http.client) sending the query in a loop for SECONDS (default 10) per level; the
CLI clients run `BINARY query --db DB --format json QUERY` back to back for the same time.
Every answer is checked (HTTP 200 and at least one reply line; CLI exit 0), and a failure
counts and is reported. Prints a Markdown table."""
import http.client, json, os, re, signal, statistics, subprocess, sys, threading, time

QUERIES = {
    "text top-10": 'search "first build" | top 10',
    "group + count": 'search domainIdentifier == "trails" | group by stateOrProvince | count',
}


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, int(round(fraction * len(ordered) + 0.5)) - 1))
    return ordered[index]


def run_clients(count, seconds, one_request):
    """Runs `count` threads calling one_request() until `seconds` pass; returns latencies (ms),
    failures and the elapsed time."""
    latencies, failures, lock = [], [0], threading.Lock()
    deadline = time.monotonic() + seconds

    def client():
        state = {}
        mine, failed = [], 0
        while time.monotonic() < deadline:
            start = time.monotonic()
            ok = one_request(state)
            elapsed = (time.monotonic() - start) * 1000
            if ok:
                mine.append(elapsed)
            else:
                failed += 1
        with lock:
            latencies.extend(mine)
            failures[0] += failed

    threads = [threading.Thread(target=client) for _ in range(count)]
    begin = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, failures[0], time.monotonic() - begin


def http_request(port, body):
    def one(state):
        try:
            if "connection" not in state:
                state["connection"] = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            connection = state["connection"]
            connection.request("POST", "/v1/query", body=body, headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            data = response.read()
            return response.status == 200 and data.startswith(b'{"queryToken"')
        except (OSError, http.client.HTTPException):
            state.pop("connection", None)
            return False
    return one


def cli_request(binary, db, query):
    def one(_state):
        result = subprocess.run([binary, "query", "--db", db, "--format", "json", "--", query], capture_output=True)
        return result.returncode == 0 and result.stdout.startswith(b'{"queryToken"')
    return one


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, db = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10
    levels = [int(n) for n in sys.argv[4:]] or [1, 4, 16]
    log_path = "/tmp/serve-bench-%d.log" % os.getpid()
    log = open(log_path, "w")
    server = subprocess.Popen([binary, "serve", "--db", db, "--port", "0"], stderr=log, stdout=subprocess.DEVNULL)
    port = None
    for _ in range(600):
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", open(log_path).read())
        if found:
            port = int(found.group(1))
            break
        time.sleep(0.1)
    if port is None:
        server.kill()
        sys.exit("serve did not start: " + open(log_path).read())
    rows = []
    try:
        for name, query in QUERIES.items():
            body = json.dumps({"query": query})
            # Warm the page cache and the server's connections once.
            run_clients(1, 1, http_request(port, body))
            for level in levels:
                for via, request in (("HTTP", http_request(port, body)), ("CLI", cli_request(binary, db, query))):
                    latencies, failures, elapsed = run_clients(level, seconds, request)
                    load = os.getloadavg()[0]
                    rows.append((name, via, level, len(latencies) / elapsed, percentile(latencies, 0.5), percentile(latencies, 0.99),
                                 len(latencies), failures, load))
                    print(f"{name} {via} x{level}: {len(latencies) / elapsed:.1f} req/s p50 {percentile(latencies, 0.5):.1f} ms "
                          f"p99 {percentile(latencies, 0.99):.1f} ms ({len(latencies)} ok, {failures} failed, load {load:.1f})",
                          file=sys.stderr)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        log.close()
        os.unlink(log_path)
    print("| query | via | clients | requests/s | p50 ms | p99 ms | requests | failed | load |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, via, level, rate, p50, p99, count, failures, load in rows:
        print(f"| {name} | {via} | {level} | {rate:,.1f} | {p50:,.1f} | {p99:,.1f} | {count:,} | {failures} | {load:.1f} |")


if __name__ == "__main__":
    main()
