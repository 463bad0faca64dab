#!/usr/bin/env python3
"""Turns Debian's package list into Searchlight items: a real catalogue for benchmarks.

    apt-get update && apt-cache dumpavail > /tmp/dumpavail.txt
    python3 scripts/debian-packages.py /tmp/dumpavail.txt > /tmp/packages.jsonl

One item per package (the first stanza of each name): title, description and long text,
Debtags as keywords, version, maintainer, section, priority, homepage, installed size (in bytes) and the
names it depends on.
"""
import json
import re
import sys


def items(lines):
    stanza, key, seen = {}, None, set()
    for line in lines:
        line = line.rstrip("\n")
        if not line:
            if stanza.get("Package") and stanza["Package"] not in seen:
                seen.add(stanza["Package"])
                yield item(stanza)
            stanza, key = {}, None
        elif line[0] in " \t" and key:
            stanza[key] += "\n" + line.strip()
        else:
            key, _, value = line.partition(":")
            stanza[key] = value.strip()
    if stanza.get("Package") and stanza["Package"] not in seen:
        yield item(stanza)


def item(stanza):
    description = stanza.get("Description", "")
    attributes = {"title": stanza["Package"], "contentDescription": description.split("\n")[0], "textContent": description}
    tags = [tag.strip() for tag in stanza.get("Tag", "").replace("\n", " ").split(",") if tag.strip()]
    if tags:
        attributes["keywords"] = tags
    for field, name in [("Version", "version"), ("Maintainer", "maintainer"), ("Section", "section"),
                        ("Priority", "priority"), ("Homepage", "homepage")]:
        if field in stanza:
            attributes[name] = stanza[field]
    if stanza.get("Installed-Size", "").isdigit():
        # Debian gives KiB; items carry sizes in bytes, as Apple's fileSize does.
        attributes["installedSize"] = int(stanza["Installed-Size"]) * 1024
    if "Depends" in stanza:
        depends = []
        for clause in stanza["Depends"].split(","):
            name = re.split(r"[\s(:|]", clause.strip())[0]
            if name and name not in depends:
                depends.append(name)
        attributes["depends"] = depends
    return {"id": stanza["Package"], "domain": "packages", "attributes": attributes}


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8", errors="replace") as source:
        for entry in items(source):
            print(json.dumps(entry, ensure_ascii=False))
