#!/usr/bin/env bash
# check-doc-lists.sh DEB: what the README and docs/installing.md say the package is, against the package itself:
# the runtime packages they list are its Depends and Recommends (the C runtime aside), no more, no less; the man
# pages they list are those it ships; the folders of /etc they name are those it fills. Prints one line per
# difference and exits 1 when there is any; `make test-deb` runs it (packaging/test-deb.sh).
set -euo pipefail
deb="${1:?usage: check-doc-lists.sh sealtrust-scand_VERSION_ARCH.deb}"
cd "$(dirname "$0")/.."
status=0
differ() { echo "check-doc-lists: $*" >&2; status=1; }

# Depends and Recommends, one name a line: the first of alternatives kept (what apt installs), versions dropped,
# debhelper's own and the C runtime's (which every program needs) left out.
relations="$(dpkg-deb -f "$deb" Depends Recommends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' | sed 's/|.*//' \
    | sed 's/([^)]*)//g; s/:any//; s/^ *//; s/ *$//' | grep -v '^$' \
    | grep -vxE 'libc6|libgcc-s1|libstdc\+\+6|adduser|systemd-sysusers|init-system-helpers' | sort -u)"

# The lists: `apt-get install ...` in the README's Packages paragraph and in docs/installing.md's first block.
readme_list="$(grep -o '^\*\*Packages\*\*.*apt-get install [^`]*' README.md | sed 's/.*apt-get install //' | tr ' ' '\n' | grep -v '^$' | sort -u)"
guide_list="$(grep -m1 -o 'sudo apt-get install .*' docs/installing.md | sed 's/.*apt-get install //' | tr ' ' '\n' | grep -v '^$' | sort -u)"
for name in README.md docs/installing.md; do
    list="$readme_list"
    [ "$name" = README.md ] || list="$guide_list"
    [ -n "$list" ] || { differ "$name: no 'apt-get install' list of runtime packages found"; continue; }
    while read -r package; do
        printf '%s\n' "$list" | grep -qxF "$package" || differ "$name leaves out $package, which the package depends on"
    done <<<"$relations"
    while read -r package; do
        printf '%s\n' "$relations" | grep -qxF "$package" || differ "$name lists $package, which the package does not depend on"
    done <<<"$list"
done

# The man pages: every page the package ships, as `name(section)`, is in both lists of docs/installing.md and the
# README's, and no other.
shipped="$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -E '/usr/share/man/man[0-9]/.*\.[0-9]\.gz$' \
    | sed -E 's|.*/([^/]+)\.([0-9])\.gz$|\1(\2)|' | sort -u)"
[ -n "$shipped" ] || differ "the package ships no man page"
for name in README.md docs/installing.md; do
    lines="$(grep -E 'man pages' "$name" | grep -E 'sealtrust-scand\(8\)' || true)"
    [ -n "$lines" ] || { differ "$name: no list of man pages found"; continue; }
    while read -r line; do
        listed="$(grep -oE '[a-z.-]+\([0-9]\)' <<<"$line" | sort -u)"
        [ "$listed" = "$shipped" ] || differ "$name lists the man pages $(echo $listed), the package ships $(echo $shipped)"
    done <<<"$lines"
done

# The folders of /etc: the README names each one the package fills.
while read -r folder; do
    grep -qF "\`$folder/\`" README.md || differ "README.md does not name $folder/, where the package puts files"
done < <(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -E '^\./etc/[^/]+/.+[^/]$' | sed -E 's|^\.(/etc/[^/]+)/.*|\1|' | sort -u)
exit "$status"
