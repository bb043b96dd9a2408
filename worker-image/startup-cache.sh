#!/usr/bin/env bash
# Makes the startup cache of the quarry jar, once, as the jar is built (worker-image/pom.xml runs this at package;
# the ./quarry launcher starts every command from it): one JVM runs every command on small local data
# (dev.quarry.cli.StartupTraining, as the worker image's build does) and the cache keeps the classes they loaded and
# linked, and on JDK 25+ (an AOT cache) their profiles. A sync status of 50 files: 4.5 s without, 1.4 s with it.
# Usage: startup-cache.sh JAVA JAR -> JAR's name with .aot (JDK 25+) or .jsa (a class-data archive: older JDKs, or
# where the JVM fails to write an AOT cache; Temurin 25.0.3 crashed in ArchiveBuilder for one command).
set -euo pipefail
java=$1 jar=$2
base=${jar%.jar}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -f "$base.aot" "$base.jsa"
# The options the launcher runs with that a cache is checked against (the native-access one decides what loads).
options=(--enable-native-access=ALL-UNNAMED)

# train JVM_OPTION...: runs the training in a fresh folder; its output only if it fails.
train() {
  rm -rf "$work/train" && mkdir "$work/train"
  "$java" "${options[@]}" "$@" -cp "$jar" dev.quarry.cli.StartupTraining "$work/train" >"$work/train.log" 2>&1 \
    || { cat "$work/train.log" >&2; echo "Cannot make the startup cache: the training run failed (above)" >&2; return 1; }
}

properties=$("$java" -XshowSettings:properties -version 2>&1)
major=$(sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' <<<"$properties")
# Classes of Java 5's format (picocli's) stay out of an AOT cache's linked classes: rewrite them first (the same code,
# with stack maps; LinkableClasses.java says why). A failure leaves the jar as it was, and its cache a little slower.
if [ "$major" -ge 25 ]; then
  "$java" "$(dirname "${BASH_SOURCE[0]}")/LinkableClasses.java" "$jar" \
    || echo "startup cache: the jar's classes of Java 5's format stay as they are (above)" >&2
fi
# The AOT cache is written by a second JVM; in a subshell, so that a crash does not make this shell print "Aborted".
if [ "$major" -ge 25 ] \
  && train -XX:AOTMode=record "-XX:AOTConfiguration=$work/quarry.aotconf" -Xlog:aot=off -Xlog:cds=off \
  && ("$java" "${options[@]}" -XX:AOTMode=create "-XX:AOTConfiguration=$work/quarry.aotconf" \
      "-XX:AOTCache=$work/quarry.aot" -Xlog:aot=off -Xlog:cds=off "-XX:ErrorFile=$work/hs_err.log" -cp "$jar" \
      || exit 1) >/dev/null 2>&1 \
  && [ -s "$work/quarry.aot" ]; then
  mv -f "$work/quarry.aot" "$base.aot"
  echo "startup cache: $base.aot"
else
  train "-XX:ArchiveClassesAtExit=$work/quarry.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off
  mv -f "$work/quarry.jsa" "$base.jsa"
  echo "startup cache: $base.jsa"
fi
