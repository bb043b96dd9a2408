# The JVM memory options of a quarry command, one a line, from its arguments: sourced by the ./quarry launcher and
# by the worker image's entrypoint, so that both size a sort's JVM by the same rule. POSIX sh (the image may have no
# bash). The Java side of the rule is core's dev.quarry.core.sort.MemoryBudget; LauncherIT checks that they agree.
#
# A sort's memory budget is the whole process's memory but for the JVM's fixed overhead: --memory-budget, else the
# --spec file's workers.memoryBudget, else 80% of the process's memory limit (its cgroup's, else the machine's). A
# phase command's heap is its budget; `sort run` holds record bytes outside the heap, so its heap is half the budget
# (and its direct memory limit, which defaults to the heap's size, the other half); either is at least 64 MiB. With the JVM's default heap (a
# quarter of the machine) the collector let the heap grow far past the budget: `sort run` of 1M tiny records was
# 4.6 GB resident under a 1Gi budget, 1.0 GB with the heap sized. Without a budget the JVM sizes the heap itself from
# the same limit (MaxRAMPercentage), so no one here reads cgroup files. Other commands get no option from here.

# Bytes of a Kubernetes-style quantity (512Mi, 2G, 1.5Gi, 1048576); fails on any other spelling.
quarry_quantity_bytes() {
  awk -v q="$1" 'BEGIN {
    if (!match(q, /^[0-9]+(\.[0-9]+)?/)) exit 1
    n = substr(q, 1, RLENGTH); unit = substr(q, RLENGTH + 1)
    split("Ki Mi Gi Ti K M G T", units, " ")
    split("1024 1048576 1073741824 1099511627776 1000 1000000 1000000000 1000000000000", factors, " ")
    f = (unit == "") ? 1 : 0
    for (i = 1; i <= 8; i++) if (unit == units[i]) f = factors[i]
    if (f == 0) exit 1
    printf "%d\n", n * f
  }'
}

# Prints the memory options for the command line "$@" (nothing for a command other than sort).
quarry_memory_options() {
  [ "${1:-}" = sort ] || return 0
  holds_records=false
  [ "${2:-}" = run ] && holds_records=true
  budget="" spec="" previous=""
  for word in "$@"; do
    case "$previous" in
      --memory-budget) budget=$word ;;
      --spec) spec=$word ;;
    esac
    case "$word" in
      --memory-budget=*) budget=${word#--memory-budget=} ;;
      --spec=*) spec=${word#--spec=} ;;
    esac
    previous=$word
  done
  if [ -z "$budget" ] && [ -n "$spec" ] && [ -f "$spec" ]; then
    budget=$(sed -n 's/.*"\{0,1\}memoryBudget"\{0,1\}[[:space:]]*:[[:space:]]*["'"'"']\{0,1\}\([0-9.]*[A-Za-z]*\).*/\1/p' \
      "$spec" | sed -n 1p)
  fi
  if [ -z "$budget" ]; then
    # MemoryBudget.DEFAULT_PERCENT of the limit, all of it or half of it the heap.
    if [ "$holds_records" = true ]; then echo "-XX:MaxRAMPercentage=40"; else echo "-XX:MaxRAMPercentage=80"; fi
  elif bytes=$(quarry_quantity_bytes "$budget") && [ "$bytes" -ge $((16 << 20)) ]; then
    # A budget this cannot read (an unusual spelling) or below the minimum, which quarry refuses, adds nothing.
    if [ "$holds_records" = true ]; then bytes=$((bytes / 2)); fi
    # At least MemoryBudget.MIN_HEAP_BYTES: a plan's merge alone needs tens of MiB.
    if [ "$bytes" -lt $((64 << 20)) ]; then bytes=$((64 << 20)); fi
    echo "-Xmx$((bytes / 1048576))m"
  fi
}
