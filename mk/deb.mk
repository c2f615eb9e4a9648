# The Debian package: `make deb` builds sealtrust-scand_<version>_<arch>.deb with debhelper (debian/) into
# .build/deb-out, checks it with lintian (no errors allowed) and prints its installed size and each program's,
# failing past the goals (packaging/deb-size.sh); `make test-deb` installs it on this machine, checks every file
# and the users, runs the daemon and both bridges as their users, and purges it with nothing left
# (packaging/test-deb.sh).
DEB_OUTPUT_DIR ?= $(CURDIR)/.build/deb-out
DEB_FILE = $(DEB_OUTPUT_DIR)/sealtrust-scand_$(shell dpkg-parsechangelog -S Version)_$(shell dpkg-architecture -qDEB_HOST_ARCH).deb

.PHONY: deb test-deb

deb: deps
	mkdir -p $(DEB_OUTPUT_DIR)
	DEB_OUTPUT_DIR=$(DEB_OUTPUT_DIR) debian/rules build
	DEB_OUTPUT_DIR=$(DEB_OUTPUT_DIR) debian/rules binary
	lintian --fail-on error $(DEB_FILE)
	@echo "built $(DEB_FILE)"
	./packaging/deb-size.sh $(DEB_FILE)

test-deb: deb
	./packaging/test-deb.sh $(DEB_FILE)
