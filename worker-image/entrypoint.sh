#!/bin/sh
# The worker image's entrypoint: java with the options decided when the image was built (jvm.options) and, for a
# sort, the heap its memory budget gives (memory-options.sh, the rule of the ./quarry launcher too; the operator
# passes a phase's in QUARRY_SORT_HEAP, so that no JVM starts to work it out). QUARRY_HOME
# (default /opt/quarry) is where the image keeps these files; tests point it elsewhere.
set -eu
# As a container's first process this shell ignores a signal it has no handler for: a pod deleted while the line below
# works out the heap ran its command to the end (and its Job counted no failure). exec hands the signals to java.
trap 'exit 143' TERM
trap 'exit 130' INT
home=${QUARRY_HOME:-/opt/quarry}
. "$home/memory-options.sh"
# A command of its own, so that a signal caught meanwhile is acted on before exec (a shell runs a trap between commands).
heap=$(quarry_memory_options java "$home/quarry.jar" "${QUARRY_SORT_HEAP:-}" "$@")
# One option a line, none with a space: word splitting makes them arguments.
# shellcheck disable=SC2086
exec java "@$home/jvm.options" $heap -jar "$home/quarry.jar" "$@"
