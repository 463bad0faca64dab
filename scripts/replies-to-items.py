#!/usr/bin/env python3
"""Turns the replies of `searchlight query --format json` into items `searchlight index` reads.

Each reply line of an `items` (or `scoredItems`) result holds a batch of items in the JSON form
`index` takes ({"id", "domain", "contentType", "attributes", ...}); this writes one item per line:

    searchlight query --db FILE --format json 'search * | limit 1000000' \
      | python3 scripts/replies-to-items.py > items.jsonl

BENCHMARKS.md uses it to index the items `bench --items N --db FILE` generated through `index`.
"""
import json
import sys


def main():
    out = sys.stdout
    for line in sys.stdin:
        content = json.loads(line).get("content") or {}
        for item in content.get("items") or []:
            out.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
