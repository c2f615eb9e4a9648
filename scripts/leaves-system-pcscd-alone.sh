#!/usr/bin/env bash
# Runs a command (the test suite) and fails when the machine's own pcscd is not the same process afterwards:
# on a station it serves the production readers, and the tests must use their own (private-pcscd.sh).
set -euo pipefail
identity() { # the pid and start time of the running pcscd that /run/pcscd/pcscd.pid names, or "none"
    local pid
    pid="$(tr -dc 0-9 </run/pcscd/pcscd.pid 2>/dev/null || true)"
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = pcscd ] \
        && ! grep -q '^[0-9]* (.*) Z' "/proc/$pid/stat" 2>/dev/null; then
        echo "pid $pid started at tick $(awk '{print $22}' "/proc/$pid/stat")"
    else
        echo none
    fi
}
before="$(identity)"
status=0
"$@" || status=$?
after="$(identity)"
if [ "$before" != "$after" ]; then
    echo "The machine's pcscd changed during '$*': before: $before; after: $after" >&2
    exit 1
fi
echo "The machine's pcscd was left alone ($before)."
exit "$status"
