#!/usr/bin/env bash
# Runs a command (the test suite) with TMPDIR set to a folder of its own under /tmp, and removes that folder when it
# ends, interrupted or not: what the tests, their browsers and their children leave in the temporary folder goes with
# it, and the machine's /tmp keeps nothing of the run. The command's exit status is this script's.
set -euo pipefail
folder="$(mktemp -d /tmp/sealtrust-XXXXXX)"
trap 'rm -rf "$folder"' EXIT
TMPDIR="$folder" "$@"
