#!/usr/bin/env python3
"""Fails when a target of Package.swift imports a module of the package it does not declare as a dependency, or when
a module the bridges or scanctl link imports Foundation.

A module reached only through another's dependencies builds today and breaks when that other module drops it; the
fuzz builds (fuzz/NAME/modules) and the architecture table read the declared lists. Foundation, linked statically,
adds about 5 MiB to each program (the package's size goal, packaging/deb-size.sh). Usage: declared-imports.py SWIFT
"""
import glob
import json
import re
import subprocess
import sys

swift = sys.argv[1] if len(sys.argv) > 1 else "swift"
package = json.loads(subprocess.run([swift, "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
targets = {target["name"]: target for target in package["targets"]}
# An import is a line of its own at the top level: Python inside a Swift string is indented.
import_line = re.compile(r"^(?:@testable |@_exported )?import (?:struct |enum |class |func |protocol )?(\w+)")
problems = []
sources_of = {}
for name, target in sorted(targets.items()):
    if target["type"] == "system":
        continue
    path = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
    declared = {value[0] for dependency in target["dependencies"] for value in dependency.values()}
    sources_of[name] = []
    for source in sorted(glob.glob(f"{path}/**/*.swift", recursive=True)):
        with open(source, encoding="utf-8") as lines:
            for line in lines:
                match = import_line.match(line)
                module = match and match.group(1)
                if module:
                    sources_of[name].append((source, module))
                if module and module in targets and module != name and module not in declared:
                    problems.append(f"{source}: imports {module}, which target {name} does not declare")


def linked(name, seen):
    """`name` and every package target it depends on, directly or not."""
    if name in seen or name not in targets:
        return seen
    seen.add(name)
    for dependency in targets[name]["dependencies"]:
        for value in dependency.values():
            linked(value[0], seen)
    return seen


for program in ("sealtrust-kiosk", "sealtrust-mqtt", "sealtrust-scanctl"):
    for name in sorted(linked(program, set())):
        for source, module in sources_of.get(name, []):
            if module.startswith("Foundation"):
                problems.append(f"{source}: imports {module}, which {program} would link (it links no Foundation)")
for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
