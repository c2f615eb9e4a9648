#!/bin/sh
# Installs or uninstalls sealtrust-scand on a station; called by `make install` / `make uninstall` (mk/system.mk),
# which pass every directory in the environment. A manifest records each installed file with its checksum, so
# uninstall removes exactly what install put there and keeps what the operator changed since (configuration, token).
# `stage` fills a Debian package's tree instead (debian/rules): no manifest, no token (the postinst makes it), and
# the udev rules and the sysusers file are left to dh_installudev and dh_installsysusers.
set -eu
cd "$(dirname "$0")/.."

: "${DESTDIR=}" "${PREFIX:=/usr/local}" "${BINDIR:=$PREFIX/bin}" "${MANDIR:=$PREFIX/share/man}" "${SYSCONFDIR:=/etc}"
: "${DOCDIR:=$PREFIX/share/doc/sealtrust-scand}"
: "${UNITDIR:=$PREFIX/lib/systemd/system}" "${SYSUSERSDIR:=$PREFIX/lib/sysusers.d}" "${UDEVRULESDIR:=/etc/udev/rules.d}"
: "${MODPROBEDIR:=/etc/modprobe.d}" "${MODULESLOADDIR:=/etc/modules-load.d}" "${POLKITRULESDIR:=/etc/polkit-1/rules.d}"
CONFDIR="$SYSCONFDIR/sealtrust-scand"
MQTTCONFDIR="$SYSCONFDIR/sealtrust-mqtt"
KIOSKCONFDIR="$SYSCONFDIR/sealtrust-kiosk"
MANIFEST="$PREFIX/share/sealtrust-scand/installed-files"

say() { printf '%s\n' "$*"; }
checksum() { sha256sum "$1" | cut -d' ' -f1; }

# put MODE SOURCE TARGET: installs one file and records it.
put() {
    install -D -m "$1" "$2" "$DESTDIR$3"
    say "$3 $(checksum "$DESTDIR$3")" >> "$new_manifest"
    say "installed $3"
}

# install_files [stage]: a station's install, or with `stage` a package's tree.
install_files() {
    stage=${1:-}
    : "${PRODUCTS_DIR:?PRODUCTS_DIR must name the directory of the built binaries}"
    for binary in sealtrust-scand sealtrust-scanctl sealtrust-kiosk sealtrust-mqtt; do
        [ -x "$PRODUCTS_DIR/$binary" ] || { say "install: $PRODUCTS_DIR/$binary is missing: build it first (make install builds it)" >&2; exit 1; }
    done
    new_manifest=$(mktemp)
    trap 'rm -f "$new_manifest" "$new_manifest.unit"' EXIT

    put 0755 "$PRODUCTS_DIR/sealtrust-scand" "$BINDIR/sealtrust-scand"
    put 0755 "$PRODUCTS_DIR/sealtrust-scanctl" "$BINDIR/sealtrust-scanctl"
    put 0755 "$PRODUCTS_DIR/sealtrust-kiosk" "$BINDIR/sealtrust-kiosk"
    put 0755 "$PRODUCTS_DIR/sealtrust-mqtt" "$BINDIR/sealtrust-mqtt"
    # The units name /usr/local/bin and /etc: point them at where this install puts the binary and the configuration.
    config_option=""
    [ "$CONFDIR" = /etc/sealtrust-scand ] || config_option=" --config $CONFDIR/scand.conf"
    for unit in sealtrust-scand.service sealtrust-scand.socket sealtrust-kiosk.service sealtrust-mqtt.service; do
        sed -e "s|^ExecStart=/usr/local/bin/sealtrust-scand\$|ExecStart=$BINDIR/sealtrust-scand$config_option|" \
            -e "s|^ExecReload=/usr/local/bin/sealtrust-scand --check-config\$|ExecReload=$BINDIR/sealtrust-scand$config_option --check-config|" \
            -e "s|^ExecStart=/usr/local/bin/sealtrust-kiosk |ExecStart=$BINDIR/sealtrust-kiosk |" \
            -e "s|^EnvironmentFile=/etc/sealtrust-kiosk/|EnvironmentFile=$KIOSKCONFDIR/|" \
            -e "s|^ExecStart=/usr/local/bin/sealtrust-mqtt |ExecStart=$BINDIR/sealtrust-mqtt |" \
            -e "s|^LoadCredential=sealtrust-token:/etc/sealtrust-scand/|LoadCredential=sealtrust-token:$CONFDIR/|" \
            -e "s|^EnvironmentFile=/etc/sealtrust-mqtt/|EnvironmentFile=$MQTTCONFDIR/|" \
            -e "s|^LoadCredential=sealtrust-mqtt:/etc/sealtrust-mqtt/|LoadCredential=sealtrust-mqtt:$MQTTCONFDIR/|" \
            "systemd/$unit" > "$new_manifest.unit"
        put 0644 "$new_manifest.unit" "$UNITDIR/$unit"
    done
    put 0644 packaging/modprobe.d/sealtrust-scand-blacklist.conf "$MODPROBEDIR/sealtrust-scand-blacklist.conf"
    put 0644 packaging/modules-load.d/sealtrust-scand.conf "$MODULESLOADDIR/sealtrust-scand.conf"
    for page in sealtrust-scand.8 sealtrust-scanctl.1 sealtrust-kiosk.8 sealtrust-mqtt.8 scand.conf.5 sealtrust-texts.5 sealtrust-scand-protocol.7; do
        put 0644 "man/$page" "$MANDIR/man${page##*.}/$page"
    done
    put 0644 packaging/scand.conf.example "$DOCDIR/scand.conf.example"
    put 0644 README.md "$DOCDIR/README.md"
    # The docs the README and the man pages send an operator to, beside it as in the source (README's links hold).
    for doc in docs/*.md; do
        put 0644 "$doc" "$DOCDIR/$doc"
    done
    for example in chromium-kiosk.service cage-kiosk.service prometheus-scrape.yml; do
        put 0644 "packaging/kiosk/$example" "$DOCDIR/kiosk/$example"
    done
    if [ "$stage" = stage ]; then
        # A conffile: dpkg keeps the operator's changes on upgrade and removes it on purge.
        put 0644 packaging/scand.conf.example "$CONFDIR/scand.conf"
        put 0644 packaging/mqtt.conf.example "$MQTTCONFDIR/mqtt.conf"
        put 0644 packaging/kiosk.conf.example "$KIOSKCONFDIR/kiosk.conf"
        return
    fi
    put 0644 packaging/sysusers.d/sealtrust-scand.conf "$SYSUSERSDIR/sealtrust-scand.conf"
    put 0644 packaging/sysusers.d/sealtrust-kiosk.conf "$SYSUSERSDIR/sealtrust-kiosk.conf"
    put 0644 packaging/sysusers.d/sealtrust-mqtt.conf "$SYSUSERSDIR/sealtrust-mqtt.conf"
    put 0644 udev/70-sealtrust-scand.rules "$UDEVRULESDIR/70-sealtrust-scand.rules"
    # Only a pcscd built with polkit asks it (pcscd --version lists "polkit"); Debian 12's is built without.
    put 0644 packaging/polkit/50-sealtrust-scand.rules "$POLKITRULESDIR/50-sealtrust-scand.rules"
    # The operator's own configuration and token are never overwritten.
    if [ -e "$DESTDIR$CONFDIR/scand.conf" ]; then
        say "kept $CONFDIR/scand.conf"
    else
        put 0644 packaging/scand.conf.example "$CONFDIR/scand.conf"
    fi
    if [ -e "$DESTDIR$CONFDIR/token" ]; then
        say "kept $CONFDIR/token"
    else
        # LoadCredential= fails the unit when its file is missing; an empty token means no token.
        : > "$new_manifest.unit"
        put 0600 "$new_manifest.unit" "$CONFDIR/token"
    fi
    # The MQTT bridge's unit needs both files: its options (the broker's URL), and its credentials, empty (none).
    if [ -e "$DESTDIR$MQTTCONFDIR/mqtt.conf" ]; then
        say "kept $MQTTCONFDIR/mqtt.conf"
    else
        put 0644 packaging/mqtt.conf.example "$MQTTCONFDIR/mqtt.conf"
    fi
    # The kiosk bridge's unit reads its options from this file.
    if [ -e "$DESTDIR$KIOSKCONFDIR/kiosk.conf" ]; then
        say "kept $KIOSKCONFDIR/kiosk.conf"
    else
        put 0644 packaging/kiosk.conf.example "$KIOSKCONFDIR/kiosk.conf"
    fi
    if [ -e "$DESTDIR$MQTTCONFDIR/credentials" ]; then
        say "kept $MQTTCONFDIR/credentials"
    else
        : > "$new_manifest.unit"
        put 0600 "$new_manifest.unit" "$MQTTCONFDIR/credentials"
    fi

    # A re-install keeps the entries of files it did not install again this time (a kept configuration).
    if [ -f "$DESTDIR$MANIFEST" ]; then
        awk 'NR == FNR { fresh[$1] = 1; next } !($1 in fresh)' "$new_manifest" "$DESTDIR$MANIFEST" > "$new_manifest.unit"
        cat "$new_manifest.unit" >> "$new_manifest"
    fi
    install -D -m 0644 "$new_manifest" "$DESTDIR$MANIFEST"

    if [ -z "$DESTDIR" ]; then
        systemd-sysusers "$SYSUSERSDIR/sealtrust-scand.conf" "$SYSUSERSDIR/sealtrust-kiosk.conf" "$SYSUSERSDIR/sealtrust-mqtt.conf" \
            || say "systemd-sysusers failed: create the users with it before starting"
        # input (a keyboard-wedge scanner's evdev node) is udev's group: joined where it exists, never created.
        if getent group input >/dev/null && getent passwd sealtrust-scand >/dev/null; then
            usermod -a -G input sealtrust-scand
        fi
        if [ -d /run/systemd/system ]; then
            systemctl daemon-reload
            udevadm control --reload || true
        fi
        say "next: systemctl enable --now sealtrust-scand.socket sealtrust-scand.service"
    fi
}

uninstall_files() {
    [ -f "$DESTDIR$MANIFEST" ] || { say "uninstall: no manifest at $DESTDIR$MANIFEST: nothing was installed there" >&2; exit 1; }
    while read -r path sum; do
        if [ ! -e "$DESTDIR$path" ]; then
            say "already gone $path"
        elif [ "$(checksum "$DESTDIR$path")" = "$sum" ]; then
            rm -f "$DESTDIR$path"
            say "removed $path"
        else
            say "kept $path (changed since install)"
        fi
    done < "$DESTDIR$MANIFEST"
    rm -f "$DESTDIR$MANIFEST"
    for directory in "$PREFIX/share/sealtrust-scand" "$DOCDIR/kiosk" "$DOCDIR/docs" "$DOCDIR" "$CONFDIR" "$MQTTCONFDIR" "$KIOSKCONFDIR"; do
        rmdir "$DESTDIR$directory" 2>/dev/null || true
    done
    if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
        systemctl daemon-reload
    fi
}

case "${1:-}" in
    install) install_files ;;
    stage) install_files stage ;;
    uninstall) uninstall_files ;;
    *) say "usage: $0 install|stage|uninstall" >&2; exit 2 ;;
esac
