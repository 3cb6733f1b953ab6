#!/usr/bin/env bash
# scripts/deps.sh [LIST...]: install the Debian packages of the named lists of .ci/packages/
# (build: what building and running gcoo needs; core, h5, python, reliab, cluster: the tests'
# and CI's tools), every list when none is named. Skips apt when everything is already
# installed; needs root (or sudo) otherwise.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$top/scripts/packages.sh"
lists=()
for l in "$@"; do
  [ -f "$top/.ci/packages/$l.txt" ] || { echo "deps: no list .ci/packages/$l.txt" >&2; exit 2; }
  lists+=("$top/.ci/packages/$l.txt")
done
[ ${#lists[@]} -gt 0 ] || lists=("$top"/.ci/packages/*.txt)
mapfile -t pkgs < <(cat "${lists[@]}" | sed 's/#.*//' | awk 'NF{print $1}' | sort -u)
mapfile -t missing < <(missing_packages "${pkgs[@]}")
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#pkgs[@]} packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
