# The Debian package: `make deb` builds sealtrust-scand_<version>_<arch>.deb with debhelper (debian/) into
# .build/deb-out and checks it with lintian (no errors allowed); `make test-deb` installs it on this machine,
# checks every file and the user, and purges it (packaging/test-deb.sh).
DEB_OUTPUT_DIR ?= $(CURDIR)/.build/deb-out
DEB_FILE = $(DEB_OUTPUT_DIR)/sealtrust-scand_$(shell dpkg-parsechangelog -S Version)_$(shell dpkg-architecture -qDEB_HOST_ARCH).deb

.PHONY: deb test-deb

deb: deps
	mkdir -p $(DEB_OUTPUT_DIR)
	DEB_OUTPUT_DIR=$(DEB_OUTPUT_DIR) debian/rules build
	DEB_OUTPUT_DIR=$(DEB_OUTPUT_DIR) debian/rules binary
	lintian --fail-on error $(DEB_FILE)
	@echo "built $(DEB_FILE)"

test-deb: deb
	./packaging/test-deb.sh $(DEB_FILE)
