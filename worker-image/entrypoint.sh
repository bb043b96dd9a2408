#!/bin/sh
# The worker image's entrypoint: java with the options decided when the image was built (jvm.options) and, for a
# sort, the heap its memory budget gives (memory-options.sh, the rule of the ./quarry launcher too; the operator
# passes a phase's in QUARRY_SORT_HEAP, so that no JVM starts to work it out). QUARRY_HOME
# (default /opt/quarry) is where the image keeps these files; tests point it elsewhere.
set -eu
home=${QUARRY_HOME:-/opt/quarry}
. "$home/memory-options.sh"
# One option a line, none with a space: word splitting makes them arguments.
# shellcheck disable=SC2046
exec java "@$home/jvm.options" $(quarry_memory_options java "$home/quarry.jar" "${QUARRY_SORT_HEAP:-}" "$@") -jar "$home/quarry.jar" "$@"
