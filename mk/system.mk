# Installing on a station (see docs/installing.md): `make install`, `make uninstall`, and the unit checks.
PREFIX ?= /usr/local
DESTDIR ?=
CONFIGURATION ?= release
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
DOCDIR ?= $(PREFIX)/share/doc/sealtrust-scand
# systemd and systemd-sysusers read /usr/local/lib as well as /usr/lib; udev, kmod and polkit read /usr/lib
# (/usr/share for polkit) and /etc, not /usr/local. With PREFIX=/usr, Debian's places: the vendor's files
# under /usr, and /etc for the operator's configuration only.
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
ifeq ($(PREFIX),/usr)
UDEVRULESDIR ?= /usr/lib/udev/rules.d
MODPROBEDIR ?= /usr/lib/modprobe.d
MODULESLOADDIR ?= /usr/lib/modules-load.d
POLKITRULESDIR ?= /usr/share/polkit-1/rules.d
else
UDEVRULESDIR ?= /etc/udev/rules.d
MODPROBEDIR ?= /etc/modprobe.d
MODULESLOADDIR ?= /etc/modules-load.d
POLKITRULESDIR ?= /etc/polkit-1/rules.d
endif
# Where the built binaries are; given explicitly, nothing is built.
PRODUCTS_DIR ?= $(shell $(SWIFT) build -c $(CONFIGURATION) --show-bin-path)

SYSTEM_INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" BINDIR="$(BINDIR)" MANDIR="$(MANDIR)" DOCDIR="$(DOCDIR)" \
	SYSCONFDIR="$(SYSCONFDIR)" UNITDIR="$(UNITDIR)" SYSUSERSDIR="$(SYSUSERSDIR)" UDEVRULESDIR="$(UDEVRULESDIR)" \
	MODPROBEDIR="$(MODPROBEDIR)" MODULESLOADDIR="$(MODULESLOADDIR)" POLKITRULESDIR="$(POLKITRULESDIR)"

.PHONY: install uninstall install-binaries install-files check-units test-system

install: install-binaries
	$(MAKE) --no-print-directory install-files

# One product per invocation: SwiftPM builds only the last --product given.
install-binaries:
	$(SWIFT) build -c $(CONFIGURATION) --product sealtrust-scand
	$(SWIFT) build -c $(CONFIGURATION) --product sealtrust-scanctl
	$(SWIFT) build -c $(CONFIGURATION) --product sealtrust-kiosk
	$(SWIFT) build -c $(CONFIGURATION) --product sealtrust-mqtt

install-files:
	$(SYSTEM_INSTALL_ENV) PRODUCTS_DIR="$(PRODUCTS_DIR)" ./packaging/install.sh install

uninstall:
	$(SYSTEM_INSTALL_ENV) ./packaging/install.sh uninstall

# Installs into a scratch root and checks the installed units there: systemd-analyze verify, and an exposure of 2.5 or less.
check-units:
	$(SWIFT) build --product sealtrust-scand
	$(SWIFT) build --product sealtrust-scanctl
	$(SWIFT) build --product sealtrust-kiosk
	$(SWIFT) build --product sealtrust-mqtt
	@stage=$$(mktemp -d) && \
	$(MAKE) --no-print-directory install-files DESTDIR=$$stage PRODUCTS_DIR="$$($(SWIFT) build --show-bin-path)" >/dev/null && \
	{ $(SYSTEM_INSTALL_ENV) DESTDIR=$$stage ./packaging/check-units.sh; status=$$?; rm -rf $$stage; exit $$status; }

test-system: check-units
	$(SWIFT) test --no-parallel --filter SystemdSupportTests
