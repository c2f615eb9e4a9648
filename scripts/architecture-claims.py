#!/usr/bin/env python3
"""Fails when Sources/ breaks a countable claim of docs/architecture.md.

- One lock type, Synchronization.Mutex: no NSLock, NSCondition, DispatchQueue, DispatchSemaphore, pthread mutex or
  os_unfair_lock.
- Structured concurrency: no `Task {}` or `Task.detached` outside Sources/Lifecycle.
- One place a sockaddr_un is built: Sources/POSIXSupport.
- Descriptors are closed through POSIXSupport (`FileDescriptor.close`, `OwnedDescriptor`): no raw close(2) elsewhere.
Comments are not read. Usage: architecture-claims.py (from the repository's root)
"""
import glob
import re
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


def code(line):
    """The line without its `//` comment; a `//` inside a string literal is rare enough in Sources/ to accept."""
    return line.split("//", 1)[0]


problems = []
for source in sorted(glob.glob("Sources/**/*.swift", recursive=True)):
    with open(source, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            text = code(line)
            for claim, pattern, allowed in RULES:
                if pattern.search(text) and not source.startswith(allowed or ("\0",)):
                    problems.append(f"{source}:{number}: {claim}: {line.strip()}")
for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
