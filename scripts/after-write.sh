#!/bin/bash
# The first question after a write (issue 20): N rounds of indexing one new item into
# INDEX.db and timing the `plan` that follows (whole process, seconds). Use a copy of the
# file: it gains N items.
# usage: scripts/after-write.sh SEARCHLIGHT_BINARY INDEX.db N
set -euo pipefail
S=$1; DB=$2; N=$3
item=$(mktemp --suffix .jsonl)
trap 'rm -f "$item"' EXIT
"$S" plan --db "$DB" "which notes mention the budget" > /dev/null 2>&1
for i in $(seq 1 "$N"); do
  echo "{\"id\":\"after-write-$$-$i\",\"domain\":\"notes\",\"contentType\":\"note\",\"attributes\":{\"title\":\"After write $i\",\"textContent\":\"budget review $i\",\"keywords\":[\"budget\"]}}" > "$item"
  w=$( { /usr/bin/time -f "%e" "$S" index --db "$DB" "$item" > /dev/null; } 2>&1 | tail -1 )
  p=$( { /usr/bin/time -f "%e" "$S" plan --db "$DB" "which notes mention the budget" > /dev/null; } 2>&1 | tail -1 )
  echo -n "index $w s, plan $p s; "
done
echo
