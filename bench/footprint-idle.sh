#!/bin/bash
# bench/footprint-idle.sh <checkout with dist/> [ENV=value ...]: fresh data dir, serve, wait for /healthz, RSS after 10 s idle and
# after 60 s idle (V8's memory reducer shrinks the main heap ~20 s after start, when allocation stays low); then cold first search/store latencies
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$1" && pwd); shift
d=$(mktemp -d ${TMPDIR:-/tmp}/cg-idle.XXXX); port=$((20000 + RANDOM % 20000))
cd $root
t0=$(date +%s.%N)
# The Node flags the checkout's `npm start` runs the server with (none for older checkouts).
flags=$(node -p "(require('./package.json').scripts.start.match(/^node((?: --\\S+)*) /) || ['', ''])[1]")
env CONTEXT_GRAPH_DATA_DIR=$d CONTEXT_GRAPH_PORT=$port LOG_LEVEL=warn "$@" node $flags dist/src/cli.js serve > $d.log 2>&1 &
pid=$!
until curl -sf http://127.0.0.1:$port/healthz -o $d.health; do sleep 0.2; done
t1=$(date +%s.%N)
sleep 10
rss=$(grep VmRSS /proc/$pid/status | awk '{print $2}'); thr=$(grep Threads /proc/$pid/status | awk '{print $2}')
sleep 50
rss60=$(grep VmRSS /proc/$pid/status | awk '{print $2}')
cold=$(node "$here/footprint-cold.mjs" $root $port 2>&1 | tail -1)
rss2=$(grep VmRSS /proc/$pid/status | awk '{print $2}')
echo "{\"checkout\":\"$(basename $root)\",\"node_flags\":\"${flags# }\",\"env\":\"$*\",\"ready_s\":$(echo "$t1 - $t0" | bc),\"idle_rss_mib\":$((rss/1024)),\"idle_60s_rss_mib\":$((rss60/1024)),\"threads\":$thr,\"rss_after_calls_mib\":$((rss2/1024)),\"healthz_model\":$(grep -o '"embedding_model":"[^"]*"' $d.health | cut -d: -f2),\"calls\":$cold}"
kill $pid; wait $pid 2>/dev/null; rm -rf $d $d.log $d.health
