#!/usr/bin/env python3
"""What a person at `searchlight serve`'s search page waits for: each question's requests as
the page sends them, timed, for BENCHMARKS.md.

    scripts/page-flow.py BINARY DB [ROUNDS] -- QUESTION...

Starts `BINARY serve --db DB --port 0`, and for each question sends what the page does (see
Sources/Server/WebPage+Script.swift): POST /v1/plan, then /v1/query with the planned query and
`limit` 100, then /v1/facets; then, as if the first group of the last facet were picked, its
narrowed query (the group's `query`; a server without it, the page's old text rewrite) and
that query's facets. Every response must be HTTP 200
(a picked facet that fails is reported as such). ROUNDS (default 3) passes over all the
questions; the first warms the page cache and is dropped when there are more. Prints a Markdown
table of median milliseconds per step, and the sum."""
import http.client, json, os, re, signal, statistics, subprocess, sys, tempfile, time


def page_narrowed(query, attribute, key):
    """How the page narrowed a query to a facet group before the server's facets carried the
    narrowed query (a server older than session 43): a text rewrite that breaks on
    named statements."""
    if not isinstance(key, str):
        return None
    condition = attribute + ' == "' + re.sub(r'([\\"*?])', r"\\\1", key) + '"'
    pipeline = re.match(r"^\s*search\s+([\s\S]+?)\s\|(?!\|)([\s\S]*)$", query)
    if pipeline:
        return "search (" + pipeline.group(1) + ") && " + condition + " |" + pipeline.group(2)
    return "(" + query + ") && " + condition


def main():
    if "--" not in sys.argv or sys.argv.index("--") < 3:
        sys.exit(__doc__)
    split = sys.argv.index("--")
    binary, db = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if split > 3 else 3
    questions = sys.argv[split + 1:]
    log = tempfile.NamedTemporaryFile(prefix="page-flow-", suffix=".log", delete=False)
    server = subprocess.Popen([binary, "serve", "--db", db, "--port", "0"], stdout=log, stderr=log)
    try:
        port = None
        deadline = time.time() + 120
        while port is None and time.time() < deadline:
            if server.poll() is not None:
                sys.exit(f"serve exited {server.returncode}: {open(log.name).read()}")
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", open(log.name).read())
            port = int(found.group(1)) if found else None
            time.sleep(0.1)
        if port is None:
            sys.exit("serve printed no URL within 120 s")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

        def post(path, body):
            start = time.monotonic()
            connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
            response = connection.getresponse()
            data = response.read()
            return (time.monotonic() - start) * 1000, response.status, data

        steps = ["plan", "query", "facets", "pick", "pick facets"]
        timings = {question: {step: [] for step in steps} for question in questions}
        failures = {}
        for round_number in range(rounds):
            for question in questions:
                spent, status, data = post("/v1/plan", {"question": question})
                if status != 200:
                    failures[question] = f"plan {status}"
                    continue
                query = json.loads(data)["dsl"]
                found = {"plan": spent}
                found["query"], status, _ = post("/v1/query", {"query": query, "limit": 100})
                found["facets"], status, data = post("/v1/facets", {"query": query})
                facets = json.loads(data.splitlines()[0])["facets"] if status == 200 else []
                group = facets[-1]["groups"][0] if facets and facets[-1]["groups"] else None
                if group is not None:
                    narrowed = group.get("query") or page_narrowed(query, facets[-1]["attribute"], group["key"])
                    if narrowed is not None:
                        found["pick"], status, data = post("/v1/query", {"query": narrowed, "limit": 100})
                        if status != 200:
                            failures[question] = f"picked facet: {status} {data[:160]!r}"
                        found["pick facets"], _, _ = post("/v1/facets", {"query": narrowed})
                if rounds == 1 or round_number > 0:
                    for step, value in found.items():
                        timings[question][step].append(value)
        print("| question | " + " | ".join(steps) + " | sum |")
        print("|---|" + "---:|" * (len(steps) + 1))
        for question in questions:
            medians = [statistics.median(timings[question][step]) if timings[question][step] else None for step in steps]
            cells = ["–" if value is None else f"{value:.0f}" for value in medians]
            total = sum(value for value in medians if value is not None)
            note = f" ({failures[question]})" if question in failures else ""
            print(f"| {question}{note} | " + " | ".join(cells) + f" | {total:.0f} |")
        return 1 if failures else 0
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        os.unlink(log.name)


if __name__ == "__main__":
    sys.exit(main())
