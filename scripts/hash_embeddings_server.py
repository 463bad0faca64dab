#!/usr/bin/env python3
"""A deterministic stand-in for an embeddings server: OpenAI-compatible /v1/embeddings
answering with hashed bag-of-words vectors (texts that share words are close).

It is not a semantic model; it exists to exercise `searchlight embeddings`, `similar` and
`fuse` end to end without downloading a model.

    python3 scripts/hash_embeddings_server.py --port 8089 --dimensions 384
"""
import argparse, hashlib, json, math, re, unicodedata
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STOP = set("a an and are as at be by for from has have in is it its of on or that the this to was were will with".split())


def words(text):
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    for w in re.findall(r"[a-z0-9]+", text):
        if w in STOP:
            continue
        # A crude stem so "engines" and "engine" share a dimension.
        for suffix in ("ing", "es", "s"):
            if len(w) > len(suffix) + 3 and w.endswith(suffix):
                w = w[: -len(suffix)]
                break
        yield w


def features(text, trigrams):
    for w in words(text):
        yield w, 1.0
        if trigrams and len(w) > 3:
            padded = "<" + w + ">"
            for i in range(len(padded) - 2):
                yield "#" + padded[i : i + 3], 0.5


def embed(text, dimensions, trigrams=False):
    v = [0.0] * dimensions
    for f, weight in features(text, trigrams):
        h = hashlib.blake2b(f.encode(), digest_size=8).digest()
        i = int.from_bytes(h[:4], "little") % dimensions
        v[i] += weight if h[4] & 1 else -weight
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8089)
    parser.add_argument("--dimensions", type=int, default=384)
    parser.add_argument("--trigrams", action="store_true", help="add hashed character trigrams of each word")
    args = parser.parse_args()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            if not self.path.rstrip("/").endswith("/embeddings"):
                self.send_error(404)
                return
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            dims = int(body.get("dimensions") or args.dimensions)
            data = [{"object": "embedding", "index": i, "embedding": embed(t, dims, args.trigrams)} for i, t in enumerate(inputs)]
            out = json.dumps({"object": "list", "data": data, "model": body.get("model", "hash")}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass

    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
