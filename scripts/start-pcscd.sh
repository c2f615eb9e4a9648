#!/usr/bin/env bash
# Starts pcscd (with vsmartcard's virtual reader) when it is not running,
# and waits until pcscd lists the two virtual readers.
set -euo pipefail
if ! pgrep -x pcscd >/dev/null; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO pcscd
fi
for _ in $(seq 1 100); do
    if timeout 5 pcsc_scan -r 2>/dev/null | grep -q "Virtual PCD 00 01"; then
        exit 0
    fi
    sleep 0.1
done
echo "start-pcscd: pcscd does not list the virtual readers 'Virtual PCD 00 00' and '00 01'" >&2
exit 1
