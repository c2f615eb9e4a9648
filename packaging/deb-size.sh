#!/usr/bin/env bash
# `make deb`'s last step: prints the package's installed size and each program's, and fails past the goals
# (DEB_MAX_INSTALLED_MIB for the whole, DEB_MAX_BRIDGE_MIB for each bridge). The programs are stripped by
# dh_strip; each links its own static Swift runtime.
set -euo pipefail
deb="${1:?usage: deb-size.sh sealtrust-scand_VERSION_ARCH.deb}"
max_installed_mib="${DEB_MAX_INSTALLED_MIB:-45}"
max_bridge_mib="${DEB_MAX_BRIDGE_MIB:-16}"
mib() { awk -v bytes="$1" 'BEGIN { printf "%.1f", bytes / 1048576 }'; }
failures=0

installed_kib="$(dpkg-deb -f "$deb" Installed-Size)"
echo "installed size: $(mib $((installed_kib * 1024))) MiB (at most $max_installed_mib)"
[ "$installed_kib" -le $((max_installed_mib * 1024)) ] || { echo "deb-size: the package is over $max_installed_mib MiB installed" >&2; failures=1; }

while read -r size path; do
    name="${path##*/}"
    echo "  $name: $(mib "$size") MiB"
    case "$name" in
        sealtrust-kiosk|sealtrust-mqtt)
            [ "$size" -le $((max_bridge_mib * 1048576)) ] || { echo "deb-size: $name is over $max_bridge_mib MiB" >&2; failures=1; } ;;
    esac
done < <(dpkg-deb --fsys-tarfile "$deb" | tar -tv --wildcards './usr/bin/*' | awk '{ print $3, $6 }')
exit "$failures"
