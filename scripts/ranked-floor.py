#!/usr/bin/env python3
"""The floor beside Searchlight's ranked top 10: tantivy over the same corpus and queries.

Indexes a corpus in `searchlight index --format corpus` form ({"id","title","text"} per line)
with tantivy as `scripts/ingest-floor.py` does (`pip install tantivy`: one writer thread, title
and text as text fields with the default tokenizer, merged), then times the top 10 of each query's words
joined with OR over title and text, as `searchlight bench --corpus ... --queries ...
--ranked-only` times Searchlight's ranked index:

    python3 scripts/ranked-floor.py /tmp/zipf-100k.jsonl /tmp/zipf-queries.jsonl [passes]

Queries are parsed once, before timing; each pass runs every query once on one searcher in
this thread. Prints one JSON object: p50, p95 and p99 in milliseconds over all samples.
"""
import json, os, runpy, sys, tempfile, time


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    import tantivy
    corpus, queries_file = sys.argv[1], sys.argv[2]
    passes = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with tempfile.TemporaryDirectory() as work:
        # The index ingest-floor.py builds and times (same schema, one writer thread).
        floor = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ingest-floor.py"))
        floor["tantivy_index"](work, corpus)
        index = tantivy.Index.open(work)
        index.reload()
        searcher = index.searcher()
        parsed = []
        with open(queries_file, encoding="utf-8") as lines:
            for line in lines:
                words = [word for word in json.loads(line)["text"].split() if word.isalnum()]
                if words:
                    parsed.append(index.parse_query(" OR ".join(words), ["title", "text"]))
        for query in parsed:  # one warm-up pass
            searcher.search(query, 10)
        samples = []
        for _ in range(passes):
            for query in parsed:
                start = time.perf_counter()
                searcher.search(query, 10)
                samples.append((time.perf_counter() - start) * 1000)
        print(json.dumps({"engine": "tantivy", "queries": len(parsed), "samples": len(samples),
                          "p50": round(percentile(samples, 0.5), 3), "p95": round(percentile(samples, 0.95), 3), "p99": round(percentile(samples, 0.99), 3)}))


if __name__ == "__main__":
    main()
