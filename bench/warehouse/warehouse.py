#!/usr/bin/python3
"""`make bench-warehouse` (issue 44): a receiving dock's lanes on one daemon, and an API outage in the middle.

Four lanes on one sealtrust-scand run with `--on-api-outage defer`:
- dock1, dock2: NFC, the two virtual readers of a private pcscd (scripts/private-pcscd.sh), a virtual NTAG 424 DNA on
  each (tools/vtag), tapped as fast as the lane's rate allows (a tap is presented, its verdict awaited, the tag removed;
  vtag keeps a removed tag out 0.6 s so that pcscd sees it leave, so an NFC lane does a tap every two of pcscd's
  400 ms polls, about 1.2 a second; pcscd polls both virtual readers on the same tick, so the two NFC lanes' taps
  arrive together, tap after tap, whenever they are presented);
- dock3, dock4: handheld scanners on serial lines (a pseudo-terminal each, `--scanner serial:PATH`), each line a fresh
  signed chip URL of its own chip (tools/vtag/chips.py), at RATE scans a second.
The machine's pcscd has two virtual readers only, so two lanes are handhelds; every lane's code is a chip's proof, so
every scan goes to the API and every one may be deferred.

The API is the sandbox (tools/sandbox) with 40 ms added to each verify (its `delay_s` fault), its rate-limit window and
the daemon's (`--api-rate-window`) cut to 0.5 s, so the contract's 30 verifies per window do not turn the load into
`too_many_calls`.

The reference is each lane alone for REFERENCE seconds in two halves that bracket the lanes together: half of it
each, dock1 to dock4; all four together for DURATION seconds, OUTAGE seconds in their middle the sandbox stopped
(SIGTERM) and started again on the same port; half of it each again, dock4 to dock1. So the reference has about as many
scans as the lanes together outside the outage, in the same quarter of an hour of a shared machine.

Measured, on lines of their own:
- each lane's verdict latency p50 and p99, alone and together (scans before the outage and after the drain), and the
  ratio of the p99s. The latency is the daemon's own `latency_ms` (from the tag's arrival on the reader, or the
  scanner's line end, to the verdict); for the handheld lanes also the client-observed time, from the line written on
  the pseudo-terminal to the verdict read on the socket;
- proofs presented twice: every verify request both sandboxes recorded (read from the first just before it is stopped),
  by chip URL;
- deferred verdicts, late verdicts, the time from the API's return to the first late verdict and to the last one, and
  scans left without a final verdict.
"""
import argparse, json, os, signal, socket, statistics, subprocess, sys, tempfile, threading, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "vtag"))
import chips  # noqa: E402  (tools/vtag/chips.py)

BIN = os.environ.get("WAREHOUSE_BIN", os.path.join(ROOT, ".build", "release"))
PY = "/usr/bin/python3"


def wait_until(what, condition, timeout=60.0, step=0.02):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench-warehouse: timed out: {what}")
        time.sleep(step)


def paced(rate, until, offset=0.0, catch_up=True):
    """Yields at moments 1/RATE apart from now + OFFSET until UNTIL. With catch_up False, a step that overran its
    period starts the next period when it ends (a tap cannot be hurried); else the moments stay on their grid."""
    due = time.monotonic() + offset
    while due < until:
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        yield
        due = due + 1 / rate if catch_up else max(due + 1 / rate, time.monotonic())


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))]


class Sandbox:
    def __init__(self, directory, window):
        self.directory, self.window, self.port, self.process, self.runs = directory, window, 0, None, 0

    def start(self):
        self.runs += 1
        self.process = subprocess.Popen([PY, os.path.join(ROOT, "tools/sandbox/sandbox.py"), "--port", str(self.port),
                                         "--window", str(self.window), "--exit-with-stdin",
                                         "--fault", json.dumps({"path": "/scans/verify", "delay_s": 0.04})],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=open(f"{self.directory}/sandbox-{self.runs}.log", "w"))
        line = self.process.stdout.readline().decode()
        if not line.startswith("LISTENING "):
            raise SystemExit(f"bench-warehouse: the sandbox did not start: {line!r}")
        self.port = int(line.split()[1])
        return time.monotonic()

    def verify_urls(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_sandbox/requests", timeout=30) as answer:
            requests = json.load(answer)
        urls = []
        for request in requests:
            if request["path"] == "/scans/verify":
                try:
                    urls.append(json.loads(request["body"])["url"])
                except (ValueError, KeyError, TypeError):
                    urls.append(request["body"])
        return urls

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(15)


class Events:
    """The daemon's scans and verdicts, each with the moment it was read off the socket."""

    def __init__(self, socket_path):
        self.client = socket.socket(socket.AF_UNIX)
        self.client.connect(socket_path)
        self.reader = self.client.makefile("rb")
        self.hello = json.loads(self.reader.readline())
        self.client.sendall(b'{"cmd":"watch","events":["scan","verdict","read_error"]}\n')
        self.lock = threading.Lock()
        self.scans = {}      # scan_id -> {"lane", "raw", "at", "phase"}
        self.verdicts = {}   # scan_id -> [(received, event)]
        self.read_errors = 0
        self.seen = {}       # lane -> scans and read errors seen
        self.waiters = {}    # lane -> callback(event)
        self.phase = None
        threading.Thread(target=self.follow, daemon=True).start()

    def follow(self):
        for line in self.reader:
            received = time.monotonic()
            try:
                event = json.loads(line)
            except ValueError:
                continue
            kind = event.get("type")
            lane = event.get("lane")
            with self.lock:
                if kind in ("scan", "read_error"):
                    self.seen[lane] = self.seen.get(lane, 0) + 1
                if kind == "scan":
                    self.scans[event["scan_id"]] = {"lane": lane, "raw": event.get("raw"), "at": received, "phase": self.phase,
                                                    "written": event.get("at")}
                elif kind == "verdict":
                    self.verdicts.setdefault(event.get("scan_id"), []).append((received, event))
                elif kind == "read_error":
                    self.read_errors += 1
                waiter = self.waiters.get(lane)
            if waiter:
                waiter(kind, event)


class NFCLane:
    """A virtual tag on one reader: present, wait for the verdict of that tap (or its read error), remove."""

    def __init__(self, name, port, chip, directory, events):
        self.name, self.events, self.kind = name, events, "nfc"
        self.tag = subprocess.Popen([PY, os.path.join(ROOT, "tools/vtag/vtag.py"), "--port", str(port), "--chip", chip],
                                    stdin=subprocess.PIPE, stdout=open(f"{directory}/vtag-{name}.log", "w"),
                                    stderr=subprocess.STDOUT, env=dict(os.environ, TMPDIR=directory))
        self.done = threading.Event()
        self.current = None
        self.presented_at = None
        self.presented = {}  # scan_id -> moment its tap was presented
        self.sent = {}
        self.count = 0  # taps presented
        events.waiters[name] = self.seen

    def seen(self, kind, event):
        if kind == "scan":
            self.current = event["scan_id"]
            self.presented[self.current] = self.presented_at
        elif (kind == "verdict" and event.get("scan_id") == self.current and not event.get("late")) or kind == "read_error":
            self.done.set()

    def command(self, line):
        self.tag.stdin.write((line + "\n").encode())
        self.tag.stdin.flush()

    def run(self, rate, until, offset=0.0):
        for _ in paced(rate, until, offset, catch_up=False):
            self.done.clear()
            self.count += 1
            self.presented_at = time.monotonic()
            self.command("present")
            self.done.wait(30)
            self.command("remove")

    def stop(self):
        self.command("quit")
        self.tag.wait(15)


class SerialLane:
    """A handheld scanner on a pseudo-terminal: a line of a fresh signed chip URL every 1/RATE seconds."""

    def __init__(self, name, chip, events):
        self.name, self.events, self.kind = name, events, "serial"
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self.chip = chips.load_chips()[chip]
        self.counter = 0
        self.sent = {}  # URL -> moment its line end was written
        self.count = 0  # lines written

    def run(self, rate, until, offset=0.0):
        for _ in paced(rate, until, offset):
            self.counter += 1
            url = chips.sun_url(self.chip, self.counter)
            self.sent[url] = time.monotonic()
            self.count += 1
            os.write(self.master, url.encode() + b"\r")

    def stop(self):
        pass


def final(verdicts):
    """The scan's last verdict that is not `deferred`, or None."""
    for received, event in reversed(verdicts):
        if event.get("outcome") != "deferred":
            return received, event
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=2.0, help="scans a second per lane (default 2)")
    parser.add_argument("--duration", type=float, default=300.0, help="seconds of the four lanes together (default 300)")
    parser.add_argument("--outage", type=float, default=60.0, help="seconds the API is away, in the middle (default 60)")
    parser.add_argument("--reference", type=float, default=120.0,
                        help="seconds of each lane alone, half before the lanes together and half after (default 120)")
    parser.add_argument("--window", type=float, default=0.5, help="rate-limit window of the sandbox and the daemon (s)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--strace", action="store_true",
                        help="attach strace -f -tt to the daemon (its disk and network calls), kept in the scratch folder")
    options = parser.parse_args()

    # A SIGTERM (make interrupted, a killed run) stops the run through `finally`, which stops what it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("bench-warehouse: stopped by SIGTERM"))
    directory = tempfile.mkdtemp(prefix="sealtrust-warehouse.")
    started = []
    try:
        pcscd = subprocess.Popen([os.path.join(ROOT, "scripts/private-pcscd.sh")], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=open(f"{directory}/pcscd.log", "w"))
        started.append(pcscd)
        ready = pcscd.stdout.readline().decode().split()
        if not ready or ready[0] != "READY":
            raise SystemExit(f"bench-warehouse: the private pcscd did not start: {ready}")
        fields = dict(part.split("=", 1) for part in ready[1:])
        vpcd_port = int(fields["port"])

        sandbox = Sandbox(directory, options.window)
        sandbox.start()
        started.append(sandbox.process)

        handhelds = [SerialLane("dock3", "spare-a", None), SerialLane("dock4", "spare-b", None)]
        socket_path = f"{directory}/scand.sock"
        lanes_flags = ["--lane", "dock1=nfc:Virtual PCD 00 00", "--lane", "dock2=nfc:Virtual PCD 00 01"]
        for lane in handhelds:
            lanes_flags += ["--lane", f"{lane.name}=serial:{lane.path}"]
        daemon = subprocess.Popen([f"{BIN}/sealtrust-scand", "--socket", socket_path, "--journal", f"{directory}/journal",
                                   "--api-base", f"http://127.0.0.1:{sandbox.port}", "--api-rate-window", str(options.window),
                                   "--nfc", "Virtual PCD", "--camera", "none", "--feedback", "none",
                                   "--scanner", f"serial:{handhelds[0].path}", "--scanner", f"serial:{handhelds[1].path}",
                                   "--on-api-outage", "defer", "--station", "warehouse-bench", "--log-level", "warning"]
                                  + lanes_flags,
                                  stdout=subprocess.DEVNULL, stderr=open(f"{directory}/daemon.log", "w"),
                                  env=dict(os.environ, PCSCLITE_CSOCK_NAME=fields["socket"]))
        started.append(daemon)
        if options.strace:
            # Attached to the daemon's threads, not its parent: stopping strace leaves the daemon to stop as it would.
            started.append(subprocess.Popen(["strace", "-f", "-tt", "-p", str(daemon.pid), "-o", f"{directory}/daemon.strace",
                                             "-e", "trace=fdatasync,connect,sendto,recvfrom,write"],
                                            stderr=subprocess.DEVNULL))
        wait_until("the daemon's socket", lambda: os.path.exists(socket_path) or daemon.poll() is not None, 60)
        if daemon.poll() is not None:
            raise SystemExit(f"bench-warehouse: the daemon exited: {open(directory + '/daemon.log').read()}")
        time.sleep(0.2)
        events = Events(socket_path)
        for lane in handhelds:
            lane.events = events
        lanes = [NFCLane("dock1", vpcd_port, "authentic", directory, events),
                 NFCLane("dock2", vpcd_port + 1, "no-seal", directory, events)] + handhelds
        for lane in lanes[:2]:
            started.append(lane.tag)

        def alone(order):
            """Each lane alone for half its reference, in `order`."""
            for lane in order:
                events.phase = ("alone", lane.name)
                lane.run(options.rate, time.monotonic() + options.reference / 2)
                time.sleep(1)

        # The machine's 1-minute load average every 5 s, by phase: the machine is shared.
        loads = {}
        sampling = threading.Event()

        def sample_load():
            while not sampling.wait(5):
                phase = "together" if events.phase and events.phase[0] == "together" else \
                    ("alone, after" if "together" in loads else "alone, before")
                loads.setdefault(phase, []).append(float(open("/proc/loadavg").read().split()[0]))
        threading.Thread(target=sample_load, daemon=True).start()

        # The reference's first half: each lane alone, dock1 to dock4.
        alone(lanes)

        # Together, the API cut in the middle.
        events.phase = ("together", None)
        start = time.monotonic()
        until = start + options.duration
        # The lanes' clerks are not in step: each starts a quarter of a period after the one before.
        threads = [threading.Thread(target=lane.run, args=(options.rate, until, index / (len(lanes) * options.rate)))
                   for index, lane in enumerate(lanes)]
        for thread in threads:
            thread.start()
        time.sleep(max(0.0, (options.duration - options.outage) / 2))
        first_urls = sandbox.verify_urls()
        cut = time.monotonic()
        sandbox.stop()
        time.sleep(options.outage)
        back = sandbox.start()
        started.append(sandbox.process)
        for thread in threads:
            thread.join()

        def all_seen():
            with events.lock:
                return all(events.seen.get(lane.name, 0) >= lane.count for lane in lanes)
        try:
            wait_until("every scan sent seen on the socket", all_seen, 30, 0.05)
        except SystemExit as missing:
            print(missing)

        def unfinished():
            with events.lock:
                return [scan_id for scan_id, scan in events.scans.items()
                        if scan["phase"] and final(events.verdicts.get(scan_id, [])) is None]
        try:
            wait_until("every scan's final verdict", lambda: not unfinished(), 180, 0.2)
        except SystemExit:
            pass
        # The reference's second half: each lane alone again, dock4 to dock1, so that the reference brackets the
        # together run and the machine's load in those minutes weighs on both alike.
        time.sleep(1)
        alone(list(reversed(lanes)))
        try:
            wait_until("every scan sent seen on the socket", all_seen, 30, 0.05)
            wait_until("every scan's final verdict", lambda: not unfinished(), 30, 0.2)
        except SystemExit as missing:
            print(missing)
        sampling.set()
        second_urls = sandbox.verify_urls()
        left = len(unfinished())

        # Figures.
        with events.lock:
            scans = dict(events.scans)
            verdicts = {k: list(v) for k, v in events.verdicts.items()}
        lane_of = {lane.name: lane for lane in lanes}
        wall = time.time() - time.monotonic()

        def asked(scan_id, scan):
            """When the bench presented the scan's tag, or wrote its line, in seconds from the start together."""
            lane = lane_of.get(scan["lane"])
            moment = (lane.presented.get(scan_id) if lane and lane.kind == "nfc"
                      else lane.sent.get(scan["raw"]) if lane else None)
            return None if moment is None else round(moment - start, 3)
        # Every scan and its verdicts, times in seconds from the start together (`wall`: the start's Unix time).
        with open(f"{directory}/scans.jsonl", "w") as f:
            f.write(json.dumps({"start_wall": start + wall}) + "\n")
            for scan_id, scan in scans.items():
                f.write(json.dumps({"scan_id": scan_id, "lane": scan["lane"], "phase": scan["phase"],
                                    "asked": asked(scan_id, scan),
                                    "at": round(scan["at"] - start, 3), "written": scan["written"], "verdicts": [
                                        {"at": round(r - start, 3), "written": e.get("at"), "outcome": e.get("outcome"),
                                         "latency_ms": e.get("latency_ms"),
                                         "late": e.get("late", False)} for r, e in verdicts.get(scan_id, [])]}) + "\n")
        late = [(received, event) for history in verdicts.values() for received, event in history if event.get("late")]
        deferred = [event for history in verdicts.values() for _, event in history if event.get("outcome") == "deferred"]
        drained = max((received for received, _ in late), default=back)
        # The backlog: new scans wait behind the deferred ones, so the queue is empty again only at the first moment
        # after the last late verdict when every scan seen so far has its verdict. Scans from the cut to then are the
        # outage's, reported apart from the lanes' latency.
        def first_final(scan_id):
            found = final(verdicts.get(scan_id, []))
            return found[0] if found else float("inf")
        cleared = drained
        while True:
            waiting = [first_final(s) for s, scan in scans.items() if scan["phase"] and cut <= scan["at"] <= cleared]
            latest = max(waiting, default=cleared)
            if latest <= cleared or latest == float("inf"):
                break
            cleared = latest
        outcomes = {}
        for history in verdicts.values():
            for _, event in history:
                outcomes[event.get("outcome")] = outcomes.get(event.get("outcome"), 0) + 1

        print(f"bench-warehouse: 4 lanes (dock1, dock2: NFC on the 2 virtual readers; dock3, dock4: serial handhelds), "
              f"rate {options.rate:g} scans/s per lane asked, {options.reference:g} s each alone, {options.duration:g} s "
              f"together, API (sandbox, +40 ms per verify) away {options.outage:g} s from t={cut - start:.1f} s, "
              f"drained at t={drained - start:.1f} s, queue empty at t={cleared - start:.1f} s")
        print("load average (1 min, every 5 s): " + "; ".join(
            f"{phase} {min(values):.2f} to {max(values):.2f}" for phase, values in loads.items() if values))
        print("latency: the daemon's latency_ms (source saw the code -> verdict); client: line written on the "
              "pseudo-terminal -> verdict read on the socket (handhelds only)")
        worst = 0.0
        for lane in lanes:
            alone, together, alone_client, together_client = [], [], [], []
            count_together = 0
            for scan_id, scan in scans.items():
                if scan["lane"] != lane.name or not scan["phase"]:
                    continue
                history = verdicts.get(scan_id, [])
                if scan["phase"][0] == "together":
                    count_together += 1
                first = next(((r, e) for r, e in history if not e.get("late")), None)
                if first is None or first[1].get("outcome") == "deferred":
                    continue
                client = None
                if lane.kind == "serial" and scan["raw"] in lane.sent:
                    client = (first[0] - lane.sent[scan["raw"]]) * 1000
                if scan["phase"][0] == "alone":
                    alone.append(first[1].get("latency_ms", float("nan")))
                    if client is not None:
                        alone_client.append(client)
                else:
                    if cut <= scan["at"] <= cleared:
                        continue  # the outage and the drain are measured below
                    together.append(first[1].get("latency_ms", float("nan")))
                    if client is not None:
                        together_client.append(client)
            ratio = percentile(together, 99) / percentile(alone, 99)
            worst = max(worst, ratio)
            print(f"lane {lane.name} ({lane.kind}) latency_ms alone: n={len(alone)} p50={percentile(alone, 50):.1f} "
                  f"p99={percentile(alone, 99):.1f}; together: n={len(together)} p50={percentile(together, 50):.1f} "
                  f"p99={percentile(together, 99):.1f}; p99 ratio {ratio:.2f}; "
                  f"{count_together / options.duration:.2f} scans/s together")
            if alone_client:
                print(f"lane {lane.name} ({lane.kind}) client ms alone: p50={percentile(alone_client, 50):.1f} "
                      f"p99={percentile(alone_client, 99):.1f}; together: p50={percentile(together_client, 50):.1f} "
                      f"p99={percentile(together_client, 99):.1f}; p99 ratio "
                      f"{percentile(together_client, 99) / percentile(alone_client, 99):.2f}")
        print(f"worst lane p99 ratio (together / alone, latency_ms): {worst:.2f} (issue's bound 1.2)")
        # Scans that came while another lane's scan was being taken in: its line journaled and its call started first.
        seen_at = sorted((scan["at"], scan["lane"]) for scan in scans.values() if scan["phase"] and scan["phase"][0] == "together")
        close, apart = [], []
        for scan_id, scan in scans.items():
            if not scan["phase"] or scan["phase"][0] != "together" or cut <= scan["at"] <= cleared:
                continue
            first = next((e for _, e in verdicts.get(scan_id, []) if not e.get("late")), None)
            if first is None or first.get("outcome") == "deferred":
                continue
            latency = first.get("latency_ms", float("nan"))
            near = any(lane != scan["lane"] and abs(at - scan["at"]) <= 0.05 for at, lane in seen_at)
            (close if near else apart).append(latency)
        print(f"together, scans seen within 50 ms of another lane's: n={len(close)} p50={percentile(close, 50):.1f} "
              f"p99={percentile(close, 99):.1f}; the others: n={len(apart)} p50={percentile(apart, 50):.1f} "
              f"p99={percentile(apart, 99):.1f}")
        urls = first_urls + second_urls
        twice = len(urls) - len(set(urls))
        print(f"proofs presented twice: {twice} (of {len(urls)} verify requests: {len(first_urls)} before the stop, "
              f"{len(second_urls)} to the second sandbox)")
        late_of = {e.get("deferred_seq") for _, e in late}
        print(f"deferred verdicts: {len(deferred)}; late verdicts: {len(late)}; deferred without a late verdict: "
              f"{sum(1 for e in deferred if e.get('seq') not in late_of)}")
        if late:
            print(f"API back -> first late verdict: {min(r for r, _ in late) - back:.2f} s; "
                  f"-> last late verdict: {drained - back:.2f} s")
        waited = [first_final(s) - scan["at"] for s, scan in scans.items() if scan["phase"] and back <= scan["at"] <= cleared]
        if waited:
            print(f"API back -> queue empty again (every scan seen has its verdict): {cleared - back:.2f} s; "
                  f"{len(waited)} new scans meanwhile, their verdicts after max {max(waited):.2f} s")
        print(f"scans without a final verdict: {left}; outcomes: {json.dumps(outcomes, sort_keys=True)}; "
              f"read errors: {events.read_errors}")
        for lane in lanes:
            lane.stop()
    finally:
        for process in reversed(started):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
        if options.keep:
            print(f"bench-warehouse: kept {directory}")
        else:
            subprocess.run(["rm", "-rf", directory])


if __name__ == "__main__":
    main()
