#!/usr/bin/env bash
# Benchmark, side by side with AIStore dSort (issue 20): the same 2 GiB of 32 tar shards of ~100 KiB records shuffled
# into 256 MiB shards by dSort on a local one-target AIStore cluster and by `quarry sort run` on the filesystem with
# its default settings, each against a copy in the same medium (an AIS bucket copy; `cp -r`). Not part of CI.
# Usage: e2e/bench/dsort.sh [rounds, default 3]
# Prints wall seconds and the ratio to the copy per round and their medians, and checks that Quarry's output is
# byte-identical across rounds (dSort's is compared too, and reported). cp -r and quarry are timed up to a sync of
# what they wrote, as AIStore's writes are done when its job ends.
# AIStore v1.5.0's aisnode is built from its Go module (a wrapper module, -tags "mono dsort") and cached under
# ~/.cache/quarry/tools/aistore-1.5.0/; the `ais` CLI module is not served by the proxy, so dSort is driven through its
# REST API (v1.5.0 needs "dsorter_type": "dsort_general"). Its fspath is on /dev/shm (memory) when that has room.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
rounds=${1:-3}
AIS_VERSION=1.5.0
tools=${QUARRY_TOOLS_DIR:-$HOME/.cache/quarry/tools}
aisnode=$tools/aistore-$AIS_VERSION/aisnode

# ---- aisnode, built once from its module -------------------------------------------------------------------------
if [ ! -f "$tools/aistore-$AIS_VERSION/.complete" ]; then
  build=$tools/build/aistore-$AIS_VERSION
  mkdir -p "$build" "$tools/aistore-$AIS_VERSION" "$tools/logs"
  # aisnode's package is in AIStore's main module: a module of ours requires it, and builds its command from there.
  printf 'module quarry.dev/tools/aisnode\n\ngo 1.26\n' >"$build/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/NVIDIA/aistore/cmd/aisnode"\n' >"$build/tools.go"
  echo "dsort.sh: building aisnode $AIS_VERSION from its Go module (minutes, once) ..." >&2
  if ! (cd "$build" && go get "github.com/NVIDIA/aistore/cmd/aisnode@v$AIS_VERSION" \
      && go build -tags "mono dsort" -o "$aisnode" github.com/NVIDIA/aistore/cmd/aisnode) \
      >"$tools/logs/aistore-$AIS_VERSION.log" 2>&1; then
    echo "dsort.sh: Cannot build aisnode $AIS_VERSION: $(tail -3 "$tools/logs/aistore-$AIS_VERSION.log")" >&2
    exit 1
  fi
  touch "$tools/aistore-$AIS_VERSION/.complete"
fi
module_dir=$(cd "$tools/build/aistore-$AIS_VERSION" && go list -m -f '{{.Dir}}' github.com/NVIDIA/aistore)

# ---- the dataset and the quarry command line ---------------------------------------------------------------------
source e2e/lib/java.sh
mvn -q -B -ntp -pl worker-image -am install -Dmaven.test.skip=true
work=$(mktemp -d /tmp/quarry-bench-dsort.XXXXXX)
fs_root=$work/ais
if [ "$(df --output=avail -B1 /dev/shm 2>/dev/null | tail -1)" -gt $((8 << 30)) ] 2>/dev/null; then
  fs_root=$(mktemp -d /dev/shm/quarry-bench-ais.XXXXXX)
fi
pids=()
cleanup() {
  # A node may have exited already (kill fails), and wait returns the status of the killed ones: neither is news.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work" "$fs_root"
}
trap cleanup EXIT
# As e2e/bench/sort.sh makes it (SortBench): 64 MiB tar shards of an image-sized and a label-sized member.
./quarry gen --out "$work/in" --shards 32 --records 655 --image-size 100Ki --seed 1 >/dev/null 2>&1
input_bytes=$(du -sb "$work/in" | cut -f1)

# ---- a one-target AIStore cluster on loopback -------------------------------------------------------------------
proxy=http://localhost:51080
start_node() { # instance role port
  local conf=$work/conf$1
  mkdir -p "$conf"
  (
    AIS_CONF_DIR=$conf AIS_CONF_FILE=$conf/ais.json AIS_LOCAL_CONF_FILE=$conf/ais_local.json
    AIS_LOG_DIR=$work/log$1 INSTANCE=$1 PORT=$3 PORT_INTRA_CONTROL=$(($3 + 1000)) PORT_INTRA_DATA=$(($3 + 2000))
    AIS_PRIMARY_URL=$proxy TEST_FSPATH_ROOT=$fs_root/ TEST_FSPATH_COUNT=1 NEXT_TIER=""
    HOSTNAME_LIST="" HOSTNAME_LIST_INTRA_CONTROL="" HOSTNAME_LIST_INTRA_DATA=""
    AIS_BACKEND_PROVIDERS="" HTTP_WRITE_BUFFER_SIZE=65536 HTTP_READ_BUFFER_SIZE=65536
    # AIStore's own config generator, as its deploy script runs it (with its helpers, and unset variables allowed).
    set +eu
    # shellcheck disable=SC1091
    source "$module_dir/deploy/dev/utils.sh"
    # shellcheck disable=SC1091
    source "$module_dir/deploy/dev/local/aisnode_config.sh"
  ) >/dev/null
  local args=(-config="$conf/ais.json" -local_config="$conf/ais_local.json" -role="$2")
  [ "$2" = proxy ] && args+=(-ntargets=1)
  "$aisnode" "${args[@]}" >"$work/node$1.out" 2>&1 &
  pids+=($!)
}
start_node 0 proxy 51080
sleep 2
start_node 1 target 51081
for _ in $(seq 120); do
  curl -fsS "$proxy/v1/health?prr=true" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS "$proxy/v1/health?prr=true" >/dev/null || { echo "dsort.sh: Cannot start AIStore: $(tail -5 "$work"/node*.out)" >&2; exit 1; }

ais_json() { curl -fsS -H 'Content-Type: application/json' "$@"; }
ais_json -X POST "$proxy/v1/buckets/in" -d '{"action":"create-bck"}' >/dev/null
for shard in "$work"/in/*.tar; do
  curl -fsS -L -X PUT -T "$shard" "$proxy/v1/objects/in/$(basename "$shard")" >/dev/null
done

now() { date +%s.%N; }
# Waits for dSort job $1 and prints nothing; fails if it was aborted or reported errors.
wait_dsort() {
  while :; do
    metrics=$(ais_json "$proxy/v1/sort?uuid=$1")
    # No target's metrics is not "all finished": a target that died (out of memory) reports none.
    state=$(jq -r '[.[] | .Metrics] | if length == 0 then "gone"
      elif any(.[]; .aborted == true or ((.errors // []) | length) > 0) then "failed"
      elif all(.[]; .shard_creation.finished == true) then "done" else "running" end' <<<"$metrics")
    case "$state" in
      done) return 0 ;;
      failed) echo "dsort.sh: dSort $1 failed: $metrics" >&2; return 1 ;;
      gone) echo "dsort.sh: no target reports dSort $1: $(target_gone)" >&2; return 1 ;;
    esac
    sleep 0.05
  done
}
# What to say when the target stopped answering: whether the kernel killed it (the fspath on /dev/shm is memory).
# How many times the kernel has killed an aisnode: grep -c prints 0 and exits 1 when there is none, which is an answer,
# not a failure; a dmesg this user may not read counts 0, so the message then only leaves out the cause.
aisnode_kills() { dmesg 2>/dev/null | { grep -c 'Killed process.*(aisnode)' || true; }; }
kills_before=$(aisnode_kills)
target_gone() {
  local why=""
  [ "$(aisnode_kills)" -gt "$kills_before" ] && why=" (the kernel killed aisnode: out of memory)"
  echo "the target is gone$why; its log: $work/node1.out"
}
# Waits for xaction $1 of kind $2 to end, at most 10 minutes (a target that died never ends it).
wait_xaction() {
  local deadline=$((SECONDS + 600))
  while [ "$SECONDS" -lt "$deadline" ]; do
    status=$(ais_json -X GET "$proxy/v1/cluster?what=status" -d "{\"id\":\"$1\",\"kind\":\"$2\"}")
    [ "$(jq -r '.end_time // 0' <<<"$status")" != 0 ] && return 0
    sleep 0.05
  done
  echo "dsort.sh: $2 $1 did not end in 10 minutes: $(target_gone)" >&2
  return 1
}
# Destroyed buckets stay in the target's trash until a cleanup: on /dev/shm, 5 rounds of them filled the machine's
# memory (20 GB) and the kernel killed the target. Untimed, after each round's removals.
empty_trash() {
  local xid
  xid=$(ais_json -X PUT "$proxy/v1/cluster" -d '{"action":"start","value":{"Kind":"cleanup-store"}}' | tr -d '"')
  wait_xaction "$xid" cleanup-store
}
ais_objects_md5() { # bucket: the md5 of every object's bytes, in name order
  local names
  names=$(ais_json "$proxy/v1/buckets/$1" -X GET -d '{"action":"list","value":{"props":"name"}}' \
    | jq -r '.entries[].name' | sort)
  [ -n "$names" ] || { echo "dsort.sh: bucket $1 is empty after its job: $(target_gone)" >&2; return 1; }
  for name in $names; do curl -fsS "$proxy/v1/objects/$1/$name"; done | md5sum | cut -d' ' -f1
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%s\n' "dataset: 32 tar shards, 20960 records, $((input_bytes >> 20)) MiB; shuffle (seed 7) into 256 MiB shards"
printf '%-6s %-48s %8s %8s\n' round run "wall s" "vs copy"
declare -a dsort_s ais_copy_s quarry_s cp_s
dsort_sums=() quarry_sums=()
for round in $(seq "$rounds"); do
  sync
  start=$(now)
  xid=$(ais_json -X POST "$proxy/v1/buckets/in?bck_to=ais/@%23/copy$round/" \
    -d "{\"action\":\"copy-bck\",\"value\":{\"prefix\":\"\",\"prepend\":\"\"}}" | tr -d '"')
  wait_xaction "$xid" copy-bck
  ais_copy_s[round]=$(echo "$(now) - $start" | bc)
  ais_json -X DELETE "$proxy/v1/buckets/copy$round" -d '{"action":"destroy-bck"}' >/dev/null \
    || echo "warning: cannot remove AIS bucket copy$round; its space stays in use until the run ends" >&2

  sync
  start=$(now)
  id=$(ais_json -X POST "$proxy/v1/sort" -d '{"input_bck":{"name":"in","provider":"ais"},
    "input_format":{"template":"train-{000000..000031}.tar"}, "input_extension":".tar",
    "output_bck":{"name":"out'"$round"'","provider":"ais"}, "output_format":"shuffled-{00000..09999}",
    "output_extension":".tar", "output_shard_size":"256MiB", "algorithm":{"kind":"shuffle","seed":"7"},
    "dsorter_type":"dsort_general"}' | tr -d '"')
  wait_dsort "$id"
  dsort_s[round]=$(echo "$(now) - $start" | bc)
  dsort_sums+=("$(ais_objects_md5 "out$round")")
  ais_json -X DELETE "$proxy/v1/buckets/out$round" -d '{"action":"destroy-bck"}' >/dev/null \
    || echo "warning: cannot remove AIS bucket out$round; its space stays in use until the run ends" >&2
  empty_trash

  sync
  start=$(now)
  cp -r "$work/in" "$work/copy"
  sync
  cp_s[round]=$(echo "$(now) - $start" | bc)
  rm -rf "$work/copy"

  sync
  start=$(now)
  ./quarry sort run --input "$work/in/train-{000000..000031}.tar" --output "$work/out/shuffled-{00000..}.tar" \
    --order shuffle --seed 7 --shard-size 256Mi >/dev/null 2>"$work/quarry.err"
  sync
  quarry_s[round]=$(echo "$(now) - $start" | bc)
  quarry_sums+=("$(cat "$work"/out/shuffled-*.tar | md5sum | cut -d' ' -f1)")
  rm -rf "$work/out"

  printf '%-6s %-48s %8.2f %7.2fx\n' "$round" "dSort, 1 target, fspath $( [[ $fs_root == /dev/shm/* ]] && echo in memory || echo on disk)" \
    "${dsort_s[round]}" "$(echo "${dsort_s[round]} / ${ais_copy_s[round]}" | bc -l)"
  printf '%-6s %-48s %8.2f\n' "$round" "AIS bucket copy" "${ais_copy_s[round]}"
  printf '%-6s %-48s %8.2f %7.2fx\n' "$round" "quarry sort run, filesystem, defaults" "${quarry_s[round]}" \
    "$(echo "${quarry_s[round]} / ${cp_s[round]}" | bc -l)"
  printf '%-6s %-48s %8.2f\n' "$round" "cp -r" "${cp_s[round]}"
done

echo
echo "medians over $rounds rounds (ratio: to the copy in the same medium, median of each round's ratio)"
printf '| run | wall s | ratio to a copy in the same medium |\n|---|---|---|\n'
ratios() { for r in $(seq "$rounds"); do echo "$(eval "echo \${$1[r]}") / $(eval "echo \${$2[r]}")" | bc -l; done; }
printf '| dSort, 1 target | %.2f | %.2fx (AIS bucket copy %.2f s) |\n' "$(printf '%s\n' "${dsort_s[@]}" | median)" \
  "$(ratios dsort_s ais_copy_s | median)" "$(printf '%s\n' "${ais_copy_s[@]}" | median)"
printf '| `quarry sort run`, filesystem, defaults | %.2f | %.2fx (`cp -r` %.2f s) |\n' \
  "$(printf '%s\n' "${quarry_s[@]}" | median)" "$(ratios quarry_s cp_s | median)" "$(printf '%s\n' "${cp_s[@]}" | median)"
echo
distinct() { printf '%s\n' "$@" | sort -u | wc -l; }
echo "Quarry's output: $(distinct "${quarry_sums[@]}") distinct of $rounds rounds (byte-identical when 1)"
echo "dSort's output: $(distinct "${dsort_sums[@]}") distinct of $rounds rounds, same seed"
[ "$(distinct "${quarry_sums[@]}")" -eq 1 ] || { echo "dsort.sh: Quarry's output differed between rounds" >&2; exit 1; }
