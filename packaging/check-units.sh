#!/bin/sh
# Checks the units as installed under $DESTDIR (called by `make check-units` and the SystemdSupport tests):
# systemd-analyze verify accepts them, and each service's exposure is at most $MAX_EXPOSURE (default 2.5).
# The installed ExecStart and ExecReload name the final path, so the check verifies a copy pointed into $DESTDIR.
set -eu
: "${DESTDIR:?DESTDIR must name the scratch root the units were installed into}"
: "${PREFIX:=/usr/local}" "${BINDIR:=$PREFIX/bin}" "${MANDIR:=$PREFIX/share/man}" "${UNITDIR:=$PREFIX/lib/systemd/system}"
: "${MAX_EXPOSURE:=2.5}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for unit in sealtrust-scand.service sealtrust-scand.socket sealtrust-kiosk.service sealtrust-mqtt.service; do
    [ -f "$DESTDIR$UNITDIR/$unit" ] || { echo "check-units: $DESTDIR$UNITDIR/$unit is missing" >&2; exit 1; }
    # The MQTT bridge's options file is in the scratch root, not at the path its unit names.
    sed -e "s|^ExecStart=$BINDIR/|ExecStart=$DESTDIR$BINDIR/|" -e "s|^ExecReload=$BINDIR/|ExecReload=$DESTDIR$BINDIR/|" \
        -e "s|^EnvironmentFile=|EnvironmentFile=-|" "$DESTDIR$UNITDIR/$unit" > "$work/$unit"
done

# verify prints nothing when the units are sound; Documentation=man: pages are looked up in the scratch root.
findings=$(MANPATH="$DESTDIR$MANDIR" systemd-analyze verify "$work/sealtrust-scand.service" "$work/sealtrust-scand.socket" 2>&1) || {
    printf 'check-units: systemd-analyze verify failed:\n%s\n' "$findings" >&2; exit 1; }
if [ -n "$findings" ]; then
    printf 'check-units: systemd-analyze verify complained:\n%s\n' "$findings" >&2; exit 1
fi
echo "verify: sealtrust-scand.service sealtrust-scand.socket OK"

report=$(systemd-analyze security --offline=true "$work/sealtrust-scand.service" 2>&1) || true
exposure=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for sealtrust-scand\.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || { printf 'check-units: no exposure figure in:\n%s\n' "$report" >&2; exit 1; }
echo "exposure: $exposure (at most $MAX_EXPOSURE)"
awk -v e="$exposure" -v max="$MAX_EXPOSURE" 'BEGIN { exit !(e <= max) }' || {
    printf '%s\n' "$report" | grep '✗' >&2; echo "check-units: exposure $exposure is above $MAX_EXPOSURE" >&2; exit 1; }

# The bridges' units (kiosk, MQTT), on the same terms.
for bridge in sealtrust-kiosk sealtrust-mqtt; do
    findings=$(MANPATH="$DESTDIR$MANDIR" systemd-analyze verify "$work/$bridge.service" 2>&1) || {
        printf 'check-units: systemd-analyze verify failed:\n%s\n' "$findings" >&2; exit 1; }
    [ -z "$findings" ] || { printf 'check-units: systemd-analyze verify complained:\n%s\n' "$findings" >&2; exit 1; }
    report=$(systemd-analyze security --offline=true "$work/$bridge.service" 2>&1) || true
    bridge_exposure=$(printf '%s\n' "$report" | sed -n "s/.*Overall exposure level for $bridge\\.service: \\([0-9.]*\\).*/\\1/p")
    [ -n "$bridge_exposure" ] || { printf 'check-units: no exposure figure in:\n%s\n' "$report" >&2; exit 1; }
    echo "verify: $bridge.service OK; its exposure: $bridge_exposure (at most $MAX_EXPOSURE)"
    awk -v e="$bridge_exposure" -v max="$MAX_EXPOSURE" 'BEGIN { exit !(e <= max) }' || {
        printf '%s\n' "$report" | grep '✗' >&2; echo "check-units: $bridge's exposure $bridge_exposure is above $MAX_EXPOSURE" >&2; exit 1; }
done
