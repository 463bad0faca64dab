#!/usr/bin/env python3
"""Exact top-k cosine search over the same random vectors: Searchlight next to sqlite-vec.

    pip install sqlite-vec numpy
    swift build -c release --product searchlight
    python3 scripts/bench_vectors.py --count 100000 --count 1000000 --dimensions 384

Writes the vectors and query vectors as raw float32 files in a temporary folder, builds a
sqlite-vec `vec0` table (distance_metric=cosine) in an SQLite file there and times its KNN
queries, runs `searchlight bench --vectors N --vectors-file ... --queries-file ...` on the
same files, checks both against a NumPy brute-force top-k, and prints a Markdown table.
Every temporary file is deleted at the end.

Python's sqlite3 module must be able to load extensions; when this interpreter's cannot
(pyenv builds often lack it), the script reruns itself with /usr/bin/python3 and this
interpreter's site-packages.
"""
import argparse, json, os, shutil, sqlite3, subprocess, sys, tempfile, time


def reexec_if_needed():
    if hasattr(sqlite3.Connection, "enable_load_extension") or os.environ.get("BENCH_VECTORS_REEXEC"):
        return
    import site
    paths = site.getsitepackages() + [site.getusersitepackages()]
    env = dict(os.environ, BENCH_VECTORS_REEXEC="1", PYTHONPATH=os.pathsep.join(paths + [os.environ.get("PYTHONPATH", "")]))
    os.execve("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv, env)


reexec_if_needed()
import numpy as np  # noqa: E402
import sqlite_vec  # noqa: E402


def percentile(values, p):
    return float(np.percentile(np.array(values), p))


def ground_truth(vectors, queries, k):
    v = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    truth = []
    for row in q:
        scores = v @ row
        top = np.argpartition(-scores, k)[:k]
        truth.append(set(top[np.argsort(-scores[top])].tolist()))
    return truth


def sqlite_vec_run(folder, vectors, queries, k):
    path = os.path.join(folder, "vec.db")
    db = sqlite3.connect(path)
    db.enable_load_extension(True)
    sqlite_vec.load(db)
    db.enable_load_extension(False)
    dims = vectors.shape[1]
    db.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{dims}] distance_metric=cosine)")
    start = time.perf_counter()
    batch = 10_000
    for offset in range(0, len(vectors), batch):
        rows = [(offset + i + 1, vectors[offset + i].tobytes()) for i in range(min(batch, len(vectors) - offset))]
        db.executemany("INSERT INTO v(rowid, embedding) VALUES (?, ?)", rows)
    db.commit()
    write = time.perf_counter() - start
    sql = "SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = ? ORDER BY distance"
    db.execute(sql, (queries[0].tobytes(), k)).fetchall()  # warm the page cache
    times, results = [], []
    for q in queries:
        start = time.perf_counter()
        rows = db.execute(sql, (q.tobytes(), k)).fetchall()
        times.append((time.perf_counter() - start) * 1000)
        results.append([r[0] - 1 for r in rows])
    size = os.path.getsize(path)
    db.close()
    return {"write": write, "bytes": size, "p50": percentile(times, 50), "p95": percentile(times, 95), "topK": results,
            "version": sqlite_vec.__version__ if hasattr(sqlite_vec, "__version__") else "?"}


def searchlight_run(binary, folder, vectors_file, queries_file, count, dims, queries, k):
    out = subprocess.run(
        [binary, "bench", "--vectors", str(count), "--dimensions", str(dims), "--vector-queries", str(queries), "--k", str(k),
         "--vectors-file", vectors_file, "--queries-file", queries_file, "--db", os.path.join(folder, "searchlight.db"), "--format", "json"],
        check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def recall(results, truth):
    return sum(len(set(r) & t) for r, t in zip(results, truth)) / sum(len(t) for t in truth)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, action="append", help="vectors (repeatable; default 100000)")
    parser.add_argument("--dimensions", type=int, default=384)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--searchlight", default=".build/release/searchlight")
    parser.add_argument("--tmp", default=tempfile.gettempdir())
    args = parser.parse_args()
    rows = []
    for count in args.count or [100_000]:
        folder = tempfile.mkdtemp(prefix="searchlight-vectors-", dir=args.tmp)
        try:
            rng = np.random.default_rng(args.seed)
            vectors = rng.uniform(-1, 1, size=(count, args.dimensions)).astype("<f4")
            queries = rng.uniform(-1, 1, size=(args.queries, args.dimensions)).astype("<f4")
            vectors_file, queries_file = os.path.join(folder, "vectors.f32"), os.path.join(folder, "queries.f32")
            vectors.tofile(vectors_file)
            queries.tofile(queries_file)
            truth = ground_truth(vectors, queries, args.k)
            ours = searchlight_run(args.searchlight, folder, vectors_file, queries_file, count, args.dimensions, args.queries, args.k)
            os.remove(os.path.join(folder, "searchlight.db"))
            theirs = sqlite_vec_run(folder, vectors, queries, args.k)
            rows.append((count, ours, theirs, recall(ours["topK"], truth), recall(theirs["topK"], truth)))
            print(f"{count}: searchlight scan p50 {ours['scanP50Ms']:.2f} ms, similar query p50 {ours['queryP50Ms']:.2f} ms; "
                  f"sqlite-vec p50 {theirs['p50']:.2f} ms", file=sys.stderr)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"| vectors | engine | p50 ms | p95 ms | recall@{args.k} vs NumPy | write s | file MB | load s |")
    print("|---|---|---|---|---|---|---|---|")
    for count, ours, theirs, ours_recall, theirs_recall in rows:
        print(f"| {count:,} | Searchlight SIMD scan (matrix in memory) | {ours['scanP50Ms']:.2f} | {ours['scanP95Ms']:.2f} | {ours_recall:.3f} | "
              f"{ours['writeSeconds']:.1f} | {ours['fileBytes'] / 1e6:.0f} | {ours['loadSeconds']:.2f} |")
        print(f"| {count:,} | Searchlight `similar` query (scan + SQL) | {ours['queryP50Ms']:.2f} | {ours['queryP95Ms']:.2f} | | | | |")
        print(f"| {count:,} | sqlite-vec {theirs['version']} vec0 KNN | {theirs['p50']:.2f} | {theirs['p95']:.2f} | {theirs_recall:.3f} | "
              f"{theirs['write']:.1f} | {theirs['bytes'] / 1e6:.0f} | – |")


if __name__ == "__main__":
    main()
