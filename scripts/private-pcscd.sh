#!/usr/bin/env bash
# A pcscd of its own for the tests, the demo and the benchmarks, beside the machine's pcscd and never instead
# of it: vpcd's two virtual readers on free TCP ports, its socket and pid file in a scratch folder.
#
# Debian 12's pcscd (1.9.9) ignores PCSCLITE_CSOCK_NAME (only libpcsclite reads it) and always keeps its
# socket and pid file in /run/pcscd, where a second pcscd would take the machine's. So it runs in a mount
# namespace of its own in which /run/pcscd is a scratch folder's, and /usr/lib/pcsc/drivers is empty, so that
# it never opens the station's USB readers. Its clients set PCSCLITE_CSOCK_NAME to the socket it prints.
#
# Usage: private-pcscd.sh
# Prints `READY pid=PID socket=PATH port=PORT` once pcscd serves "Virtual PCD 00 00" on PORT and
# "Virtual PCD 00 01" on PORT+1. Then reads commands on stdin: `stop` ends that pcscd (SIGTERM to its pid,
# prints STOPPED), `start` starts another on the same socket and ports (prints READY again). At the end of
# stdin it stops pcscd, removes its scratch folder and exits, so a caller that dies takes its pcscd along.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
driver="$("$here/vpcd-driver.sh")"
dir="$(mktemp -d /tmp/sealtrust-pcscd.XXXXXX)"
pid=""
trap 'stop >/dev/null; rm -rf "$dir"' EXIT
trap 'exit 143' TERM INT HUP
mkdir -p "$dir/run" "$dir/reader.conf.d" "$dir/no-drivers"

# Two consecutive free ports, below the kernel's ephemeral range so that no outgoing connection takes one
# while pcscd restarts: vpcd listens on CHANNELID for reader 0 and on the next port for reader 1.
port="$(/usr/bin/python3 -c '
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
while True:
    port = random.randrange(10000, low - 1)
    try:
        for candidate in (port, port + 1):
            socket.socket().bind(("", candidate))
    except OSError:
        continue
    print(port)
    break
')"
cat >"$dir/reader.conf.d/vpcd" <<CONF
FRIENDLYNAME "Virtual PCD"
DEVICENAME   /dev/null:$port
LIBPATH      $driver
CHANNELID    $port
CONF

namespace=(unshare --mount --propagation private)
# Without root, a user namespace grants the bind mounts.
[ "$(id -u)" -eq 0 ] || namespace=(unshare --user --map-root-user --mount --propagation private)

listening() { # listening PORT: a TCP socket listens on PORT (in /proc/net/tcp, state 0A)
    grep -qi ":$(printf '%04X' "$1") 00000000:0000 0A" /proc/net/tcp
}

start() {
    rm -f "$dir/run/pcscd.comm" "$dir/run/pcscd.pid"
    # exec all the way: the pid of this job is pcscd's own.
    "${namespace[@]}" /bin/sh -c '
        mkdir -p /run/pcscd
        mount --bind "$1/run" /run/pcscd
        mount --bind "$1/no-drivers" /usr/lib/pcsc/drivers
        exec /usr/sbin/pcscd --foreground --config "$1/reader.conf.d"' sh "$dir" >>"$dir/pcscd.log" 2>&1 </dev/null &
    pid=$!
    for _ in $(seq 1 500); do
        if [ -S "$dir/run/pcscd.comm" ] && listening "$port" && listening $((port + 1)); then
            echo "READY pid=$pid socket=$dir/run/pcscd.comm port=$port"
            return
        fi
        if ! alive "$pid"; then
            break
        fi
        sleep 0.01
    done
    echo "FAILED pcscd did not serve vpcd's readers on ports $port and $((port + 1)): $(tail -5 "$dir/pcscd.log" | tr '\n' ' ')"
    exit 1
}
alive() { # alive PID: the process runs and is no zombie (read once: it may end between two looks)
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

stop() {
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 500); do
            alive "$pid" || break
            sleep 0.01
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        pid=""
    fi
    echo STOPPED
}

start
while read -r command; do
    case "$command" in
        stop) stop ;;
        start) [ -n "$pid" ] || start ;;
        *) echo "ERROR unknown command '$command' (start, stop)" ;;
    esac
done
