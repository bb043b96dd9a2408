# The JVM memory options of a quarry command, one a line, from its arguments: sourced by the ./quarry launcher and
# by the worker image's entrypoint, so that both size a sort's JVM by the same rule. POSIX sh (the image may have no
# bash).
#
# The rule is Java's: a small JVM of its own runs dev.quarry.cli.sort.MemoryOptions, which reads the budget as the
# command will (--memory-budget, else the --spec file's workers.memoryBudget, else the default of the process's
# memory limit; core's MemoryBudget) and prints the heap it gives: all of the budget for a phase command, half of it
# for `sort run`, which holds record bytes outside the heap (its direct memory limit, which defaults to the heap's
# size, is the other half); at least 64 MiB. With the JVM's default heap (a quarter of the machine) the collector let
# the heap grow far past the budget: `sort run` of 1M tiny records was 4.6 GB resident under a 1Gi budget, 1.0 GB with
# the heap sized. Reading the budget in the shell went wrong (awk's 32-bit printf, other suffixes than quarry's, the
# spec's other strings), so nothing here parses it. Other commands get no option and start no extra JVM.
#
# A worker pod gets a phase command's heap from the operator instead, in QUARRY_SORT_HEAP (as -Xmx takes it, 819m),
# worked out by the same Java rule from the pod's memory limit and the spec's budget: then no small JVM starts before
# each command. Only the entrypoint passes it on, and only a phase command takes it: `sort run` gives half its budget
# to record bytes outside the heap, so a phase's heap would run it past its budget; and on a laptop a variable left in
# a shell must not resize a local sort (the launcher passes none: QUARRY_JAVA_OPTIONS is its override).

# Prints the memory options for the command line "$4" ... run by the java command "$1" from the jar "$2", given the
# heap "$3" the operator passed (empty for none): nothing for a command other than sort, or a budget the command
# will refuse (it says what is wrong itself).
quarry_memory_options() {
  java=$1 jar=$2 heap=$3
  shift 3
  [ "${1:-}" = sort ] || return 0
  if [ -n "$heap" ] && [ "${2:-}" != run ]; then
    case ${heap%m} in
      "$heap" | "" | *[!0-9]*)
        echo "quarry: Invalid QUARRY_SORT_HEAP: $heap (must be a heap in MiB, such as 819m); working it out from the memory budget" >&2 ;;
      *)
        # The operator read the pod's limit as written; a limit past the node's memory would give a heap the node
        # cannot hold, where the rule's own limit (core's MemoryLimit) is the lower of the two: past 80% of MemTotal
        # (MemoryBudget.DEFAULT_PERCENT), the heap is worked out here instead.
        total_kib=$(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' /proc/meminfo 2>/dev/null || true)
        if [ -z "$total_kib" ] || [ $((${heap%m} * 1024 * 5)) -le $((total_kib * 4)) ]; then
          echo "-Xmx$heap"
          return 0
        fi ;;
    esac
  fi
  # A small heap and the quick compiler: it reads one file and exits, in a few tenths of a second. A budget the
  # command will refuse prints nothing and exits 0 (the command says what is wrong); only a JVM that could not run
  # it fails, and then the command still runs, on the JVM's default heap, which this line says.
  "$java" -Xmx32m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$jar" dev.quarry.cli.sort.MemoryOptions "$@" \
    2>/dev/null \
    || echo "quarry: cannot work out the heap of this sort's memory budget (running $java failed); the JVM's default heap applies" >&2
}
