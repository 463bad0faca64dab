#!/usr/bin/env python3
"""The floor beside Searchlight's ranked top 10: tantivy over the same corpus and queries.

Indexes a corpus in `searchlight index --format corpus` form ({"id","title","text"} per line)
with tantivy (`pip install tantivy`: one writer thread, title and text as text fields with the
default tokenizer, one segment after a merge), then times the top 10 of each query's words
joined with OR over title and text, as `searchlight bench --corpus ... --queries ...
--ranked-only` times Searchlight's ranked index:

    python3 scripts/ranked-floor.py /tmp/zipf-100k.jsonl /tmp/zipf-queries.jsonl [passes]

Queries are parsed once, before timing; each pass runs every query once on one searcher in
this thread. Prints one JSON object: p50, p95 and p99 in milliseconds over all samples.
"""
import json, os, sys, tempfile, time


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    import tantivy
    corpus, queries_file = sys.argv[1], sys.argv[2]
    passes = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with tempfile.TemporaryDirectory() as work:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("id", stored=True)
        builder.add_text_field("title")
        builder.add_text_field("text")
        index = tantivy.Index(builder.build(), path=work)
        writer = index.writer(heap_size=256_000_000, num_threads=1)
        with open(corpus, encoding="utf-8") as lines:
            for line in lines:
                doc = json.loads(line)
                writer.add_document(tantivy.Document(id=doc["id"], title=doc.get("title", ""), text=doc.get("text", "")))
        writer.commit()
        writer.wait_merging_threads()
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
        print(json.dumps({"engine": "tantivy", "queries": len(parsed), "samples": len(samples), "segments": len(searcher.segment_reader_ids()) if hasattr(searcher, "segment_reader_ids") else None,
                          "p50": round(percentile(samples, 0.5), 3), "p95": round(percentile(samples, 0.95), 3), "p99": round(percentile(samples, 0.99), 3)}))


if __name__ == "__main__":
    main()
