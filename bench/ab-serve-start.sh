#!/bin/bash
# bench/ab-serve-start.sh <closed data dir> <runs> <checkout with dist/>...: how long `serve`
# takes on an existing embedded store until /healthz answers and until a first search answers
# (POST /api/tool), checkouts alternating. Each checkout gets its own copy of the store, started
# once unmeasured first (migrations, and a checkout's one-time work such as db/200's coverage
# check), then `runs` times each. One JSON line per start. Build the store with
# bench/make-store.mjs; copies are removed at the end.
set -e
src=$(cd "$1" && pwd); runs=$2; shift 2
roots=(); copies=()
for c in "$@"; do
  roots+=("$(cd "$c" && pwd)")
  d=$(mktemp -d ${TMPDIR:-/tmp}/cg-start.XXXX); cp -r "$src/." "$d"; copies+=("$d")
done
start() { # root dir label
  local root=$1 d=$2 port=$((20000 + RANDOM % 20000))
  local flags; flags=$(cd $root && node -p "(require('./package.json').scripts.start.match(/^node((?: --\\S+)*) /) || ['', ''])[1]")
  local t0; t0=$(date +%s%3N)
  env CONTEXT_GRAPH_DATA_DIR=$d CONTEXT_GRAPH_PORT=$port LOG_LEVEL=warn node $flags $root/dist/src/cli.js serve > $d.log 2>&1 &
  local pid=$!
  until curl -sf http://127.0.0.1:$port/healthz -o /dev/null; do sleep 0.05; done
  local t1; t1=$(date +%s%3N)
  curl -sf -X POST http://127.0.0.1:$port/api/tool -H 'Content-Type: application/json' \
    -d '{"tool":"search","arguments":{"query_text":"where is the meeting next week","limit":5}}' -o /dev/null
  local t2; t2=$(date +%s%3N)
  kill $pid; wait $pid 2>/dev/null || true
  [ -n "$3" ] && echo "{\"checkout\":\"$(cd $root && git rev-parse --short HEAD)\",\"healthz_s\":$(echo "scale=2; ($t1 - $t0) / 1000" | bc),\"first_search_s\":$(echo "scale=2; ($t2 - $t0) / 1000" | bc)}"
  rm -f $d.log
}
for i in "${!roots[@]}"; do start "${roots[$i]}" "${copies[$i]}" ""; done
for r in $(seq 1 $runs); do
  for i in "${!roots[@]}"; do start "${roots[$i]}" "${copies[$i]}" measured; done
done
rm -rf "${copies[@]}"
