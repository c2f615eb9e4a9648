#!/usr/bin/python3
"""The local SealTrust sandbox API: the whole wire contract, real SUN checks, and admin routes for tests.

Run: /usr/bin/python3 tools/sandbox/sandbox.py [--port 0] [--host 127.0.0.1] [--window SECONDS] [--catalogue PATH] [--fault JSON]...
Prints `LISTENING <port>` as its first stdout line once it accepts connections; serves until SIGTERM.
"""

import argparse
import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sun  # noqa: E402
from api import Invalid, Reply, Request, SealTrustAPI  # noqa: E402
from catalogue import Catalogue  # noqa: E402
from faults import Fault, Faults  # noqa: E402
from ledger import Ledger  # noqa: E402
from ratelimit import RateLimiter  # noqa: E402

ADMIN_PREFIX = "/_sandbox/"


class Sandbox:
    """Everything one running sandbox holds; the HTTP handler only moves bytes in and out."""

    def __init__(self, catalogue: Catalogue, window_s: float):
        self.catalogue = catalogue
        self.ledger = Ledger(catalogue)
        self.api = SealTrustAPI(catalogue, self.ledger)
        self.limiter = RateLimiter(window_s)
        self.faults = Faults()
        self._records_lock = threading.Lock()
        self._records = []
        self.generation = 0   # bumped by reset: a delayed request from before it is dropped, not served

    def record(self, request: Request):
        entry = {
            "method": request.method,
            "path": request.path,
            "query": request.query,
            "headers": request.headers,
            "body": request.body.decode("utf-8", errors="replace"),
        }
        with self._records_lock:
            self._records.append(entry)
        return entry

    def reset(self):
        with self._records_lock:
            self._records.clear()
            self.generation += 1
        self.ledger.reset()
        self.limiter.reset()
        self.faults.clear()

    def serve(self, request: Request) -> Reply:
        bucket, handler, arguments = self.api.route(request)
        if handler is None:
            return self.api.not_found_page()
        if bucket:
            wait = self.limiter.admit(request.client_ip, bucket)
            if wait is not None:
                return Reply.error(429, f"RATE_LIMITED: too many {bucket} calls, retry in {wait} s",
                                   {"Retry-After": str(wait)})
        try:
            return handler(request, *arguments)
        except Invalid as refusal:
            return refusal.reply

    # Admin routes -------------------------------------------------------

    def admin(self, request: Request) -> Reply:
        route = (request.method, request.path[len(ADMIN_PREFIX):].rstrip("/"))
        try:
            body = json.loads(request.body or b"{}")
        except json.JSONDecodeError as failure:
            return Reply.error(400, f"admin body is not JSON: {failure}")
        try:
            if route == ("GET", "requests"):
                with self._records_lock:
                    return Reply.json(200, list(self._records))
            if route == ("POST", "reset"):
                self.reset()
                return Reply.json(200, {"reset": True})
            if route == ("POST", "fault"):
                self.faults.add(Fault.from_json(body))
                return Reply.json(200, {"fault": body})
            if route == ("POST", "release"):
                self.faults.release()
                return Reply.json(200, {"released": True})
            if route == ("POST", "window"):
                seconds = float(body["seconds"])
                if seconds <= 0:
                    raise ValueError("seconds must be positive")
                self.limiter.set_window(seconds)
                return Reply.json(200, {"seconds": seconds})
            if route == ("GET", "window"):
                return Reply.json(200, {"seconds": self.limiter.window_s})
            if route == ("POST", "limits"):
                self.limiter.set_limits(body)
                return Reply.json(200, self.limiter.limits())
            if route == ("GET", "limits"):
                return Reply.json(200, self.limiter.limits())
            if route == ("GET", "chips"):
                return Reply.json(200, self._chips())
            if route == ("POST", "tap"):
                return self._tap(body)
        except (KeyError, TypeError, ValueError) as failure:
            return Reply.error(400, f"bad admin request: {failure!r}")
        return Reply.error(404, f"no admin route {request.method} {request.path}")

    def _chips(self):
        with self.ledger.lock:
            return [dict(chip.public_view(), last_counter=self.ledger.last_counter.get(chip.name))
                    for chip in self.catalogue.chips]

    def _tap(self, body: dict) -> Reply:
        """A fresh chip URL, as the chip would write it at its next tap (for clients that have no AES)."""
        chip = self.catalogue.chip_named(body["chip"])
        if chip is None:
            return Reply.error(404, f"no chip named {body['chip']!r}")
        counter = body.get("counter")
        if counter is None:
            counter = self.ledger.next_tap_counter(chip.name)
        elif not isinstance(counter, int) or not 0 <= counter < 1 << 24:
            raise ValueError("counter must be an integer from 0 to 16777215")
        host = body.get("host", "sealtrust.io")
        url = sun.chip_url(chip.meta_read_key, chip.file_read_key, chip.uid, counter, base=f"https://{host}/c")
        return Reply.json(200, {"chip": chip.name, "uid": chip.uid.hex().upper(), "counter": counter, "url": url})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "SealTrustSandbox/1.0"
    # The head and the body go out in two writes: with Nagle on, a kept-alive connection waited 40 ms for the
    # client's delayed ACK before the body left. A production server does not make its callers wait for that.
    disable_nagle_algorithm = True
    sandbox: Sandbox = None

    def do_GET(self):
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def log_message(self, format, *args):
        if self.server.verbose:
            super().log_message(format, *args)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _handle(self):
        started = time.monotonic()
        path, _, query = self.path.partition("?")
        headers = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        request = Request(self.command, path, query, headers, self._read_body(), self.client_address[0])
        if path.startswith(ADMIN_PREFIX):
            self._send(self.sandbox.admin(request))
            return
        entry = self.sandbox.record(request)
        generation = self.sandbox.generation
        fault = self.sandbox.faults.take(request.method, path)
        if fault is not None:
            if fault.hold:
                fault.released.wait(60)
            if fault.delay_s > 0:
                time.sleep(fault.delay_s)
            if fault.close or generation != self.sandbox.generation:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if fault.status is not None:
                self._send(Reply(fault.status, fault.body.encode("utf-8"), fault.content_type, fault.headers))
                return
            if fault.linger_s > 0:
                # A connection the client believes alive: it may send its next request on it, which is never read.
                self._send(self.sandbox.serve(request))
                time.sleep(fault.linger_s)
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
        reply = self.sandbox.serve(request)
        # Set before the answer leaves: a client that reads the records right after it has this figure.
        entry["service_ms"] = round((time.monotonic() - started) * 1000, 3)
        self._send(reply)

    def _send(self, reply: Reply):
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply.body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128   # tests fire bursts of calls at the rate limits
    verbose = False


def _exit_at_end_of_stdin():
    # The raw descriptor, not sys.stdin: a daemon thread blocked in a buffered read aborts interpreter shutdown.
    while os.read(0, 4096):
        pass
    os._exit(0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--window", type=float, default=60.0, help="rate-limit window in seconds (default 60)")
    parser.add_argument("--catalogue", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "catalogue.json"))
    parser.add_argument("--verbose", action="store_true", help="log each request on stderr")
    parser.add_argument("--fault", action="append", default=[], metavar="JSON",
                        help="a fault in force from the first request, as POST /_sandbox/fault takes it (repeatable)")
    parser.add_argument("--exit-with-stdin", action="store_true",
                        help="exit when stdin reaches end of file (the launching test process went away)")
    options = parser.parse_args(argv)

    Handler.sandbox = Sandbox(Catalogue.load(options.catalogue), options.window)
    try:
        for spec in options.fault:
            Handler.sandbox.faults.add(Fault.from_json(json.loads(spec)))
    except (ValueError, AttributeError) as error:
        parser.error(f"--fault: {error}")
    if ":" in options.host:
        Server.address_family = socket.AF_INET6
    server = Server((options.host, options.port), Handler)
    server.verbose = options.verbose
    # A parent may launch us with signals blocked (Swift's Process does): SIGTERM must still stop us.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if options.exit_with_stdin:
        threading.Thread(target=_exit_at_end_of_stdin, daemon=True).start()
    print(f"LISTENING {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
