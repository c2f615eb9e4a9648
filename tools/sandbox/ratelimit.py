"""Per-IP sliding-window limits, one bucket per group of endpoints, as the contract's table says."""

import math
import threading
import time
from collections import deque

DEFAULT_LIMITS = {
    "verify": 30,
    "ticket": 30,
    "passport": 60,
    "certificate": 60,
    "history": 30,
    "claim": 20,
}


class RateLimiter:
    def __init__(self, window_s: float = 60.0):
        self._lock = threading.Lock()
        self._window_s = window_s
        self._default_window_s = window_s
        self._limits = dict(DEFAULT_LIMITS)
        self._hits = {}

    def reset(self):
        """Forgets every window, restores the starting window length and the default limits."""
        with self._lock:
            self._hits.clear()
            self._window_s = self._default_window_s
            self._limits = dict(DEFAULT_LIMITS)

    @property
    def window_s(self) -> float:
        with self._lock:
            return self._window_s

    def set_window(self, seconds: float):
        with self._lock:
            self._window_s = seconds

    def set_limits(self, limits: dict):
        with self._lock:
            for bucket, limit in limits.items():
                if bucket not in self._limits:
                    raise KeyError(bucket)
                self._limits[bucket] = int(limit)

    def limits(self) -> dict:
        with self._lock:
            return dict(self._limits)

    def admit(self, ip: str, bucket: str):
        """None when the call is admitted (and counted), else the whole seconds to wait."""
        now = time.monotonic()
        with self._lock:
            hits = self._hits.setdefault((ip, bucket), deque())
            while hits and hits[0] <= now - self._window_s:
                hits.popleft()
            if len(hits) >= self._limits[bucket]:
                # A limit of 0 refuses every call, with no hit to count the wait from.
                oldest = hits[0] if hits else now
                return max(1, math.ceil(oldest + self._window_s - now))
            hits.append(now)
            return None
