# Sourced by e2e/tools/install-*-env.sh: the one way the project makes a pinned Python venv under ~/.cache/quarry.
#
# pinned_venv LABEL DIR PACKAGE==VERSION... -- COMMAND [ARGS...]
#   Makes DIR a venv holding exactly these pins, unless a stamp of the same pins says it is complete already (reruns
#   take well under a second). A changed pin makes it again from scratch. COMMAND (a program in the venv's bin) is
#   run once after the install, to prove the packages work, before the stamp is written. pip's output goes to
#   DIR.log, whose last lines are shown when it fails.
pinned_venv() {
  local label=$1 venv=$2
  shift 2
  local pins=()
  while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
    pins+=("$1")
    shift
  done
  shift # the --
  local stamp_name shown
  stamp_name=$(printf '%s-' "${pins[@]}" | sed 's/==/-/g; s/-$//')
  shown=$(printf '%s, ' "${pins[@]}" | sed 's/==/ /g; s/, $//')
  local stamp="$venv/.complete-$stamp_name"
  if [ -f "$stamp" ]; then
    echo "$label: cached ($venv: $shown)"
    return 0
  fi
  local start
  start=$(date +%s)
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" > "$venv.log" 2>&1; then
    tail -20 "$venv.log" >&2
    echo "$label: ERROR: pip could not install $shown; full log: $venv.log" >&2
    return 1
  fi
  "$venv/bin/$1" "${@:2}" > /dev/null
  touch "$stamp"
  echo "$label: installed $shown into $venv in $(( $(date +%s) - start )) s"
}
