#!/usr/bin/python3
"""Network parts for the API transport's tests and make bench-network: a TLS end, a delaying link, a CONNECT
proxy, and an HTTP server that misbehaves on purpose. Each prints `LISTENING <port>` as its first stdout
line once it accepts connections, and exits at the end of its stdin with --exit-with-stdin.

  netlab.py tls --certs DIR --kind good|expired|wrong-host|unknown-ca --upstream HOST:PORT
      TLS in front of a plain TCP server. Writes DIR/ca.pem (the CA a client should trust) first.
  netlab.py delay --rtt-ms 40 --upstream HOST:PORT
      Forwards TCP; every chunk waits half the round trip each way, and a connection's first bytes wait
      one more round trip, as a TCP handshake would.
  netlab.py proxy [--record FILE] [--refuse STATUS]
      An HTTP proxy that only tunnels (CONNECT); each tunnel is a line `TUNNEL host:port` in FILE.
  netlab.py misbehave --mode MODE [--record FILE] [--tls DIR]
      An HTTP/1.1 server whose answer to every request is MODE (see MODES); every connection that
      brings bytes is a line `REQUEST <first line>` in FILE, and each accepted connection `ACCEPTED`.

Every socket has TCP_NODELAY, so that no hop waits on a delayed ACK of its own.
"""

import argparse
import datetime
import heapq
import os
import select
import signal
import socket
import ssl
import sys
import threading
import time

VERIFY_ANSWER = (b'{"status": "authentic", "identifier": "0x6efd", "product_name": "Chronograph 42", '
                 b'"brand": "Maison Exemple", "tamper_status": "intact", "tamper_policy": "inform", '
                 b'"theft_reported": false}')

MODES = {
    "answer": "a whole 200 answer with a Content-Length, connection kept",
    "slow": "the same, 0.5 s after the request: calls that start together are in flight together",
    "close-before-reading": "close as soon as bytes arrive, reading none",
    "close-after-request-line": "read the request line, then close",
    "close-after-headers": "read the request's headers, then close",
    "close-after-part-of-body": "read the headers and half the body, then close",
    "close-after-request": "read the whole request, then close without answering",
    "close-after-part-of-answer": "read the request, send the head and part of the body, then close",
    "cut-in-headers": "read the request, send the status line only, then close",
    "basic-challenge": "401 with WWW-Authenticate: Basic",
    "huge-body": "200 with Content-Length: 4000000000, zeros at full speed",
    "trickle": "200 with a body sent one byte a second",
    "chunked": "200 with the answer in chunks",
    "over-a-mebibyte": "200 with a chunked body of 2 MiB",
    "close-idle": "answers; closes any connection idle for 300 ms, then writes `CLOSED-IDLE` in FILE",
}


def nodelay(sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def listen(host="127.0.0.1"):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, 0))
    server.listen(128)
    return server


def record(path, line):
    if path:
        with open(path, "a") as output:
            output.write(line + "\n")


def serve(server, handle):
    print(f"LISTENING {server.getsockname()[1]}", flush=True)
    while True:
        client, _ = server.accept()
        nodelay(client)
        threading.Thread(target=handle, args=(client,), daemon=True).start()


def pipe(source, destination):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            destination.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, destination):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def connect(address):
    host, port = address.rsplit(":", 1)
    upstream = socket.create_connection((host, int(port)))
    nodelay(upstream)
    return upstream


# Certificates ---------------------------------------------------------------

def make_certificates(directory, kind):
    """DIR/ca.pem is the CA a client should trust; DIR/server.pem and server.key are what the TLS end shows."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import ipaddress

    now = datetime.datetime.now(datetime.timezone.utc)

    def name(text):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def authority(title):
        key = ec.generate_private_key(ec.SECP256R1())
        certificate = (x509.CertificateBuilder().subject_name(name(title)).issuer_name(name(title))
                       .public_key(key.public_key()).serial_number(x509.random_serial_number())
                       .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                       .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                       .sign(key, hashes.SHA256()))
        return key, certificate

    trusted_key, trusted = authority("netlab test CA")
    signer_key, signer = authority("netlab unknown CA") if kind == "unknown-ca" else (trusted_key, trusted)
    hosts = ["elsewhere.example"] if kind == "wrong-host" else ["localhost"]
    addresses = [] if kind == "wrong-host" else [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    if kind == "expired":
        valid = (now - datetime.timedelta(days=10), now - datetime.timedelta(days=1))
    else:
        valid = (now - datetime.timedelta(days=1), now + datetime.timedelta(days=30))
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = (x509.CertificateBuilder().subject_name(name(hosts[0])).issuer_name(signer.subject)
              .public_key(server_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(valid[0]).not_valid_after(valid[1])
              .add_extension(x509.SubjectAlternativeName([x509.DNSName(h) for h in hosts] + addresses), critical=False)
              .sign(signer_key, hashes.SHA256()))
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "ca.pem"), "wb") as output:
        output.write(trusted.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(directory, "server.pem"), "wb") as output:
        output.write(server.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(directory, "server.key"), "wb") as output:
        output.write(server_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption()))


def tls_context(directory):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(os.path.join(directory, "server.pem"), os.path.join(directory, "server.key"))
    return context


def wrap(context, client):
    """The TLS handshake; None when the client gave up (it refused our certificate)."""
    try:
        return context.wrap_socket(client, server_side=True)
    except (ssl.SSLError, OSError):
        client.close()
        return None


# The TLS end ----------------------------------------------------------------

def run_tls(options):
    make_certificates(options.certs, options.kind)
    context = tls_context(options.certs)

    def handle(client):
        secure = wrap(context, client)
        if secure is None:
            return
        upstream = connect(options.upstream)
        threading.Thread(target=pipe, args=(upstream, secure), daemon=True).start()
        pipe(secure, upstream)

    serve(listen(), handle)


# The delaying link ----------------------------------------------------------

class DelayedPipe:
    """Delivers each chunk read from `source` to `destination` `delay` seconds after it arrived, in order."""

    def __init__(self, source, destination, delay, first_extra):
        self.source, self.destination = source, destination
        self.delay, self.first_extra = delay, first_extra
        self.queue, self.ready = [], threading.Condition()
        self.sequence = 0

    def start(self):
        threading.Thread(target=self.read, daemon=True).start()
        threading.Thread(target=self.write, daemon=True).start()

    def read(self):
        extra = self.first_extra
        while True:
            try:
                data = self.source.recv(65536)
            except OSError:
                data = b""
            with self.ready:
                heapq.heappush(self.queue, (time.monotonic() + self.delay + extra, self.sequence, data))
                self.sequence += 1
                self.ready.notify()
            extra = 0.0
            if not data:
                return

    def write(self):
        while True:
            with self.ready:
                while not self.queue:
                    self.ready.wait()
                due, _, data = self.queue[0]
                wait = due - time.monotonic()
                if wait > 0:
                    self.ready.wait(wait)
                    continue
                heapq.heappop(self.queue)
            try:
                if not data:
                    self.destination.shutdown(socket.SHUT_WR)
                    return
                self.destination.sendall(data)
            except OSError:
                return


def run_delay(options):
    half = options.rtt_ms / 2000.0

    def handle(client):
        upstream = connect(options.upstream)
        DelayedPipe(client, upstream, half, 2 * half).start()
        DelayedPipe(upstream, client, half, 0.0).start()

    serve(listen(), handle)


# The CONNECT proxy ----------------------------------------------------------

def read_head(sock):
    head = b""
    while b"\r\n\r\n" not in head:
        data = sock.recv(1)
        if not data:
            return None
        head += data
        if len(head) > 65536:
            return None
    return head


def run_proxy(options):
    def handle(client):
        head = read_head(client)
        if head is None:
            client.close()
            return
        words = head.split(b"\r\n", 1)[0].decode("latin-1").split()
        if len(words) != 3 or words[0] != "CONNECT":
            client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        record(options.record, f"TUNNEL {words[1]}")
        if options.refuse:
            client.sendall(f"HTTP/1.1 {options.refuse} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
            client.close()
            return
        try:
            upstream = connect(words[1])
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
        pipe(client, upstream)

    serve(listen(), handle)


# The misbehaving server -----------------------------------------------------

class Connection:
    def __init__(self, sock):
        self.sock, self.buffer = sock, b""

    def fill(self, timeout=None):
        self.sock.settimeout(timeout)
        data = self.sock.recv(65536)
        self.sock.settimeout(None)
        if not data:
            raise EOFError
        self.buffer += data

    def until(self, marker):
        while marker not in self.buffer:
            self.fill()
        end = self.buffer.index(marker) + len(marker)
        taken, self.buffer = self.buffer[:end], self.buffer[end:]
        return taken

    def take(self, count):
        while len(self.buffer) < count:
            self.fill()
        taken, self.buffer = self.buffer[:count], self.buffer[count:]
        return taken

    def request(self):
        """The head and body of one request, read whole."""
        head = self.until(b"\r\n\r\n")
        return head, self.take(content_length(head))


def content_length(head):
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return 0


def answer(body, status="200 OK", extra=b""):
    return (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n".encode()
            + extra + b"\r\n" + body)


def chunked(body, size):
    out = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    for start in range(0, len(body), size):
        piece = body[start:start + size]
        out += f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def misbehave(mode, conn, recorded):
    """Serves one connection; returns when it is closed."""
    sock = conn.sock
    first = True
    while True:
        if mode == "close-before-reading":
            select.select([sock], [], [])
            recorded("REQUEST (not read)")
            return
        try:
            if not conn.buffer:
                conn.fill(timeout=0.3 if mode == "close-idle" else None)
        except socket.timeout:
            return "CLOSED-IDLE"
        if first:
            line = conn.buffer.split(b"\r\n", 1)[0].decode("latin-1", "replace")
            recorded(f"REQUEST {line}")
            first = False
        if mode == "close-after-request-line":
            conn.until(b"\r\n")
            return
        if mode == "close-after-headers":
            conn.until(b"\r\n\r\n")
            return
        if mode == "close-after-part-of-body":
            head = conn.until(b"\r\n\r\n")
            conn.take(max(1, content_length(head) // 2))
            return
        head, _ = conn.request()
        if mode == "close-after-request":
            return
        if mode == "close-after-part-of-answer":
            sock.sendall(answer(VERIFY_ANSWER)[:-20])
            return
        if mode == "cut-in-headers":
            sock.sendall(b"HTTP/1.1 200 OK\r\n")
            return
        if mode == "basic-challenge":
            sock.sendall(answer(b'{"detail": "sign in"}', "401 Unauthorized", b'WWW-Authenticate: Basic realm="api"\r\n'))
        elif mode == "huge-body":
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4000000000\r\n\r\n")
            zeros = b"0" * 65536
            while True:
                sock.sendall(zeros)
        elif mode == "trickle":
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n")
            while True:
                sock.sendall(b" ")
                time.sleep(1)
        elif mode == "chunked":
            sock.sendall(chunked(VERIFY_ANSWER, 7))
        elif mode == "over-a-mebibyte":
            sock.sendall(chunked(b"[" + b"0," * (1 << 20) + b"0]", 65536))
        elif mode == "slow":
            time.sleep(0.5)
            sock.sendall(answer(VERIFY_ANSWER))
        else:
            sock.sendall(answer(VERIFY_ANSWER))
        first = True


def run_misbehave(options):
    context = None
    if options.tls:
        make_certificates(options.tls, "good")
        context = tls_context(options.tls)

    def handle(client):
        record(options.record, "ACCEPTED")
        sock = wrap(context, client) if context else client
        if sock is None:
            return
        last_words = None
        try:
            last_words = misbehave(options.mode, Connection(sock), lambda line: record(options.record, line))
        except (EOFError, OSError):
            pass
        finally:
            try:
                sock.close()
            except OSError:
                pass
        if last_words:
            record(options.record, last_words)

    serve(listen(), handle)


def _exit_at_end_of_stdin():
    while os.read(0, 4096):
        pass
    os._exit(0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exit-with-stdin", action="store_true")
    parts = parser.add_subparsers(dest="part", required=True)
    tls = parts.add_parser("tls")
    tls.add_argument("--certs", required=True)
    tls.add_argument("--kind", choices=["good", "expired", "wrong-host", "unknown-ca"], default="good")
    tls.add_argument("--upstream", required=True)
    delay = parts.add_parser("delay")
    delay.add_argument("--rtt-ms", type=float, default=40.0)
    delay.add_argument("--upstream", required=True)
    proxy = parts.add_parser("proxy")
    proxy.add_argument("--record")
    proxy.add_argument("--refuse", type=int)
    bad = parts.add_parser("misbehave")
    bad.add_argument("--mode", choices=sorted(MODES), required=True)
    bad.add_argument("--record")
    bad.add_argument("--tls", help="serve TLS with a good certificate made in this folder (its ca.pem)")
    options = parser.parse_args(argv)

    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    if options.exit_with_stdin:
        threading.Thread(target=_exit_at_end_of_stdin, daemon=True).start()
    {"tls": run_tls, "delay": run_delay, "proxy": run_proxy, "misbehave": run_misbehave}[options.part](options)


if __name__ == "__main__":
    sys.exit(main())
