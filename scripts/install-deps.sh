#!/usr/bin/env bash
# Installs the Debian packages the build, the tests, the demo and the benchmarks need.
# Idempotent: apt-get runs only when something is missing.
#
# The brokers among them (mosquitto, rabbitmq-server, nats-server, and Erlang's epmd) are for the tests and benchmarks,
# which run their own on their own ports and folders: installed here, they are neither started nor enabled at boot.
# A broker the machine already had is left as it was.
set -euo pipefail
# One list per part of the project, one package per line; '#' starts a comment.
here="$(cd "$(dirname "$0")" && pwd)"
mapfile -t packages < <(cat "$here"/packages/*.txt | sed 's/#.*//' | tr -s ' 	' '
' | grep -v '^$' | sort -u)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

# Package: the units of it that this script keeps stopped and disabled when it installed the package.
quiet_units=(mosquitto:mosquitto.service rabbitmq-server:rabbitmq-server.service nats-server:nats-server.service
             erlang-base:epmd.socket erlang-base:epmd.service)

echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
installed() { dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' 2>/dev/null | sed -n 's/^ii *//p' | sort; }
before="$(installed)"

# invoke-rc.d and deb-systemd-invoke start nothing while a policy-rc.d says 101 ("action forbidden"). One the machine
# has already is left in place; ours is removed however the install ends.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    trap '$SUDO rm -f "$policy"' EXIT
    printf '#!/bin/sh\n# scripts/install-deps.sh: no service starts while it installs\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

# What the packages' postinst enabled for the next boot (and started, under a policy-rc.d that allowed it): stopped
# and disabled, only for packages installed just now.
new="$(comm -13 <(echo "$before") <(installed))"
units=()
for entry in "${quiet_units[@]}"; do
    package="${entry%%:*}" unit="${entry#*:}"
    grep -qx "$package" <<<"$new" || continue
    [ -e "/lib/systemd/system/$unit" ] && units+=("$unit")
done
if [ ${#units[@]} -gt 0 ] && command -v systemctl >/dev/null; then
    now=()
    [ -d /run/systemd/system ] && now=(--now)  # booted with systemd: stop as well
    if $SUDO systemctl disable --quiet "${now[@]}" "${units[@]}"; then
        echo "install-deps: ${units[*]} not started and disabled (the tests and benchmarks run their own)"
    else
        echo "install-deps: ${units[*]} not started, but systemctl could not disable them at boot" >&2
    fi
fi
