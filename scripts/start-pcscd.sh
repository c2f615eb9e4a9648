#!/usr/bin/env bash
# Starts pcscd (with vsmartcard's virtual reader) when no live pcscd runs,
# and waits until pcscd lists the two virtual readers.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
# A killed pcscd can linger as a zombie; only a live one counts.
if ! ps -C pcscd -o stat= 2>/dev/null | grep -qv '^Z'; then
    # A pcscd killed with SIGKILL leaves its socket behind, and a new one would not start.
    $SUDO rm -f /run/pcscd/pcscd.comm /run/pcscd/pcscd.pid
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
