#!/usr/bin/env bash
# The whole station on one machine, with no network, no reader and no camera: the sandbox API,
# the virtual NTAG 424 DNA behind a pcscd of the demo's own, a Y4M stream standing in for the webcam, the
# daemon, and the kiosk bridge (its page is printed; a screenshot of the last verdict is saved at the end).
# The machine's pcscd is left alone. `sealtrust-scanctl watch` prints every event as it comes.
# Everything started here is stopped on exit. Run through `make demo`, which installs the packages and builds first.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# SEALTRUST_BIN: where the built programs are, when `swift build` cannot be asked (a test runs the demo).
bin="${SEALTRUST_BIN:-$(swift build --show-bin-path)}"
# In /tmp whatever TMPDIR says: the screenshot browser's singleton socket goes a few folders below, in 108 bytes.
work="$(mktemp -d /tmp/sealtrust-demo.XXXXXX)"
reader="Virtual PCD 00 01"
pids=()
pcscd_pid=""

cleanup() {
    exec 7>&- 8>&- 2>/dev/null || true
    # Last started, first stopped: the watcher goes before the daemon it watches.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
    done
    # The end of its stdin stops the private pcscd and removes its folder.
    if [ -n "$pcscd_pid" ]; then
        exec {pcscd_input}>&-
        wait "$pcscd_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Bold on a terminal only: a log (make demo > demo.log) gets no escape codes, nor does anyone who set NO_COLOR.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
    say() { printf '\n== %s\n' "$*"; }
fi

wait_for() { # wait_for SECONDS COMMAND...: until the command succeeds
    local deadline=$((SECONDS + $1)); shift
    until "$@" 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || { echo "demo: timed out waiting for: $*" >&2; return 1; }
        sleep 0.1
    done
}

say "Sandbox SealTrust API (checks the chips' AES-CMAC for real)"
/usr/bin/python3 tools/sandbox/sandbox.py --port 0 >"$work/sandbox.out" 2>"$work/sandbox.err" </dev/null &
pids+=($!)
wait_for 15 grep -q LISTENING "$work/sandbox.out"
port="$(awk '/LISTENING/ {print $2; exit}' "$work/sandbox.out")"
echo "listening on http://127.0.0.1:$port"

say "pcscd of the demo's own, with vsmartcard's two virtual readers (the machine's pcscd is left alone)"
coproc PCSCD { exec ./scripts/private-pcscd.sh; }
pcscd_pid="$PCSCD_PID"
pcscd_input="${PCSCD[1]}"
read -r -t 60 ready <&"${PCSCD[0]}" || ready="no answer from scripts/private-pcscd.sh"
case "$ready" in READY*) ;; *) echo "demo: $ready" >&2; exit 1 ;; esac
echo "$ready"
socket="$(sed 's/.* socket=\([^ ]*\).*/\1/' <<<"$ready")"
vpcd_port="$(sed 's/.* port=\([0-9]*\).*/\1/' <<<"$ready")"
export PCSCLITE_CSOCK_NAME="$socket"   # libpcsclite, and so the daemon, talk to that pcscd

say "Virtual NTAG 424 DNA on '$reader'"
mkfifo "$work/vtag.in"
# Its removal stamps (vtag-PORT.removed) go in the demo's folder, removed at the end with the rest.
TMPDIR="$work" /usr/bin/python3 tools/vtag/vtag.py --port $((vpcd_port + 1)) --chip authentic <"$work/vtag.in" >"$work/vtag.out" 2>&1 &
pids+=($!)
exec 7>"$work/vtag.in"
wait_for 15 grep -q READY "$work/vtag.out"

say "sealtrust-scand (socket and journal in $work)"
"$bin/sealtrust-scand" --socket "$work/scand.sock" --journal "$work/journal" --station demo \
    --api-base "http://127.0.0.1:$port" --nfc "$reader" --camera "y4m:$work/camera.y4m" \
    2>"$work/scand.log" &
pids+=($!)
wait_for 20 test -S "$work/scand.sock"
scanctl() { "$bin/sealtrust-scanctl" --socket "$work/scand.sock" "$@"; }

say "sealtrust-kiosk: the station's page, a bridge on the verdict socket"
"$bin/sealtrust-kiosk" --socket "$work/scand.sock" --listen 127.0.0.1:0 >"$work/kiosk.out" 2>"$work/kiosk.log" &
pids+=($!)
wait_for 10 grep -q LISTENING "$work/kiosk.out"
page="$(awk '/LISTENING/ {print $2; exit}' "$work/kiosk.out")"
echo "the kiosk page: $page   (metrics: ${page}metrics, health: ${page}healthz)"
shot="$root/.build/demo/kiosk-last-verdict.png"
rm -f "$shot"
mkfifo "$work/shot.in"
# Its browser's profile goes in the demo's folder, removed at the end with the rest.
TMPDIR="$work" /usr/bin/python3 demo/kiosk-screenshot.py "$page" "$shot" <"$work/shot.in" >"$work/shot.out" &
pids+=($!)
exec 8>"$work/shot.in"
wait_for 40 grep -q ready "$work/shot.out"   # headless Chromium has the page open and follows the events

say "sealtrust-scanctl watch (every event from here on)"
"$bin/sealtrust-scanctl" --socket "$work/scand.sock" watch &
pids+=($!)
sleep 1

verdicts() { cat "$work"/journal/* 2>/dev/null | grep -c '"type":"verdict"' || true; }
verdicts_beyond() { [ "$(verdicts)" -ge "$1" ]; }
tap() { # tap CHIP: present the virtual tag with that chip's keys until its verdict is in, then take it away
    local before; before="$(verdicts)"
    echo "chip $1" >&7
    echo present >&7
    wait_for 20 verdicts_beyond $((before + 1))
    echo remove >&7
    sleep 1
}

say "Tap: an authentic product"
tap authentic
say "What that product is: 'sealtrust-scanctl passport' with its scan's id (passport, proofs, certificate, history)"
first_scan="$(cat "$work"/journal/* | grep '"type":"scan"' | head -1 | /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["scan_id"])')"
scanctl passport "$first_scan" || true

say "Tap: a product whose seal was opened (authentic; a broken seal is not a counterfeit)"
tap seal-opened

say "A copied URL: the first tap's URL sent again with 'sealtrust-scanctl verify'"
first_url="$(cat "$work"/journal/* | grep '"type":"scan"' | head -1 | /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["raw"])')"
scanctl verify "$first_url" >/dev/null || true   # exit 1: the outcome is not authentic; watch shows it
sleep 0.5

say "Tap: a chip that was never registered (the anomaly is the brand's)"
tap never-registered

say "Webcam stand-in: a Y4M stream with a printed SealTrust code, then another brand's code"
/usr/bin/python3 demo/qr-stream.py "$work/stream.part" "https://sealtrust.io/p/SN-00042" "https://id.gs1.org/01/09506000134352"
before="$(verdicts)"
mv "$work/stream.part" "$work/camera.y4m"
wait_for 30 verdicts_beyond $((before + 2))
sleep 1

say "Status"
scanctl status

say "The kiosk page now (headless Chromium)"
echo shot >&8
exec 8>&-
wait_for 20 test -s "$shot"
echo "screenshot of the last verdict: $shot"
say "Done: stopping everything the demo started"
