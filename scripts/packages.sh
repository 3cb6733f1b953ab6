# SPDX-License-Identifier: MIT
# scripts/packages.sh: shell functions for the scripts that install Debian packages
# (scripts/deps.sh, .ci/slurm/cluster.sh). Source it; it defines:
#   missing_packages PKG...   print, one a line, the packages dpkg does not list as installed
missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
