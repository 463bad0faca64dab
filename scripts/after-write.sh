#!/bin/bash
# The first question after a write (issue 20): N rounds of one write to INDEX.db, each
# followed by a timed `plan` (whole process, seconds). Use a copy of the file: it changes.
# MODE add (default): each round indexes one new item. edit: each round rewrites the same
# note with new text. delete: each round indexes one item, plans, deletes it, and times
# the plan after the delete.
# usage: scripts/after-write.sh SEARCHLIGHT_BINARY INDEX.db N [add|edit|delete]
set -euo pipefail
S=$1; DB=$2; N=$3; MODE=${4:-add}
item=$(mktemp --suffix .jsonl)
trap 'rm -f "$item"' EXIT
note() { # id, text
  echo "{\"id\":\"$1\",\"domain\":\"notes\",\"contentType\":\"note\",\"attributes\":{\"title\":\"After write $2\",\"textContent\":\"budget review $2\",\"keywords\":[\"budget\"]}}" > "$item"
}
timed() { { /usr/bin/time -f "%e" "$@" > /dev/null; } 2>&1 | tail -1; }
if [ "$MODE" = edit ]; then note "after-write-$$-edited" 0; "$S" index --db "$DB" "$item" > /dev/null; fi
"$S" plan --db "$DB" "which notes mention the budget" > /dev/null 2>&1
for i in $(seq 1 "$N"); do
  case "$MODE" in
    add) note "after-write-$$-$i" "$i"; w=$(timed "$S" index --db "$DB" "$item") ;;
    edit) note "after-write-$$-edited" "$i"; w=$(timed "$S" index --db "$DB" "$item") ;;
    delete)
      note "after-write-$$-$i" "$i"; "$S" index --db "$DB" "$item" > /dev/null
      "$S" plan --db "$DB" "which notes mention the budget" > /dev/null
      w=$(timed "$S" delete --db "$DB" --id "after-write-$$-$i") ;;
    *) echo "unknown mode $MODE" >&2; exit 2 ;;
  esac
  p=$(timed "$S" plan --db "$DB" "which notes mention the budget")
  echo -n "$MODE $w s, plan $p s; "
done
echo
