#!/usr/bin/env python3
"""Runs each libFuzzer harness of Tests/Fuzz for SECONDS (default 60) and prints one line per
harness: `fuzz HARNESS: N execs, C crashes`. Built first by `make fuzz`.

Seed corpora come from the project itself: the grammar examples (queries), the bundled
samples and test fixtures (item lines), the tool-call cases of the tests (tool calls, and MCP
sessions that open and then call the tool with them), Stages/Examples and
Grammar/examples/stages (stage files, valid and invalid) and the
Markdown notes of the samples and fixtures (front matter).
Corpora and crash files are kept under .build/fuzz/ (a crash is `crash-*` there; reproduce it
with `Tests/Fuzz/.build/release/HARNESS FILE`). Exit status 1 when any harness crashed.

The harnesses are optimised builds (`-c release`: Swift's runtime checks stay, `assert`
goes) and run with ASan keeping no allocation stacks (`malloc_context_size=0`: recording them
took a tenth of FuzzQuery's time in a profile) and with libFuzzer printing no newly covered
functions (no symbolizer run during the run): rerun a crash file by itself, without
ASAN_OPTIONS, for the full report."""
import glob, json, os, re, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
seconds = int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("FUZZ_SECONDS", "60"))
binaries = os.path.join(root, "Tests", "Fuzz", ".build", "release")
work = os.path.join(root, ".build", "fuzz")


def query_seeds():
    for path in sorted(glob.glob(os.path.join(root, "Grammar", "examples", "**", "*.query"), recursive=True)):
        lines, case = open(path, encoding="utf-8").read().split("\n"), None
        for line in lines:
            if line.startswith("-- ok:") or line.startswith("-- error"):
                case = []
            elif line.startswith("-- tree") or line.startswith("-- message"):
                if case:
                    yield "\n".join(case)
                case = None
            elif case is not None:
                case.append(line)


def item_seeds():
    for path in glob.glob(os.path.join(root, "Sources", "searchlight", "Samples", "*.jsonl")) + glob.glob(
            os.path.join(root, "Tests", "Fixtures", "*.jsonl")):
        for line in open(path, encoding="utf-8"):
            if line.strip():
                yield line.strip()


def tool_call_seeds():
    """The JSON fragments of the tool-call test cases (query nodes, stages, whole calls),
    each also placed as the root of a search call."""
    text = open(os.path.join(root, "Tests", "ToolTests", "ToolCallCases.swift"), encoding="utf-8").read()
    for fragment in re.findall(r'#"(\{.*?\})"#', text):
        yield fragment
        yield '{"query":{"type":"search","value":{"root":%s,"pageSize":10}}}' % fragment


def stage_file_seeds():
    for path in sorted(glob.glob(os.path.join(root, "Stages", "Examples", "*.stage")) +
                       glob.glob(os.path.join(root, "Grammar", "examples", "stages", "*.stage"))):
        yield open(path, encoding="utf-8").read()


def mcp_seeds():
    """A session as a client opens it, then each tool-call seed as a tools/call."""
    opening = [
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":3,"method":"resources/list"}',
        '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"searchlight://item/a"}}',
    ]
    yield "\n".join(opening)
    # Each input is a connection of its own, so a call comes after the session's opening;
    # the calls are the tool-call seeds that are whole search calls (every second one).
    for number, call in enumerate(tool_call_seeds()):
        if number % 2 == 1:
            yield "\n".join(opening[:2] + [
                '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_items","arguments":%s}}' % (number + 10, call),
                '{"jsonrpc":"2.0","id":5,"method":"resources/list"}'])


def markdown_seeds():
    """The Markdown notes of the samples and fixtures, and the front-matter texts of
    FrontMatterTests (escapes decoded)."""
    paths = glob.glob(os.path.join(root, "Tests", "Fixtures", "**", "*.md"), recursive=True) + glob.glob(
        os.path.join(root, "Sources", "searchlight", "Samples", "**", "*.md"), recursive=True)
    for path in sorted(paths):
        yield open(path, encoding="utf-8").read()
    text = open(os.path.join(root, "Tests", "SearchIndexTests", "FrontMatterTests.swift"), encoding="utf-8").read()
    for literal in re.findall(r'"((?:---|\\u\{FEFF\}---)(?:[^"\\]|\\.)*)"', text):
        yield re.sub(r"\\u\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), literal).replace("\\n", "\n").replace(
            "\\r", "\r").replace("\\t", "\t").replace('\\"', '"').replace("\\\\", "\\")


harnesses = [("FuzzQuery", query_seeds), ("FuzzItems", item_seeds), ("FuzzToolCall", tool_call_seeds),
             ("FuzzStageFile", stage_file_seeds), ("FuzzMCP", mcp_seeds), ("FuzzFrontMatter", markdown_seeds)]
failed = False
for name, seeds in harnesses:
    corpus = os.path.join(work, name, "corpus")
    artifacts = os.path.join(work, name, "artifacts") + "/"
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    for number, seed in enumerate(seeds()):
        with open(os.path.join(corpus, "seed-%04d" % number), "w", encoding="utf-8") as file:
            file.write(seed)
    before = set(glob.glob(artifacts + "crash-*") + glob.glob(artifacts + "timeout-*") + glob.glob(artifacts + "oom-*"))
    environment = dict(os.environ)
    environment.setdefault("ASAN_OPTIONS", "malloc_context_size=0")
    run = subprocess.run(
        [os.path.join(binaries, name), "-max_total_time=%d" % seconds, "-print_final_stats=1", "-timeout=10",
         "-rss_limit_mb=2048", "-print_funcs=0", "-artifact_prefix=" + artifacts, corpus],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", env=environment)
    execs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", run.stdout)
    if not execs:
        execs = re.findall(r"#(\d+)\s", run.stdout)
    found = set(glob.glob(artifacts + "crash-*") + glob.glob(artifacts + "timeout-*") + glob.glob(artifacts + "oom-*")) - before
    print("fuzz %s: %s execs, %d crashes" % (name, execs[-1] if execs else "0", len(found)), flush=True)
    for path in sorted(found):
        print("  " + os.path.relpath(path, root), flush=True)
        failed = True
    if run.returncode != 0 and not found:
        print("  harness failed (exit %d):\n%s" % (run.returncode, run.stdout[-2000:]), flush=True)
        failed = True
sys.exit(1 if failed else 0)
