#!/usr/bin/python3
"""make bench-network: the daemon beside a minimal warm client, over HTTPS across a link with a set round trip.

  bench.py --daemon PATH --warm-client PATH [--rtt-ms 40] [--taps 25]

The sandbox API sits behind a TLS end (a test CA made here, given to both clients as a file, never added to
the machine's store) and a delaying link (tools/netlab). Taps alternate: a chip verify through the daemon
(`verify` on its socket, timed to the verdict), the same call by the warm client (bench/network/warm_client.c),
then a printed code both ways (a passport read). Each client is warmed by one call first. Taps are spaced
so that a connection opened after one call is ready before the next, as between two people's taps.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRINTED_CODE = "https://sealtrust.io/p/SN-00042"


def launch(arguments):
    """A helper that prints `LISTENING <port>` first and exits when its stdin closes."""
    process = subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    words = process.stdout.readline().split()
    if len(words) != 2 or words[0] != "LISTENING":
        raise SystemExit(f"bench-network: {arguments[1]} did not start")
    return process, int(words[1])


def admin(port, route, body):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/_sandbox/{route}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


class Daemon:
    def __init__(self, executable, folder, api_base, ca_file):
        self.socket_path = os.path.join(folder, "scand.sock")
        self.process = subprocess.Popen(
            [executable, "--socket", self.socket_path, "--journal", os.path.join(folder, "journal"), "--nfc", "none",
             "--camera", "none", "--api-base", api_base, "--api-ca", ca_file, "--api-proxy", "none",
             "--log-level", "warning"], stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                self.connection = socket.socket(socket.AF_UNIX)
                self.connection.connect(self.socket_path)
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise SystemExit("bench-network: the daemon did not listen")
                time.sleep(0.01)
        self.lines = self.connection.makefile("r")
        self.lines.readline()  # hello
        self.next_id = 0

    def verify(self, raw):
        """Seconds from the command written to its verdict read, and the verdict."""
        self.next_id += 1
        command = json.dumps({"cmd": "verify", "raw": raw, "id": self.next_id}) + "\n"
        started = time.monotonic()
        self.connection.sendall(command.encode())
        while True:
            event = json.loads(self.lines.readline())
            if event.get("type") == "verdict" and event.get("request_id") == self.next_id:
                return time.monotonic() - started, event

    def resident_mib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        self.process.terminate()
        self.process.wait()


class WarmClient:
    def __init__(self, executable, base, ca_file):
        self.process = subprocess.Popen([executable, base, ca_file], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        status, microseconds = self.process.stdout.readline().split()
        return int(microseconds) / 1e6, int(status)

    def stop(self):
        self.process.stdin.close()
        self.process.wait()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * fraction))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--daemon", required=True)
    parser.add_argument("--warm-client", required=True)
    parser.add_argument("--rtt-ms", type=float, default=40.0)
    parser.add_argument("--taps", type=int, default=25, help="per kind and client; the daemon allows 30 verifies a minute")
    options = parser.parse_args()
    rtt = options.rtt_ms / 1000
    pause = max(0.3, 6 * rtt)

    folder = tempfile.mkdtemp(prefix="bench-network-")
    helpers = []
    daemon = warm = None
    try:
        netlab = ["/usr/bin/python3", os.path.join(ROOT, "tools/netlab/netlab.py"),
                  "--exit-with-stdin"]
        sandbox, sandbox_port = launch(["/usr/bin/python3", os.path.join(ROOT, "tools/sandbox/sandbox.py"), "--port", "0",
                                        "--host", "127.0.0.1", "--exit-with-stdin"])
        helpers.append(sandbox)
        admin(sandbox_port, "limits", {"verify": 10000, "passport": 10000})
        certificates = os.path.join(folder, "certs")
        tls_end, tls_port = launch(netlab + ["tls", "--certs", certificates, "--kind", "good",
                                             "--upstream", f"127.0.0.1:{sandbox_port}"])
        helpers.append(tls_end)
        link, link_port = launch(netlab + ["delay", "--rtt-ms", str(options.rtt_ms), "--upstream", f"127.0.0.1:{tls_port}"])
        helpers.append(link)
        base = f"https://localhost:{link_port}"
        ca_file = os.path.join(certificates, "ca.pem")
        daemon = Daemon(options.daemon, folder, base, ca_file)
        warm = WarmClient(options.warm_client, base, ca_file)

        samples = {("chip", "daemon"): [], ("chip", "warm"): [], ("printed", "daemon"): [], ("printed", "warm"): []}
        failures = []
        for tap in range(options.taps + 1):
            results = []
            elapsed, verdict = daemon.verify(admin(sandbox_port, "tap", {"chip": "spare-a"})["url"])
            results.append((("chip", "daemon"), elapsed, verdict["outcome"] == "authentic", verdict))
            time.sleep(pause)
            url = admin(sandbox_port, "tap", {"chip": "spare-a"})["url"]
            elapsed, status = warm.call("POST /scans/verify " + json.dumps({"url": url}, separators=(",", ":")))
            results.append((("chip", "warm"), elapsed, status == 200, status))
            time.sleep(pause)
            elapsed, verdict = daemon.verify(PRINTED_CODE)
            results.append((("printed", "daemon"), elapsed, verdict["outcome"] == "identified", verdict))
            time.sleep(pause)
            elapsed, status = warm.call("GET /passport/SN-00042?tier=public")
            results.append((("printed", "warm"), elapsed, status == 200, status))
            time.sleep(pause)
            if tap == 0:
                continue  # the warm-up
            for key, elapsed, good, what in results:
                samples[key].append(elapsed)
                if not good:
                    failures.append(f"{key[0]} {key[1]}: {what}")
        resident = daemon.resident_mib()

        print(f"bench-network: {options.taps} taps each, round trip {options.rtt_ms:g} ms "
              f"(sandbox behind a TLS end and a delaying link; TCP_NODELAY on every hop)")
        print(f"{'':22}{'p50':>22}{'p99':>22}{'daemon/warm p50':>18}")
        for kind, title in (("chip", "chip verify"), ("printed", "printed code")):
            reference = statistics.median(samples[(kind, "warm")])
            for who, name in (("daemon", "daemon"), ("warm", "warm client")):
                values = samples[(kind, who)]
                p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
                cells = [f"{p50 * 1000:8.1f} ms {p50 / rtt:5.2f} RTT", f"{p99 * 1000:8.1f} ms {p99 / rtt:5.2f} RTT"]
                ratio = f"{p50 / reference:.2f}×" if who == "daemon" else ""
                print(f"{title if who == 'daemon' else '':14}{name:<12}{cells[0]:>20}{cells[1]:>22}{ratio:>14}")
        goal50, goal99 = 1.2 * rtt + 0.005, 1.5 * rtt + 0.010
        verdicts = []
        for kind in ("chip", "printed"):
            values = samples[(kind, "daemon")]
            met = percentile(values, 0.5) <= goal50 and percentile(values, 0.99) <= goal99
            verdicts.append(f"{kind}: {'met' if met else 'MISSED'}")
        print(f"goal (daemon): p50 <= 1.2 RTT + 5 ms = {goal50 * 1000:.1f} ms, p99 <= 1.5 RTT + 10 ms = {goal99 * 1000:.1f} ms; "
              + ", ".join(verdicts))
        print(f"daemon resident memory after the taps: {resident:.1f} MiB")
        if failures:
            print("calls that did not get the expected answer:\n  " + "\n  ".join(failures))
            return 1
        return 0
    finally:
        if warm:
            warm.stop()
        if daemon:
            daemon.stop()
        for helper in helpers:
            helper.stdin.close()
            helper.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
