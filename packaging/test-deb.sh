#!/usr/bin/env bash
# `make test-deb`: installs the Debian package on this machine with dpkg -i, checks every file it put there and
# the system user, then purges it and checks that nothing of it is left.
#
# It only adds and removes this package: it refuses to run where sealtrust-scand is already installed (as a
# package or by `make install`) or where its user, configuration, journal or socket folder exists, since the
# purge would take those away; and the package starts nothing (dh_installsystemd --no-start).
set -euo pipefail
deb="$(realpath "${1:?usage: test-deb.sh sealtrust-scand_VERSION_ARCH.deb}")"
failures=0
fail() { echo "test-deb: FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "test-deb: ok: $*"; }
check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
    local what="$1"; shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

# Everything of ours anywhere a package or `make install` puts files, and the accounts: before and after.
traces() {
    find /etc /lib/systemd /lib/udev /lib/modprobe.d /usr/lib/modules-load.d /usr/lib/sysusers.d /usr/bin \
        /usr/local /usr/share/man /usr/share/doc /var/lib /run -xdev -name '*sealtrust*' \
        -not -path '/var/lib/dpkg/*' -not -path '/run/user/*' 2>/dev/null | sort
    grep -h '^sealtrust-' /etc/passwd /etc/group /etc/shadow /etc/gshadow 2>/dev/null | cut -d: -f1,3 | sort
    grep -h 'sealtrust-scand' /etc/group | cut -d: -f1 | sort
    # Every account and group by name: a group the package made for others (input, which udev owns) shows too.
    getent passwd | cut -d: -f1 | sort | sed 's/^/user /'
    getent group | cut -d: -f1 | sort | sed 's/^/group /'
    true  # no trace at all is the usual answer
}

if dpkg-query -W -f='${Status}' sealtrust-scand 2>/dev/null | grep -q 'installed\|config-files'; then
    echo "test-deb: the package sealtrust-scand is on this machine already: not touching it" >&2; exit 1
fi
# A station's daemon runs as its user and keeps its files in these places; test daemons elsewhere are not
# touched by the purge.
for place in /usr/local/bin/sealtrust-scand /usr/local/lib/systemd/system/sealtrust-scand.service \
    /etc/sealtrust-scand /var/lib/sealtrust-scand /run/sealtrust-scand /etc/sealtrust-mqtt /var/lib/sealtrust-mqtt /etc/sealtrust-kiosk; do
    if [ -e "$place" ]; then
        echo "test-deb: $place exists: this machine has a station; not touching it" >&2; exit 1
    fi
done
if getent passwd sealtrust-scand >/dev/null || getent group sealtrust-scand >/dev/null || getent passwd sealtrust-kiosk >/dev/null \
    || getent passwd sealtrust-mqtt >/dev/null; then
    echo "test-deb: the user sealtrust-scand, sealtrust-kiosk or sealtrust-mqtt exists: this machine has a station; not touching it" >&2; exit 1
fi

before="$(traces)"
version="$(dpkg-deb -f "$deb" Version)"
dpkg -i "$deb"
started=()
stop_started() { # SIGTERM to what this script started, then wait for each
    local pid
    for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${started[@]}"; do wait "$pid" 2>/dev/null || true; done
    started=()
}
trap 'stop_started; dpkg --purge sealtrust-scand >/dev/null 2>&1 || true' EXIT

check "dpkg says installed" sh -c "dpkg-query -W -f='\${Status}' sealtrust-scand | grep -q 'install ok installed'"

mode_owner() { stat -c '%a %U:%G' "$1" 2>/dev/null; }
expect_file() { # expect_file PATH MODE: a regular file with that mode, owned by root
    if [ -f "$1" ] && [ "$(mode_owner "$1")" = "$2 root:root" ]; then pass "$1 ($2 root:root)"; else fail "$1: $(mode_owner "$1" || echo missing), expected $2 root:root"; fi
}

expected=(
    "/usr/bin/sealtrust-scand 755"
    "/usr/bin/sealtrust-scanctl 755"
    "/usr/bin/sealtrust-kiosk 755"
    "/lib/systemd/system/sealtrust-kiosk.service 644"
    "/usr/lib/sysusers.d/sealtrust-kiosk.conf 644"
    "/usr/share/man/man8/sealtrust-kiosk.8.gz 644"
    "/usr/share/doc/sealtrust-scand/kiosk/chromium-kiosk.service 644"
    "/usr/share/doc/sealtrust-scand/kiosk/cage-kiosk.service 644"
    "/usr/share/doc/sealtrust-scand/kiosk/prometheus-scrape.yml 644"
    "/usr/bin/sealtrust-mqtt 755"
    "/lib/systemd/system/sealtrust-mqtt.service 644"
    "/usr/lib/sysusers.d/sealtrust-mqtt.conf 644"
    "/usr/share/man/man8/sealtrust-mqtt.8.gz 644"
    "/etc/sealtrust-mqtt/mqtt.conf 644"
    "/etc/sealtrust-kiosk/kiosk.conf 644"
    "/lib/systemd/system/sealtrust-scand.service 644"
    "/lib/systemd/system/sealtrust-scand.socket 644"
    "/lib/udev/rules.d/70-sealtrust-scand.rules 644"
    "/usr/lib/sysusers.d/sealtrust-scand.conf 644"
    "/lib/modprobe.d/sealtrust-scand-blacklist.conf 644"
    "/usr/lib/modules-load.d/sealtrust-scand.conf 644"
    "/etc/sealtrust-scand/scand.conf 644"
    "/etc/sealtrust-scand/token 600"
    "/usr/share/man/man8/sealtrust-scand.8.gz 644"
    "/usr/share/man/man1/sealtrust-scanctl.1.gz 644"
    "/usr/share/man/man5/scand.conf.5.gz 644"
    "/usr/share/man/man5/sealtrust-texts.5.gz 644"
    "/usr/share/man/man7/sealtrust-scand-protocol.7.gz 644"
    "/usr/share/doc/sealtrust-scand/copyright 644"
    "/usr/share/doc/sealtrust-scand/changelog.gz 644"
    "/usr/share/doc/sealtrust-scand/scand.conf.example 644"
    "/usr/share/doc/sealtrust-scand/README.md 644"
)
# Every doc of the source, beside the README as in the source: the man pages send a package-only operator there.
for doc in "$(dirname "$0")"/../docs/*.md; do
    expected+=("/usr/share/doc/sealtrust-scand/docs/$(basename "$doc") 644")
done
for entry in "${expected[@]}"; do
    expect_file ${entry}
done
# Made by the postinst, not shipped: the operator's secret.
expect_file /etc/sealtrust-mqtt/credentials 600

# Every regular file the package owns is one of those: nothing lands anywhere unexpected.
while read -r path; do
    [ -f "$path" ] && [ ! -L "$path" ] || continue
    printf '%s\n' "${expected[@]}" | cut -d' ' -f1 | grep -qxF "$path" || fail "unexpected file in the package: $path"
done < <(dpkg -L sealtrust-scand)

check "the configuration is a conffile" sh -c "dpkg-query -W -f='\${Conffiles}' sealtrust-scand | grep -q '^ /etc/sealtrust-scand/scand.conf '"
check "the token is empty" test ! -s /etc/sealtrust-scand/token
check "the token is no file of the package" sh -c "! dpkg -L sealtrust-scand | grep -qx /etc/sealtrust-scand/token"
check "the unit starts the installed binary" grep -qx 'ExecStart=/usr/bin/sealtrust-scand' /lib/systemd/system/sealtrust-scand.service
check "the unit reads the token as a credential" grep -qx 'LoadCredential=sealtrust-token:/etc/sealtrust-scand/token' /lib/systemd/system/sealtrust-scand.service
check "a reader starts the service (smartcard.target)" test -L /etc/systemd/system/smartcard.target.wants/sealtrust-scand.service
check "the service is enabled at boot" test -L /etc/systemd/system/multi-user.target.wants/sealtrust-scand.service
check "the socket is enabled" test -L /etc/systemd/system/sockets.target.wants/sealtrust-scand.socket
check "the kiosk bridge is off until enabled" test ! -e /etc/systemd/system/multi-user.target.wants/sealtrust-kiosk.service
check "the MQTT bridge is off until enabled" test ! -e /etc/systemd/system/multi-user.target.wants/sealtrust-mqtt.service
check "the MQTT bridge's options are a conffile" sh -c "dpkg-query -W -f='\${Conffiles}' sealtrust-scand | grep -q '^ /etc/sealtrust-mqtt/mqtt.conf '"
check "the MQTT credentials are empty" test ! -s /etc/sealtrust-mqtt/credentials
check "the MQTT credentials are no file of the package" sh -c "! dpkg -L sealtrust-scand | grep -qx /etc/sealtrust-mqtt/credentials"
check "the MQTT unit starts the installed binary with its options" \
    grep -qxF 'ExecStart=/usr/bin/sealtrust-mqtt $SEALTRUST_MQTT_OPTIONS' /lib/systemd/system/sealtrust-mqtt.service
check "the MQTT unit reads its options and credentials in /etc/sealtrust-mqtt" sh -c \
    "grep -qx 'EnvironmentFile=/etc/sealtrust-mqtt/mqtt.conf' /lib/systemd/system/sealtrust-mqtt.service && grep -qx 'LoadCredential=sealtrust-mqtt:/etc/sealtrust-mqtt/credentials' /lib/systemd/system/sealtrust-mqtt.service"
check "the MQTT bridge runs (--version)" sh -c "/usr/bin/sealtrust-mqtt --version | grep -qx 'sealtrust-mqtt $version'"
check "the kiosk bridge runs (--version)" sh -c "/usr/bin/sealtrust-kiosk --version | grep -qx 'sealtrust-kiosk $version'"
check "the kiosk bridge's options are a conffile" sh -c "dpkg-query -W -f='\${Conffiles}' sealtrust-scand | grep -q '^ /etc/sealtrust-kiosk/kiosk.conf '"
check "the kiosk unit starts the installed binary with the options of /etc/sealtrust-kiosk/kiosk.conf" sh -c \
    "grep -qxF 'ExecStart=/usr/bin/sealtrust-kiosk \$SEALTRUST_KIOSK_OPTIONS' /lib/systemd/system/sealtrust-kiosk.service && grep -qx 'EnvironmentFile=/etc/sealtrust-kiosk/kiosk.conf' /lib/systemd/system/sealtrust-kiosk.service"
check "man finds the bridges' pages" sh -c "man -w sealtrust-mqtt >/dev/null && man -w sealtrust-kiosk >/dev/null"
check "nothing was started" sh -c "! pgrep -u sealtrust-scand >/dev/null"
check "the README's and docs/installing.md's lists (runtime packages, man pages, /etc) are the package's" \
    "$(dirname "$0")/check-doc-lists.sh" "$deb"
check "the binary is the package's version ($version)" sh -c "/usr/bin/sealtrust-scand --version | grep -qx 'sealtrust-scand $version'"
check "man finds the protocol page" sh -c "man -w sealtrust-scand-protocol >/dev/null"

# The system user from sysusers: its own group, the journal's home, no login, and the video group for the camera.
entry="$(getent passwd sealtrust-scand || true)"
check "the user sealtrust-scand exists" test -n "$entry"
check "its home is the journal's folder" test "$(echo "$entry" | cut -d: -f6)" = /var/lib/sealtrust-scand
check "it cannot log in" sh -c "echo '$entry' | cut -d: -f7 | grep -q nologin"
check "it is a system user" test "$(echo "$entry" | cut -d: -f3)" -lt 1000
check "its group is sealtrust-scand" test "$(id -gn sealtrust-scand)" = sealtrust-scand
check "it is in the video group" sh -c "id -nG sealtrust-scand | tr ' ' '\n' | grep -qx video"
check "the kiosk bridge's user is in the daemon's group" sh -c "id -nG sealtrust-kiosk | tr ' ' '\n' | grep -qx sealtrust-scand"
check "the MQTT bridge's user is in the daemon's group" sh -c "id -nG sealtrust-mqtt | tr ' ' '\n' | grep -qx sealtrust-scand"
check "the MQTT bridge's user cannot log in" sh -c "getent passwd sealtrust-mqtt | cut -d: -f7 | grep -q nologin"

# Run them as systemd would: the daemon as its user, with the runtime and state folders its unit makes, and the
# bridges as theirs (the MQTT bridge against a broker of this script's own); each must answer. No reader, no
# camera and no reachable API: the machine's pcscd is not touched. Each one's idle resident memory is printed.
scratch="$(mktemp -d /tmp/test-deb.XXXXXX)"
trap 'stop_started; rm -rf "$scratch"; dpkg --purge sealtrust-scand >/dev/null 2>&1 || true' EXIT
wait_for() { # wait_for SECONDS COMMAND...: until the command succeeds, or fails after that long
    local seconds="$1"; shift
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
# `setpriv` execs the program, so `$!` is the program's pid (a shell function run with & would be a subshell's).
as_user() { echo setpriv --reuid="$1" --regid="$1" --init-groups; }
resident_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
install -d -o sealtrust-scand -g sealtrust-scand -m 0755 /run/sealtrust-scand
install -d -o sealtrust-scand -g sealtrust-scand -m 0750 /var/lib/sealtrust-scand
install -d -o sealtrust-mqtt -g sealtrust-mqtt -m 0700 /var/lib/sealtrust-mqtt

$(as_user sealtrust-scand) /usr/bin/sealtrust-scand --nfc none --camera none --api-base http://127.0.0.1:9 \
    2>"$scratch/scand.log" &
daemon=$!; started+=("$daemon")
check "the daemon listens as its user" wait_for 30 test -S /run/sealtrust-scand/scand.sock
check "scanctl reaches it (status)" sh -c "/usr/bin/sealtrust-scanctl status | grep -q '^station'"

$(as_user sealtrust-kiosk) /usr/bin/sealtrust-kiosk --listen 127.0.0.1:0 >"$scratch/kiosk.out" 2>"$scratch/kiosk.log" &
kiosk=$!; started+=("$kiosk")
check "the kiosk bridge listens as its user" wait_for 30 grep -q LISTENING "$scratch/kiosk.out"
page="$(awk '/LISTENING/ { print $2; exit }' "$scratch/kiosk.out")"
check "the kiosk bridge serves its page" sh -c "curl -fsS -o '$scratch/page.html' '$page' && grep -qi '<html' '$scratch/page.html'"

port="$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$port" >"$scratch/mosquitto.conf"
mosquitto -c "$scratch/mosquitto.conf" >"$scratch/mosquitto.log" 2>&1 &
started+=($!)
wait_for 10 mosquitto_pub -h 127.0.0.1 -p "$port" -t probe -m up || fail "the test's broker did not start"
$(as_user sealtrust-mqtt) /usr/bin/sealtrust-mqtt --url "mqtt://127.0.0.1:$port" 2>"$scratch/mqtt.log" &
mqtt=$!; started+=("$mqtt")
check "the MQTT bridge publishes the station's status as its user" \
    sh -c "mosquitto_sub -h 127.0.0.1 -p $port -t 'sealtrust/+/status' -C 1 -W 30 | grep -q online"

# Idle: each has answered above and nothing more comes.
scand_kib="$(resident_kib "$daemon")"; kiosk_kib="$(resident_kib "$kiosk")"; mqtt_kib="$(resident_kib "$mqtt")"
echo "test-deb: idle resident memory: sealtrust-scand $((scand_kib / 1024)) MiB, sealtrust-kiosk $((kiosk_kib / 1024)) MiB, sealtrust-mqtt $((mqtt_kib / 1024)) MiB"
for bridge in kiosk mqtt; do
    kib="${bridge}_kib"
    check "sealtrust-$bridge's idle resident memory is at most ${BRIDGE_MAX_RESIDENT_MIB:=12} MiB (${!kib} KiB)" \
        test "${!kib}" -le $((BRIDGE_MAX_RESIDENT_MIB * 1024))
done
stop_started
check "the daemon stopped cleanly" sh -c "grep -q stopped '$scratch/scand.log'"

dpkg --purge sealtrust-scand
trap 'rm -rf "$scratch"' EXIT
check "dpkg no longer knows the package" sh -c "! dpkg-query -W -f='\${Status}' sealtrust-scand 2>/dev/null | grep -q 'installed\|config-files'"
after="$(traces)"
if [ "$before" = "$after" ]; then
    pass "the purge left nothing behind"
else
    fail "the purge left: $(diff <(echo "$before") <(echo "$after") | grep '^>' | tr '\n' ' ')"
fi

if [ "$failures" -gt 0 ]; then
    echo "test-deb: $failures check(s) failed" >&2
    exit 1
fi
echo "test-deb: every check passed"
