#!/usr/bin/env bash
# Builds libFuzzer targets: fuzz/NAME/main.swift, linked with the modules named in fuzz/NAME/modules.
# Each module is compiled once, for every target, with the fuzzer's coverage and AddressSanitizer,
# optimised, and with -enable-testing so that a target may `@testable import` it.
# fuzz/Check.swift (the `check` every target's properties use) is compiled into each entry.
# Usage: fuzz/build.sh NAME...  (the binaries go to .build/fuzz/bin/NAME)
set -euo pipefail
cd "$(dirname "$0")/.."
swiftc=${SWIFTC:-swiftc}
out=${FUZZ_OUT:-.build/fuzz}
mkdir -p "$out/modules" "$out/bin"
common=(-O -sanitize=fuzzer,address -swift-version 6 -package-name sealtrust_scand
    -I "$out/modules" -I Sources/CZBar -I Sources/CCurl -I Sources/CMicroHTTPD -I Sources/CMosquitto -I Sources/CQRencode -Xcc -I -Xcc Sources/CPCSCLite/include
    -Xcc -fmodule-map-file="$out/modules/CPCSCLite.modulemap" -Xcc -fmodule-map-file="$out/modules/CLinuxInput.modulemap"
    -Xcc -fmodule-map-file="$out/modules/CZXing.modulemap")

# The C target's module map, as SwiftPM makes it, and its one C file.
if [[ ! -f $out/modules/CPCSCLite.o || Sources/CPCSCLite/pci.c -nt $out/modules/CPCSCLite.o ]]; then
    printf 'module CPCSCLite {\n    header "%s/Sources/CPCSCLite/include/CPCSCLite.h"\n    export *\n}\n' "$PWD" \
        >"$out/modules/CPCSCLite.modulemap"
    clang -O1 -c -I Sources/CPCSCLite/include Sources/CPCSCLite/pci.c -o "$out/modules/CPCSCLite.o"
fi

# The same for the evdev ioctls' C target.
if [[ ! -f $out/modules/CLinuxInput.o || Sources/CLinuxInput/evdev_ioctl.c -nt $out/modules/CLinuxInput.o ]]; then
    printf 'module CLinuxInput {\n    header "%s/Sources/CLinuxInput/include/CLinuxInput.h"\n    export *\n}\n' "$PWD" \
        >"$out/modules/CLinuxInput.modulemap"
    clang -O1 -c -I Sources/CLinuxInput/include Sources/CLinuxInput/evdev_ioctl.c -o "$out/modules/CLinuxInput.o"
fi

# zxing-cpp's C surface (a C++ file), with the fuzzer's coverage and AddressSanitizer: its code reads the frames.
if [[ ! -f $out/modules/CZXing.o || Sources/CZXing/CZXing.cpp -nt $out/modules/CZXing.o ]]; then
    printf 'module CZXing {\n    header "%s/Sources/CZXing/include/CZXing.h"\n    export *\n}\n' "$PWD" \
        >"$out/modules/CZXing.modulemap"
    clang++ -O1 -std=c++17 -fsanitize=fuzzer-no-link,address -c -I Sources/CZXing/include Sources/CZXing/CZXing.cpp \
        -o "$out/modules/CZXing.o"
fi

# A module is rebuilt when one of its sources, or a module listed before it, is newer than its object.
build_module() {
    local name=$1 newest=$2 object=$out/modules/$1.o
    case $name in
        CZBar) return ;;       # a system library: its module map is in Sources/CZBar
        CCurl) return ;;       # a system library: its module map is in Sources/CCurl
        CMicroHTTPD) return ;; # a system library: its module map is in Sources/CMicroHTTPD
        CMosquitto) return ;;  # a system library: its module map is in Sources/CMosquitto
        CQRencode) return ;;   # a system library: its module map is in Sources/CQRencode
        CPCSCLite) return ;;   # built above
        CLinuxInput) return ;; # built above
        CZXing) return ;;      # built above
    esac
    if [[ -f $object && -z $(find "Sources/$name" ${newest:+"$newest"} -newer "$object" -print -quit) ]]; then
        return
    fi
    echo "fuzz: compiling $name"
    "$swiftc" "${common[@]}" -enable-testing -parse-as-library -wmo -c -module-name "$name" \
        -emit-module -emit-module-path "$out/modules/$name.swiftmodule" "Sources/$name"/*.swift -o "$object"
    touch "$object"   # the compiler keeps an unchanged object's old time
}

for target in "$@"; do
    dir=fuzz/$target
    [[ -f $dir/main.swift && -f $dir/modules ]] || { echo "fuzz: $dir needs main.swift and modules" >&2; exit 2; }
    read -r -a modules <"$dir/modules"
    objects=() libraries=() newest=
    for module in "${modules[@]}"; do
        build_module "$module" "$newest"
        case $module in
            CZBar) libraries+=(-lzbar) ;;
            CCurl) libraries+=(-lcurl) ;;
            CMicroHTTPD) libraries+=(-lmicrohttpd) ;;
            CQRencode) libraries+=(-lqrencode) ;;
            CMosquitto) libraries+=(-lmosquitto) ;;
            CPCSCLite) objects+=("$out/modules/CPCSCLite.o"); libraries+=(-lpcsclite) ;;
            CLinuxInput) objects+=("$out/modules/CLinuxInput.o") ;;
            CZXing) objects+=("$out/modules/CZXing.o"); libraries+=(-lZXing -lstdc++) ;;
            *) objects+=("$out/modules/$module.o"); newest=$out/modules/$module.o ;;
        esac
    done
    binary=$out/bin/$target
    if [[ -f $binary && -z $(find "$dir/main.swift" fuzz/Check.swift "${objects[@]}" -newer "$binary" -print -quit) ]]; then
        continue
    fi
    echo "fuzz: linking $target"
    # The gold linker warns about ASan's local symbols on every link; the warnings say nothing about us.
    "$swiftc" "${common[@]}" -parse-as-library -module-name "fuzz_${target//-/_}" "$dir/main.swift" fuzz/Check.swift \
        "${objects[@]}" "${libraries[@]}" -o "$binary" 2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
done
