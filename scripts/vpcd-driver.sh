#!/usr/bin/env bash
# Prints the path of vsmartcard's vpcd driver (libifdvpcd.so) for the private pcscd, unpacked from Debian's
# vsmartcard-vpcd into .build/vpcd without installing it: the installed package would put its two virtual
# readers into the machine's own pcscd (/etc/reader.conf.d/vpcd), on a station too.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/.build/vpcd"
driver="$cache/usr/lib/pcsc/drivers/serial/libifdvpcd.so"
if [ ! -e "$driver" ]; then
    mkdir -p "$root/.build"
    work="$(mktemp -d "$root/.build/vpcd.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
    # apt-get download needs package lists; a fresh machine may have none yet.
    if ! (cd "$work" && apt-get download -qq vsmartcard-vpcd 2>/dev/null); then
        SUDO=""
        [ "$(id -u)" -eq 0 ] || SUDO=sudo
        $SUDO apt-get update -qq
        (cd "$work" && apt-get download -qq vsmartcard-vpcd 2>/dev/null)
    fi
    dpkg-deb -x "$work"/vsmartcard-vpcd_*.deb "$work/root"
    # Two runs may unpack at once: the first rename wins, the other's copy goes with its scratch folder.
    mv -T "$work/root" "$cache" 2>/dev/null || [ -e "$driver" ]
fi
echo "$driver"
