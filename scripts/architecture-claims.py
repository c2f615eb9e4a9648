#!/usr/bin/env python3
"""Fails when Sources/ breaks a countable claim of docs/architecture.md, or a table of the docs says otherwise than
the code.

- One lock type, Synchronization.Mutex: no NSLock, NSCondition, DispatchQueue, DispatchSemaphore, pthread mutex or
  os_unfair_lock.
- Structured concurrency: no `Task {}` or `Task.detached` outside Sources/Lifecycle.
- One place a sockaddr_un is built: Sources/POSIXSupport.
- Descriptors are closed through POSIXSupport (`FileDescriptor.close`, `OwnedDescriptor`): no raw close(2) elsewhere.
- The module tables (README.md, docs/architecture.md) have a row for every module of Sources/ and none for another;
  architecture.md's "Depends on" names exactly the package's modules that Package.swift declares for it
  (`swift package dump-package`).
- The thread table of docs/architecture.md names exactly the threads the daemon starts: the names given to
  `OSThread` and `ParkedThreads` in the modules sealtrust-scand links.
Comments are not read. Each run also checks the checker: doctored tables must fail.
Usage: architecture-claims.py [SWIFT] (from the repository's root)
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

RULES = [
    ("a lock other than Synchronization.Mutex",
     re.compile(r"\b(NSLock|NSRecursiveLock|NSCondition|NSConditionLock|DispatchQueue|DispatchSemaphore|DispatchGroup"
                r"|pthread_mutex_\w+|pthread_rwlock_\w+|os_unfair_lock\w*|OSAllocatedUnfairLock)\b"),
     ()),
    ("an unstructured task (`Task {}`, `Task.detached`) outside Sources/Lifecycle",
     re.compile(r"(?<![\w.])Task(\s*\{|\.detached\b|\s*\(\s*(priority|name|executorPreference)\s*:)"),
     ("Sources/Lifecycle/",)),
    ("a sockaddr_un built outside Sources/POSIXSupport",
     re.compile(r"\bsockaddr_un\b"),
     ("Sources/POSIXSupport/",)),
    ("a raw close(2) outside Sources/POSIXSupport",
     re.compile(r"(?<![\w.])(Glibc\.)?close\(\s*[\w.]+\s*\)"),
     ("Sources/POSIXSupport/",)),
]
# Rows of the thread table that are no OSThread.
UNNAMED_THREADS = {"main", "Swift's task pool"}
THREAD_NAME = re.compile(r"\b(?:OSThread\.\w+|ParkedThreads)\(\s*name:\s*(?:\"([^\"]+)\"|(\w+))")


def code(line):
    """The line without its `//` comment; a `//` inside a string literal is rare enough in Sources/ to accept."""
    return line.split("//", 1)[0]


def read(path):
    with open(path, encoding="utf-8") as text:
        return text.read()


def table(text, first_header, section=None):
    """The rows (lists of cells) of the first Markdown table whose first header cell is `first_header`, after the
    `## section` heading when one is given."""
    if section is not None:
        start = text.find("\n## " + section + "\n")
        if start < 0:
            return None
        text = text[start + 1:]
    rows, inside = [], False
    for line in text.split("\n"):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if not inside:
            inside = cells is not None and cells[0] == first_header
            continue
        if cells is None:
            break
        if set(cells[0]) <= set("-: "):
            continue
        rows.append(cells)
    return rows if inside else None


def names(cell):
    return re.findall(r"`([^`]+)`", cell)


def check_module_tables(readme, architecture, modules, dependencies):
    """`modules`: the package's modules in Sources/; `dependencies`: each one's declared package modules."""
    problems = []
    for doc, text in (("README.md", readme), ("docs/architecture.md", architecture)):
        rows = table(text, "Module")
        if rows is None:
            problems.append(f"{doc}: no module table (a header cell `Module`)")
            continue
        seen = []
        for row in rows:
            listed = names(row[0])
            if not listed:
                problems.append(f"{doc}: a module row names no module: {row[0]}")
            for name in listed:
                if name not in modules:
                    problems.append(f"{doc}: the module table names `{name}`, which is no module of Sources/")
                elif name in seen:
                    problems.append(f"{doc}: the module table has two rows for `{name}`")
                seen.append(name)
            if doc == "docs/architecture.md":
                if len(listed) != 1:
                    problems.append(f"{doc}: one module a row, for its dependencies: {row[0]}")
                elif listed[0] in modules:
                    stated = set(names(row[1]))
                    declared = set(dependencies[listed[0]])
                    for name in sorted(declared - stated):
                        problems.append(f"{doc}: `{listed[0]}` depends on `{name}` (Package.swift); its row does not say so")
                    for name in sorted(stated - declared):
                        problems.append(f"{doc}: `{listed[0]}`'s row says it depends on `{name}`; Package.swift does not")
        for name in sorted(set(modules) - set(seen)):
            problems.append(f"{doc}: the module table has no row for `{name}`")
    return problems


def check_thread_table(architecture, started):
    """`started`: the thread names the daemon's modules give, each with where."""
    rows = table(architecture, "Thread", section="Threads")
    if rows is None:
        return ["docs/architecture.md: no thread table (a header cell `Thread` under `## Threads`)"]
    problems, listed = [], set()
    for row in rows:
        named = names(row[0])
        if not named and row[0] not in UNNAMED_THREADS:
            problems.append(f"docs/architecture.md: a thread row names no thread: {row[0]}")
        listed.update(named[:1])
    for name in sorted(listed - set(started)):
        problems.append(f"docs/architecture.md: the thread table names `{name}`, which the daemon never starts")
    for name in sorted(set(started) - listed):
        problems.append(f"docs/architecture.md: no thread row for `{name}` ({started[name]})")
    return problems


def thread_names(source_text, source):
    """The names given to OSThread and ParkedThreads in one file: literals, or the literals of the property named."""
    found = {}
    lines = source_text.split("\n")
    for number, line in enumerate(lines, 1):
        for literal, identifier in THREAD_NAME.findall(code(line)):
            if literal:
                found[literal] = f"{source}:{number}"
                continue
            # A property: the literals from its declaration to the end of its body.
            for start, declaration in enumerate(lines):
                if re.search(rf"\b(?:var|let)\s+{identifier}\b", declaration):
                    indent = len(declaration) - len(declaration.lstrip())
                    end = start
                    while declaration.rstrip().endswith("{") and end + 1 < len(lines):
                        end += 1
                        closing = lines[end]
                        if closing.strip() == "}" and len(closing) - len(closing.lstrip()) == indent:
                            break
                    for literal_line in lines[start:end + 1]:
                        for value in re.findall(r"\"([^\"]+)\"", code(literal_line)):
                            found[value] = f"{source}:{number}"
                    break
            else:
                found[f"<{identifier}>"] = f"{source}:{number}: a name the script cannot read"
    return found


def linked(name, targets, seen):
    """`name` and every package target it depends on, directly or not."""
    if name not in seen:
        seen.add(name)
        for dependency in targets[name]["dependencies"]:
            for value in dependency.values():
                if value[0] in targets:
                    linked(value[0], targets, seen)
    return seen


def self_test(readme, architecture, modules, dependencies, started):
    """The checks must fail on doctored tables; the problems of a check that does not."""
    problems = []
    module = next(name for name in sorted(modules) if dependencies[name])
    dependency = dependencies[module][0]
    made_up = next(name for name in sorted(modules) if name != module and name not in dependencies[module])

    def doctor(text, change):
        """`text` with the cells of `module`'s row changed."""
        lines = text.split("\n")
        for index, line in enumerate(lines):
            cells = line.split("|")
            if line.startswith("|") and module in names(cells[1]):
                change(cells)
                lines[index:index + 1] = ["|".join(cells)] if cells else []
                break
        return "\n".join(lines)

    def drop(cells):
        cells[:] = []

    def leave_out(cells):
        cells[2] = cells[2].replace(f"`{dependency}`", "", 1)

    def make_up(cells):
        cells[2] = f"{cells[2]}, `{made_up}` "

    doctored = {
        "a README row removed": (doctor(readme, drop), architecture),
        "an architecture row removed": (readme, doctor(architecture, drop)),
        "a dependency left out": (readme, doctor(architecture, leave_out)),
        "a dependency made up": (readme, doctor(architecture, make_up)),
    }
    for what, (doctored_readme, doctored_architecture) in doctored.items():
        if not check_module_tables(doctored_readme, doctored_architecture, modules, dependencies):
            problems.append(f"scripts/architecture-claims.py: the module check passes with {what} (`{module}`)")
    thread = sorted(started)[0]
    without = re.sub(rf"^\|\s*`{re.escape(thread)}`[^\n]*\n", "", architecture, flags=re.M)
    if not check_thread_table(without, started):
        problems.append(f"scripts/architecture-claims.py: the thread check passes with the row of `{thread}` removed")
    invented = architecture.replace(f"| `{thread}`", "| `no-such-thread`", 1)
    if not check_thread_table(invented, started):
        problems.append("scripts/architecture-claims.py: the thread check passes with a row for a thread never started")
    return problems


def main():
    problems = []
    for source in sorted(glob.glob("Sources/**/*.swift", recursive=True)):
        with open(source, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                text = code(line)
                for claim, pattern, allowed in RULES:
                    if pattern.search(text) and not source.startswith(allowed or ("\0",)):
                        problems.append(f"{source}:{number}: {claim}: {line.strip()}")

    swift = sys.argv[1] if len(sys.argv) > 1 else shutil.which("swift") or "/opt/swift/usr/bin/swift"
    package = json.loads(subprocess.run([swift, "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    targets = {target["name"]: target for target in package["targets"]}
    modules = sorted(name for name, target in targets.items()
                     if target["type"] != "test" and not target.get("path") and os.path.isdir(f"Sources/{name}"))
    dependencies = {name: [value[0] for dependency in targets[name]["dependencies"] for value in dependency.values()
                           if value[0] in targets] for name in modules}
    started = {}
    for name in sorted(linked("sealtrust-scand", targets, set()) & set(modules)):
        for source in sorted(glob.glob(f"Sources/{name}/**/*.swift", recursive=True)):
            started.update(thread_names(read(source), source))

    readme, architecture = read("README.md"), read("docs/architecture.md")
    problems += check_module_tables(readme, architecture, modules, dependencies)
    problems += check_thread_table(architecture, started)
    problems += self_test(readme, architecture, modules, dependencies, started)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
