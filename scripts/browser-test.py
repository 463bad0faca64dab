#!/usr/bin/env python3
"""Drives the page of `searchlight serve` in headless Chromium (`--dump-dom` after a virtual
time budget): a query renders its results and facets, a bad query shows its caret and hint,
a plain question shows its plan, and an ask streams its answer with numbered source cards.

Starts the built binary (SEARCHLIGHT_BINARY, else .build/debug/searchlight, else
.build/release/searchlight) on a free loopback port over the bundled samples, and stops it
with SIGTERM (it must exit 0). Without Chromium the test fails when CI=true or
SEARCHLIGHT_REQUIRE_BROWSER=1 (as .ci/run sets) and is reported as not run otherwise.
Exit status 0 when every check passed."""
import html, os, re, shutil, signal, subprocess, sys, tempfile, time, urllib.parse

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
samples = os.path.join(root, "Sources", "searchlight", "Samples")
required = os.environ.get("CI", "").lower() == "true" or os.environ.get("SEARCHLIGHT_REQUIRE_BROWSER") == "1"


def fail(message):
    print(f"browser-test: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def find_binary():
    override = os.environ.get("SEARCHLIGHT_BINARY")
    if override:
        return override
    for config in ("debug", "release"):
        path = os.path.join(root, ".build", config, "searchlight")
        if os.access(path, os.X_OK):
            return path
    fail("no searchlight binary; run 'swift build' first")


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    if required:
        fail("Chromium is not installed (apt-get install chromium); the browser test must run here")
    print("browser-test: NOT RUN: Chromium is not installed (apt-get install chromium)", file=sys.stderr)
    sys.exit(0)


def dump_dom(chromium, url, budget_ms=30000):
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-extensions", "--no-first-run",
               "--window-size=1280,900", f"--virtual-time-budget={budget_ms}", "--dump-dom", url]
    with tempfile.TemporaryDirectory(prefix="searchlight-chromium-") as profile:
        result = subprocess.run(command + [f"--user-data-dir={profile}"], capture_output=True, text=True, timeout=120)
    if result.returncode != 0 or "<html" not in result.stdout:
        fail(f"chromium exited {result.returncode} for {url}: {result.stderr[-2000:]}")
    return result.stdout


def text_of(fragment):
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def element(dom, element_id):
    """The opening tag and inner HTML of the element with `element_id` (to its matching end)."""
    match = re.search(r'<(\w+)[^>]*\bid="' + re.escape(element_id) + r'"[^>]*>', dom)
    if not match:
        fail(f"no #{element_id} in the page")
    tag, start, depth, position = match.group(1), match.end(), 1, match.end()
    pattern = re.compile(r"<(/?)" + tag + r"\b[^>]*>")
    while depth:
        found = pattern.search(dom, position)
        if not found:
            break
        depth += -1 if found.group(1) else 1
        position = found.end()
    return match.group(0), dom[start:position]


def check(name, condition, detail=""):
    if not condition:
        fail(f"{name}{': ' + detail if detail else ''}")
    print(f"browser-test: ok: {name}")


def main():
    binary, chromium = find_binary(), find_chromium()
    work = tempfile.mkdtemp(prefix="searchlight-browser-")
    db = os.path.join(work, "samples.db")
    indexed = subprocess.run([binary, "index", "--db", db] + [os.path.join(samples, name) for name in ("trails.jsonl", "notes.jsonl", "notes-folder")],
                             capture_output=True, text=True)
    if indexed.returncode != 0:
        fail(f"indexing the samples failed: {indexed.stderr}")
    log_path = os.path.join(work, "serve.log")
    log = open(log_path, "w")
    environment = dict(os.environ, SEARCHLIGHT_NOW="2026-11-29T12:00:00Z", NO_COLOR="1")
    server = subprocess.Popen([binary, "serve", "--db", db, "--port", "0"], stderr=log, stdout=subprocess.DEVNULL, env=environment)
    try:
        base = None
        deadline = time.time() + 60
        while time.time() < deadline and base is None:
            if server.poll() is not None:
                fail(f"serve exited {server.returncode}: {open(log_path).read()}")
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", open(log_path).read())
            base = f"http://127.0.0.1:{found.group(1)}" if found else None
            time.sleep(0.1)
        if base is None:
            fail("serve printed no URL within 60 s")

        # A query renders its results as cards, and its facets.
        dom = dump_dom(chromium, base + "/?q=" + urllib.parse.quote('keywords == "waterfall"c'))
        opening, results = element(dom, "results")
        check("a query finishes", 'data-state="done"' in opening, opening)
        cards = re.findall(r'class="card result"', results)
        check("a query renders its results", len(cards) >= 5 and "Mist Trail" in results, f"{len(cards)} cards")
        _, facets = element(dom, "facets")
        check("a query shows facets", 'class="facet"' in facets and "trails" in text_of(facets))

        # A bad query shows the source line, a caret under the mistake, and the hint.
        dom = dump_dom(chromium, base + "/?q=" + urllib.parse.quote('title == "june'))
        opening, error = element(dom, "error")
        check("a bad query shows an error", "hidden" not in opening and "unterminated string" in text_of(error), text_of(error))
        caret = re.search(r'<span class="caret">([^<]*)</span>', error)
        check("a bad query shows its caret", caret is not None and caret.group(1) == " " * 9 + "^~~~~", caret.group(1) if caret else error)
        check("a bad query shows its hint", "help:" in text_of(error))

        # A plain question is planned, and the plan is there on demand.
        dom = dump_dom(chromium, base + "/?q=" + urllib.parse.quote("hikes in California"))
        opening, plan = element(dom, "plan")
        check("a question shows its plan", "hidden" not in opening and 'stateOrProvince == "California"' in html.unescape(plan), text_of(plan))
        check("a question renders results", len(re.findall(r'class="card result"', element(dom, "results")[1])) >= 3)

        # An ask streams its answer and numbered source cards.
        # Chromium's virtual time runs on while the event stream is open, so on a busy machine
        # the DOM can be dumped before the answer ends: load the page again (a few times at
        # most) rather than read a half-streamed answer. An ask that never ends still fails.
        for attempt in range(4):
            dom = dump_dom(chromium, base + "/?ask=" + urllib.parse.quote("trails with waterfalls"), budget_ms=120000)
            opening, panel = element(dom, "ask")
            if 'data-state="done"' in opening:
                break
            print(f"browser-test: the ask was still streaming when the page was read (attempt {attempt + 1}); again", flush=True)
        check("an ask finishes", 'data-state="done"' in opening, opening)
        _, answer = element(dom, "answer")
        check("an ask shows its answer", "waterfall" in text_of(answer).lower(), text_of(answer)[:200])
        _, sources = element(dom, "sources")
        check("an ask shows its sources", len(re.findall(r'class="source-card"', sources)) >= 3 and sources.startswith("<li"))

        # An item page shows the item's attributes.
        dom = dump_dom(chromium, base + "/?item=trail-1")
        _, item = element(dom, "item")
        check("an item page shows the item", "Mist Trail" in text_of(item) and "stateOrProvince" in text_of(item))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            fail("serve did not stop within 30 s of SIGTERM")
        log.close()
        shutil.rmtree(work, ignore_errors=True)
    check("serve stops cleanly on SIGTERM", code == 0, f"exit {code}")
    print("browser-test: all checks passed")


if __name__ == "__main__":
    main()
