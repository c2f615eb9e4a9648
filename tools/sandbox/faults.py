"""Faults tests inject by path prefix: a delay, a hold until released, a replaced answer, a dropped connection, or a
late close."""

import threading
from dataclasses import dataclass, field


@dataclass
class Fault:
    path: str
    delay_s: float = 0.0
    status: int | None = None
    body: str = ""
    content_type: str = "application/json"
    headers: dict = field(default_factory=dict)
    close: bool = False          # drop the connection without answering
    linger_s: float = 0.0        # answer, then hold the connection this long without reading, then close it
    method: str | None = None    # only requests with this method; any when None
    remaining: int | None = None  # None: until reset
    hold: bool = False           # wait (at most a minute) until the test releases it: work held at a point it controls
    released: threading.Event = field(default_factory=threading.Event)

    @classmethod
    def from_json(cls, spec: dict) -> "Fault":
        if not isinstance(spec.get("path"), str) or not spec["path"].startswith("/"):
            raise ValueError("path must be a string starting with /")
        count = spec.get("count")
        if count is not None and (not isinstance(count, int) or count < 1):
            raise ValueError("count must be a positive integer")
        status = spec.get("status")
        if status is not None and (not isinstance(status, int) or not 100 <= status <= 599):
            raise ValueError("status must be an HTTP status code")
        headers = spec.get("headers") or {}
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
            raise ValueError("headers must map strings to strings")
        return cls(
            path=spec["path"],
            delay_s=float(spec.get("delay_s") or 0.0),
            status=status,
            body=spec.get("body") or "",
            content_type=spec.get("content_type") or "application/json",
            headers=headers,
            close=bool(spec.get("close", False)),
            linger_s=float(spec.get("linger_s") or 0.0),
            method=spec.get("method"),
            remaining=count,
            hold=bool(spec.get("hold", False)),
        )


class Faults:
    def __init__(self):
        self._lock = threading.Lock()
        self._faults = []
        self._taken_holds = []   # hold faults used up, whose requests may still wait

    def add(self, fault: Fault):
        with self._lock:
            self._faults.append(fault)

    def clear(self):
        self.release()
        with self._lock:
            self._faults.clear()

    def release(self):
        """Lets every held request go on, and those that a hold fault takes later."""
        with self._lock:
            held = [fault for fault in self._faults if fault.hold] + self._taken_holds
            self._taken_holds = []
        for fault in held:
            fault.released.set()

    def take(self, method: str, path: str):
        """The first fault (in the order added) for this request, used up by one."""
        with self._lock:
            for fault in self._faults:
                if not path.startswith(fault.path) or (fault.method and fault.method != method):
                    continue
                if fault.remaining is not None:
                    fault.remaining -= 1
                    if fault.remaining == 0:
                        self._faults.remove(fault)
                        if fault.hold:
                            self._taken_holds.append(fault)
                return fault
        return None
