#!/usr/bin/env bash
# Runs a command (the test suite) with TMPDIR set to a folder of its own under /tmp, and removes that folder
# afterwards: what the tests, their browsers and their children leave in the temporary folder goes with it, and
# the machine's /tmp keeps nothing of the run. The command's exit status is this script's.
set -euo pipefail
folder="$(mktemp -d /tmp/sealtrust-XXXXXX)"
status=0
TMPDIR="$folder" "$@" || status=$?
rm -rf "$folder"
exit "$status"
