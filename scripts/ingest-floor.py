#!/usr/bin/env python3
"""The floor beside Searchlight's ingest: raw SQLite FTS5 and tantivy over the same corpus.

Reads a corpus in `searchlight index --format corpus` form ({"id","title","text"} per line),
JSON parsing included, and reports items/s, CPU seconds, bytes per item and peak memory as one
JSON object per engine:

    python3 scripts/ingest-floor.py /tmp/zipf-100k.jsonl            # FTS5 and (if installed) tantivy

FTS5: Python's sqlite3, one transaction, `tokenize='porter unicode61'`, a contentful table
(title, text) with the id in an UNINDEXED column. tantivy: `pip install tantivy`, one writer
thread, title and text as text fields, id stored.
"""
import json, os, resource, sqlite3, sys, tempfile, time


def measure(name, run, path, items_file):
    start_wall, start_cpu = time.time(), time.process_time()
    count = run(path, items_file)
    wall, cpu = time.time() - start_wall, time.process_time() - start_cpu
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(path) for f in fs) if os.path.isdir(path) else os.path.getsize(path)
    return {"engine": name, "items": count, "itemsPerSecond": round(count / wall), "wallSeconds": round(wall, 2),
            "cpuSeconds": round(cpu, 2), "bytesPerItem": round(size / count), "indexBytes": size}


def fts5(path, items_file):
    db = sqlite3.connect(path)
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize='porter unicode61')")
    count = 0
    with open(items_file, encoding="utf-8") as lines, db:
        for line in lines:
            doc = json.loads(line)
            db.execute("INSERT INTO docs(id, title, text) VALUES (?, ?, ?)", (doc["id"], doc.get("title", ""), doc.get("text", "")))
            count += 1
    db.close()
    return count


def tantivy_index(path, items_file):
    import tantivy
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True)
    builder.add_text_field("title")
    builder.add_text_field("text")
    index = tantivy.Index(builder.build(), path=path)
    writer = index.writer(heap_size=128_000_000, num_threads=1)
    count = 0
    with open(items_file, encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            writer.add_document(tantivy.Document(id=doc["id"], title=doc.get("title", ""), text=doc.get("text", "")))
            count += 1
    writer.commit()
    writer.wait_merging_threads()
    return count


def main():
    items_file = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        print(json.dumps(measure("fts5", fts5, os.path.join(work, "fts5.db"), items_file)), flush=True)
        try:
            import tantivy  # noqa: F401
        except ImportError:
            print(json.dumps({"engine": "tantivy", "skipped": "pip install tantivy"}))
            return
        os.mkdir(os.path.join(work, "tantivy"))
        print(json.dumps(measure("tantivy", tantivy_index, os.path.join(work, "tantivy"), items_file)), flush=True)
    print(json.dumps({"peakMemoryBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


if __name__ == "__main__":
    main()
