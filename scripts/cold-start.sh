#!/bin/bash
# Cold start of the commands a model or a person starts (issue 20): the median wall time of
# each whole process over N runs, warm page cache. BENCHMARKS.md subtracts the trivial
# query's time from the others.
# usage: scripts/cold-start.sh SEARCHLIGHT_BINARY INDEX.db [N]
set -euo pipefail
B=$1; D=$2; N=${3:-5}
unset SEARCHLIGHT_MODEL_URL
input=$(mktemp)
trap 'rm -f "$input"' EXIT
cat > "$input" <<'J'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
J
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run() {
  local name=$1; shift; local ts=()
  for _ in $(seq "$N"); do
    s=$(date +%s%N); "$@" > /dev/null 2>&1 < "$input" || true; e=$(date +%s%N)
    ts+=($(( (e - s) / 1000000 )))
  done
  printf "%-12s %s ms  (%s)\n" "$name" "$(printf "%s\n" "${ts[@]}" | med)" "${ts[*]}"
}
run trivial "$B" query --db "$D" 'search domainIdentifier == "nothing-here" | count'
run mcp "$B" mcp --db "$D"
run plan-struct "$B" plan --db "$D" 'trails in Utah rated 4.7 or more'
run plan-text "$B" plan --db "$D" 'which notes mention the budget review'
run tool-call "$B" tool-call --db "$D" '{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["budget","review"]}},"pageSize":10}}}'
run ask "$B" ask --db "$D" 'which notes mention the budget review'
