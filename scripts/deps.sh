#!/usr/bin/env bash
# scripts/deps.sh: install the Debian packages gcoo needs (listed in .ci/packages/*.txt).
# Skips apt when everything is already installed; needs root (or sudo) otherwise.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$top/scripts/packages.sh"
mapfile -t pkgs < <(cat "$top"/.ci/packages/*.txt | sed 's/#.*//' | awk 'NF{print $1}' | sort -u)
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
