# Sourced by Quarry's scripts: exports JAVA_HOME as the newest JDK of version 21 or later on this machine,
# found by its version (never by a fixed path), puts it first on PATH, and exports its major version as
# QUARRY_JAVA_MAJOR.

# A JDK's major version from its release file (every JDK since 9 has one; reading it costs nothing, while starting
# each candidate's java costs about 0.1 s, which every ./quarry command would pay), else by asking its java.
quarry_java_major() {
  local version
  if [ -f "$1/release" ]; then
    version=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$1/release")
    if [ -n "$version" ]; then
      echo "$version"
      return
    fi
  fi
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | awk -F'= ' '/java.specification.version/ && !found { split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); found = 1 }'
}

quarry_find_jdk() {
  local candidates=() dir best="" best_major=0 major
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v javac >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")")
  fi
  for dir in /usr/lib/jvm/* /opt/java/* /opt/jdk* /usr/local/jdk* "$HOME"/.sdkman/candidates/java/*; do
    candidates+=("$dir")
  done
  for dir in "${candidates[@]}"; do
    [ -x "$dir/bin/javac" ] && [ -x "$dir/bin/java" ] || continue
    major=$(quarry_java_major "$dir")
    [ -n "$major" ] || continue
    if [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best=$dir
      best_major=$major
    fi
  done
  if [ -z "$best" ]; then
    echo "quarry: Cannot find a JDK 21 or later (looked at \$JAVA_HOME, javac on PATH and /usr/lib/jvm):" \
      "install one, for example 'apt-get install openjdk-21-jdk', or set JAVA_HOME" >&2
    return 1
  fi
  export JAVA_HOME=$best
  export QUARRY_JAVA_MAJOR=$best_major
  export PATH="$JAVA_HOME/bin:$PATH"
  # Maven 3.8 uses sun.misc.Unsafe; JDK 24+ warns about it on every run unless told it is allowed.
  if [ "$best_major" -ge 24 ]; then
    case " ${MAVEN_OPTS:-} " in
      *sun-misc-unsafe-memory-access*) ;;
      *) export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" ;;
    esac
  fi
}

quarry_find_jdk
