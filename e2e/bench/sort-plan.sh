#!/usr/bin/env bash
# Benchmark: the plan side of the shard sort (partition steps, then plan) on tiny records, on the filesystem store.
# For each record count and worker count W: W extract workers split the records into W partitions (untimed), then
# each of the W partition steps and the plan runs as its own quarry process, one after the other (the time and
# memory one worker pod would see), under /usr/bin/time. Prints the most records one step ordered against N/W, the
# slowest step's wall time, the sum of the steps' wall times, the largest step's peak RSS, the plan's wall time and
# peak RSS, whether every RSS stayed within the memory budget plus the JVM's own 96 MiB (MemoryBudget), and what
# the steps left in scratch for create: their ordered lists (objects) and the bytes of their done markers.
# Usage: e2e/bench/sort-plan.sh [record counts, default 1000000] [worker counts, default 1,8]
#        [memory budget, default 512Mi] [order as JSON, default a seeded shuffle; e.g.
#        '{"kind": "content", "content": {"member": "cls", "type": "int"}}' or '{"kind": "none"}']
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
counts=${1:-1000000}
workers=${2:-1,8}
budget=${3:-512Mi}
order=${4:-'{"kind": "shuffle", "seed": 7}'}
budget_mib=$(numfmt --from=iec-i --to-unit=Mi "$budget")
limit_mib=$((budget_mib + 96))
shards=64
work=$(mktemp -d /tmp/quarry-bench-sort-plan.XXXXXX)
trap 'rm -rf "$work"' EXIT
./quarry --version >/dev/null # builds the jar once, before anything is timed

# Runs quarry under /usr/bin/time; prints "<wall seconds> <peak RSS KiB>".
timed() {
  /usr/bin/time -f "%e %M" -o "$work/time" ./quarry "$@" >/dev/null 2>"$work/err" || {
    cat "$work/err" >&2
    return 1
  }
  cat "$work/time"
}

printf '%9s %3s %12s %6s %10s %10s %12s %9s %13s %6s %9s %s\n' records W "most ordered" "x N/W" "step max s" \
  "steps s" "step RSS MiB" "plan s" "plan RSS MiB" lists "markers B" "within budget"
for records in ${counts//,/ }; do
  rm -rf "$work/in"
  ./quarry gen --out "$work/in" --shards "$shards" --records $((records / shards)) --image-size 16 \
    --size-jitter 0 >/dev/null
  total=$((records / shards * shards))
  for w in ${workers//,/ }; do
    rm -rf "$work/out" "$work/scratch"
    cat >"$work/spec.json" <<JSON
{"input": {"template": "$work/in/train-{000000..$(printf '%06d' $((shards - 1)))}.tar"},
 "output": {"template": "$work/out/x-{000000..}.tar", "shardSize": "64Mi"},
 "order": $order,
 "workers": {"memoryBudget": "$budget"},
 "scratch": "$work/scratch/"}
JSON
    pids=()
    for ((i = 0; i < w; i++)); do
      ./quarry sort extract --spec "$work/spec.json" --index "$i" --count "$w" --partitions "$w" >/dev/null \
        2>"$work/extract-$i.err" &
      pids+=($!)
      if ((${#pids[@]} == 2)); then # two cores
        wait "${pids[@]}"
        pids=()
      fi
    done
    if ((${#pids[@]} > 0)); then wait "${pids[@]}"; fi
    most=0 step_max=0 steps=0 step_rss=0
    for ((i = 0; i < w; i++)); do
      read -r seconds rss < <(timed sort partition --spec "$work/spec.json" --index "$i" --count "$w" \
        --extract-count "$w" --json --result "$work/partition-$i.json")
      ordered=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(max(p["records"] for p in (r if isinstance(r, list) else [r]) if p["phase"] == "partition"))' \
        "$work/partition-$i.json")
      most=$((ordered > most ? ordered : most))
      step_max=$(python3 -c "print(max($step_max, $seconds))")
      steps=$(python3 -c "print(round($steps + $seconds, 2))")
      step_rss=$((rss > step_rss ? rss : step_rss))
    done
    read -r plan_seconds plan_rss < <(timed sort plan --spec "$work/spec.json" --extract-count "$w")
    within=yes
    if ((step_rss / 1024 > limit_mib || plan_rss / 1024 > limit_mib)); then within="NO (limit $limit_mib MiB)"; fi
    lists=$(find "$work/scratch/partition" -name '*.run' -not -path '*/sort/*' -not -name 'last-*' | wc -l)
    markers=$(find "$work/scratch/partition" -name done.json -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    printf '%9d %3d %12d %6.2f %10.1f %10.1f %12d %9.1f %13d %6d %9d %s\n' "$total" "$w" "$most" \
      "$(python3 -c "print($most / ($total / $w))")" "$step_max" "$steps" $((step_rss / 1024)) "$plan_seconds" \
      $((plan_rss / 1024)) "$lists" "$markers" "$within"
  done
done
echo
echo "Partition steps and plan each run alone (2 cores); budget $budget: heap sized from it by the launcher."
