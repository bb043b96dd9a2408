#!/bin/sh
# The worker image's entrypoint: java with the options decided when the image was built (jvm.options) and, for a
# sort, the heap its memory budget gives (memory-options.sh, the rule of the ./quarry launcher too; the operator
# passes a phase's in QUARRY_SORT_HEAP, so that no JVM starts to work it out). QUARRY_HOME
# (default /opt/quarry) is where the image keeps these files; tests point it elsewhere.
#
# This shell is the container's first process (PID 1 of its PID namespace), to which the kernel delivers only the
# signals it has a handler for. So java runs as its child rather than in its place: exec'd, java would be PID 1 and
# drop the SIGTERM of a pod deleted before the JVM installs its handler, running its command on until the kubelet's
# SIGKILL. The shell handles TERM and INT and passes them on as TERM (a child of a non-interactive shell starts with
# INT ignored, which the JVM keeps); its exit status is java's.
set -eu
# A signal ends the shell with the status java would give it until java is started, and is passed on to java from
# then on: $! names java as soon as it is started, before the line after it runs.
passed_on() {
  started=${!:-}
  if [ -z "$started" ]; then
    exit "$1"
  fi
  kill -TERM "$started" 2>/dev/null || true # java may have ended meanwhile; its status is waited for below
}
trap 'passed_on 143' TERM
trap 'passed_on 130' INT
home=${QUARRY_HOME:-/opt/quarry}
. "$home/memory-options.sh"
# A command of its own, so that a signal caught meanwhile is acted on before java starts (a shell runs a trap between
# commands).
heap=$(quarry_memory_options java "$home/quarry.jar" "${QUARRY_SORT_HEAP:-}" "$@")
# One option a line, none with a space: word splitting makes them arguments. Standard input is passed on through
# descriptor 3 (an asynchronous command's is /dev/null before its own redirections).
exec 3<&0
# shellcheck disable=SC2086
java "@$home/jvm.options" $heap -jar "$home/quarry.jar" "$@" <&3 3<&- &
java=$!
# A trapped signal ends wait early (status above 128), so wait again while java runs. Once it has ended, one more wait
# gives its status: the shell keeps it, and java may have ended (and been reaped) between an interrupted wait and the
# check, which then ended the pod with the interruption's 143 instead of java's own status.
while kill -0 "$java" 2>/dev/null; do
  wait "$java" || true # a signal's 128 + n, or java's status, which the wait below gives again
done
status=0
wait "$java" || status=$?
exit "$status"
