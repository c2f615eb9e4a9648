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
for unit in sealtrust-scand.service sealtrust-scand.socket sealtrust-kiosk.service; do
    [ -f "$DESTDIR$UNITDIR/$unit" ] || { echo "check-units: $DESTDIR$UNITDIR/$unit is missing" >&2; exit 1; }
    sed -e "s|^ExecStart=$BINDIR/|ExecStart=$DESTDIR$BINDIR/|" -e "s|^ExecReload=$BINDIR/|ExecReload=$DESTDIR$BINDIR/|" \
        "$DESTDIR$UNITDIR/$unit" > "$work/$unit"
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

# The kiosk bridge's unit, on the same terms.
findings=$(MANPATH="$DESTDIR$MANDIR" systemd-analyze verify "$work/sealtrust-kiosk.service" 2>&1) || {
    printf 'check-units: systemd-analyze verify failed:\n%s\n' "$findings" >&2; exit 1; }
[ -z "$findings" ] || { printf 'check-units: systemd-analyze verify complained:\n%s\n' "$findings" >&2; exit 1; }
report=$(systemd-analyze security --offline=true "$work/sealtrust-kiosk.service" 2>&1) || true
kiosk_exposure=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for sealtrust-kiosk\.service: \([0-9.]*\).*/\1/p')
[ -n "$kiosk_exposure" ] || { printf 'check-units: no exposure figure in:\n%s\n' "$report" >&2; exit 1; }
echo "verify: sealtrust-kiosk.service OK; its exposure: $kiosk_exposure (at most $MAX_EXPOSURE)"
awk -v e="$kiosk_exposure" -v max="$MAX_EXPOSURE" 'BEGIN { exit !(e <= max) }' || {
    printf '%s\n' "$report" | grep '✗' >&2; echo "check-units: the kiosk's exposure $kiosk_exposure is above $MAX_EXPOSURE" >&2; exit 1; }
