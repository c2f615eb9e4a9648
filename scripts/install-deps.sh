#!/usr/bin/env bash
# Installs the Debian packages the build, the tests, the demo and the benchmarks need.
# Idempotent: apt-get runs only when something is missing.
set -euo pipefail
# One list per part of the project, one package per line; '#' starts a comment.
here="$(cd "$(dirname "$0")" && pwd)"
mapfile -t packages < <(cat "$here"/packages/*.txt | sed 's/#.*//' | tr -s ' 	' '
' | grep -v '^$' | sort -u)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
