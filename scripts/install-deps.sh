#!/usr/bin/env bash
# Installs the Debian packages the build, the tests, the demo and the benchmarks need.
# Idempotent: apt-get runs only when something is missing.
set -euo pipefail
packages=(
    # build
    libpcsclite-dev libzbar-dev pkg-config
    # the real parts the tests drive
    pcscd vsmartcard-vpcd pcsc-tools
    # fixtures and the sandbox API (Debian's /usr/bin/python3)
    python3 python3-cryptography python3-pil qrencode
    # unit checks
    systemd
    # benchmark peers
    libzxing-dev g++ hyperfine
)
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
