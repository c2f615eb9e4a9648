#!/usr/bin/python3
"""`make bench-fleet`: N stations (a daemon and a sealtrust-mqtt each) on one mosquitto, through a broker restart and a
broker pause mid-burst (or, with --scenarios steady, no outage: the broker's load), beside mosquitto_pub publishing the same events in the same run.

Each station gets CODES foreign codes through `verify`, one every INTERVAL seconds (2 events each). One second into
the burst the broker is stopped (SIGTERM, then a new one on the same persistence OUTAGE seconds later) or paused
(SIGSTOP for OUTAGE seconds). The same connection that sends the codes follows the station's events and hands each
line, as it comes, to a `mosquitto_pub -l -q 1` of that station (the reference: the broker's own client, no repair).

Measured for each scenario:
- with steady: the events delivered per second at the subscriber and the broker's CPU time per 1,000 of them;
- the bridges' events: missing at the consumer (`sealtrust-mqtt watch --output`) before repair (the ranges it had to
  ask for) and after (what its files lack once every gap is repaired or the wait ends), repeats it dropped;
- the reference's events: missing and repeated at a persistent QoS 1 mosquitto_sub;
- time from the broker's return until every station is online again (its retained status) and until every gap is
  repaired; the bridges' resident memory (each, idle before the burst and at its peak);
- with --tap, every PUBLISH and PUBACK between the bridges and the broker, through a recording proxy, and the watch
  left out (no repair): each event missing at the subscriber is then shown acknowledged by the broker or not.
"""
import argparse, asyncio, json, os, selectors, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time

BIN = os.environ.get("FLEET_BIN", ".build/release")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, condition, timeout=60.0, step=0.05):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench-fleet: timed out: {what}")
        time.sleep(step)


def rss_kib(pid, field="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


def cpu_seconds(pid):
    """User and system time of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Broker:
    def __init__(self, directory, port, started, debug=False):
        self.directory, self.port, self.started = directory, port, started
        self.conf = os.path.join(directory, "mosquitto.conf")
        user = os.environ.get("USER") or "root"
        with open(self.conf, "w") as f:
            f.write(f"user {user}\nallow_anonymous true\npersistence true\npersistence_location {directory}/\n"
                    f"max_queued_messages 0\nlog_dest file {directory}/mosquitto.log\nlog_type error\nlog_type warning\n"
                    f"log_type notice\n{'log_type all' + chr(10) if debug else ''}autosave_interval 1\nlistener {port} 127.0.0.1\n")
        self.process = None

    def start(self):
        self.process = subprocess.Popen(["/usr/sbin/mosquitto", "-c", self.conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.started.append(self.process)
        wait_until("mosquitto listening", lambda: self.accepts(), 10)
        return time.monotonic()

    def accepts(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(15)


class Station:
    """A daemon, its socket client (verify and watch) and the reference publisher fed from it."""

    def __init__(self, index, root, broker_port, bridge_port, prefix):
        self.name = f"s{index:03d}"
        self.dir = os.path.join(root, self.name)
        os.makedirs(self.dir + "/state")
        self.socket_path = self.dir + "/scand.sock"
        self.daemon = subprocess.Popen([f"{BIN}/sealtrust-scand", "--socket", self.socket_path, "--journal", self.dir + "/journal",
                                        "--nfc", "none", "--camera", "none", "--station", self.name, "--log-level", "warning"],
                                       stdout=subprocess.DEVNULL, stderr=open(self.dir + "/daemon.log", "w"))
        self.bridge_args = [f"{BIN}/sealtrust-mqtt", "--socket", self.socket_path, "--url", f"mqtt://127.0.0.1:{bridge_port}",
                            "--state-dir", self.dir + "/state", "--topic-prefix", prefix]
        self.broker_port = broker_port
        self.bridge = None
        self.reference = None
        self.events = 0

    def start_bridge(self, notify):
        """The bridge, its STATUS= lines read as systemd would (the moment its broker session is accepted)."""
        path = self.dir + "/notify.sock"
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(path)
        notify.register(self.notify, selectors.EVENT_READ, self)
        self.statuses = []
        self.wall_statuses = []
        self.bridge = subprocess.Popen(self.bridge_args, stdout=subprocess.DEVNULL, stderr=open(self.dir + "/bridge.log", "w"),
                                       env=dict(os.environ, NOTIFY_SOCKET=path))

    def connect(self):
        wait_until(f"{self.name} listening", lambda: os.path.exists(self.socket_path), 30)
        self.client = socket.socket(socket.AF_UNIX)
        self.client.connect(self.socket_path)
        self.reader = self.client.makefile("rb")
        self.reader.readline()  # hello
        self.client.sendall(b'{"cmd":"watch","events":["scan","verdict"]}\n')
        self.reference = subprocess.Popen(["/usr/bin/mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.broker_port), "-q", "1", "-l",
                                           "-i", f"ref-{self.name}", "-t", f"ref/{self.name}/event"],
                                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=open(self.dir + "/reference.log", "w"))
        threading.Thread(target=self.forward, daemon=True).start()

    def forward(self):
        """Every event line, as the daemon sends it, to the reference publisher."""
        for line in self.reader:
            if b'"seq":' not in line:
                continue
            self.events += 1
            try:
                self.reference.stdin.write(line)
                self.reference.stdin.flush()
            except OSError:
                return

    def burst(self, codes, interval, tag):
        start = time.monotonic()
        for i in range(codes):
            self.client.sendall(f'{{"cmd":"verify","id":"{tag}-{i}","raw":"FOREIGN-{self.name}-{tag}-{i}"}}\n'.encode())
            due = start + (i + 1) * interval
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)


class Subscriber:
    """A persistent QoS 1 mosquitto_sub with a receive time on every line."""

    def __init__(self, port, path, topics, client_id):
        self.path = path
        self.process = subprocess.Popen(["/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-c", "-i", client_id,
                                         "-F", "%U %t %p"] + sum((["-t", t] for t in topics), []),
                                        stdout=open(path, "w"), stderr=subprocess.DEVNULL)

    def lines(self):
        with open(self.path, "rb") as f:
            for raw in f:
                parts = raw.rstrip(b"\n").split(b" ", 2)
                if len(parts) == 3:
                    yield float(parts[0]), parts[1].decode(), parts[2]

def seq_of(payload):
    marker = payload.find(b'"seq":')
    if marker < 0:
        return None
    digits = payload[marker + 6:].split(b",", 1)[0].split(b"}", 1)[0]
    return int(digits) if digits.isdigit() else None


# The recording proxy (--tap): MQTT framing both ways, PUBLISH seqs and packet ids, PUBACK packet ids.
class Tap:
    def __init__(self, upstream_port, log_path):
        self.upstream_port, self.port = upstream_port, free_port()
        self.log = open(log_path, "w")
        self.connection = 0
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        asyncio.run_coroutine_threadsafe(self.serve(), self.loop).result()

    async def serve(self):
        self.server = await asyncio.start_server(self.accept, "127.0.0.1", self.port)

    async def accept(self, reader, writer):
        self.connection += 1
        number = self.connection
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self.relay(reader, up_writer, number, "c>b"), self.relay(up_reader, writer, number, "b>c"),
                             return_exceptions=True)

    async def relay(self, reader, writer, number, direction):
        pending = b""
        try:
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                pending += chunk
                while len(pending) >= 2:
                    length, multiplier, index = 0, 1, 1
                    while index < len(pending):
                        length += (pending[index] & 0x7F) * multiplier
                        multiplier *= 128
                        if pending[index] & 0x80 == 0:
                            break
                        index += 1
                    end = index + 1 + length
                    if index >= len(pending) or len(pending) < end:
                        break
                    packet, pending = pending[:end], pending[end:]
                    kind = packet[0] >> 4
                    body = packet[index + 1:]
                    if kind == 3 and (packet[0] >> 1) & 3 == 1:
                        topic_length = body[0] << 8 | body[1]
                        topic = body[2:2 + topic_length].decode(errors="replace")
                        pid = body[2 + topic_length] << 8 | body[3 + topic_length]
                        self.log.write(f"{time.time():.6f} {number} {direction} PUBLISH {pid} {topic} {seq_of(body)}\n")
                    elif kind == 4:
                        self.log.write(f"{time.time():.6f} {number} {direction} PUBACK {body[0] << 8 | body[1]}\n")
                    writer.write(packet)
                await writer.drain()
        finally:
            self.log.flush()
            writer.close()


def follow_statuses(notify):
    """Records each bridge's STATUS= lines (monotonic and wall time) from its notify socket, forever (a daemon thread)."""
    while True:
        for key, _ in notify.select():
            text = key.fileobj.recv(4096).decode(errors="replace")
            for line in text.split("\n"):
                if line.startswith("STATUS="):
                    key.data.statuses.append((time.monotonic(), line[7:]))
                    key.data.wall_statuses.append((time.time(), line[7:]))


def watch_output_complete(root, station, per_station):
    """The watch's output for `station` holds every seq of the run."""
    try:
        with open(f"{root}/out/{station.name}.jsonl", "rb") as f:
            return sum(1 for line in f if b'"seq":' in line) >= per_station
    except OSError:
        return False


def missing_and_repeats(got, per_station):
    """Of seqs 1...per_station, those `got` lacks, and how many it holds twice or more."""
    distinct = set(got)
    return [q for q in range(1, per_station + 1) if q not in distinct], len(got) - len(distinct)


def asked_again(watch_log):
    """The (station, seq) pairs the watch found missing and asked for again, from its log."""
    asked = set()
    for line in watch_log.splitlines():
        if "missing; asking again" in line:
            station = line.split("station ")[1].split(":")[0]
            a, b = line.split("events ")[1].split(" missing")[0].split(" to ")
            asked.update((station, q) for q in range(int(a), int(b) + 1))
    return asked


def acknowledged_by_broker(tap_log):
    """(topic, seq) pairs the broker acknowledged: a PUBLISH from a bridge, then a PUBACK of its packet id, same connection."""
    waiting, acknowledged = {}, set()
    with open(tap_log) as f:
        for line in f:
            parts = line.split()
            if parts[2] == "c>b" and parts[3] == "PUBLISH" and parts[6] != "None":
                waiting[(parts[1], parts[4])] = (parts[5].split("/")[1], int(parts[6]))
            elif parts[2] == "b>c" and parts[3] == "PUBACK":
                published = waiting.pop((parts[1], parts[4]), None)
                if published:
                    acknowledged.add(published)
    return acknowledged


def run(args, scenario):
    """One scenario; every process it started is stopped, also when it fails."""
    started = []
    root = tempfile.mkdtemp(prefix=f"fleet-{scenario}-", dir="/dev/shm")
    try:
        return measure(args, scenario, started, root)
    finally:
        for process in started:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.terminate()
        for process in started:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def measure(args, scenario, started, root):
    print(f"bench-fleet: {scenario}, {args.stations} stations, in {root}", file=sys.stderr, flush=True)
    broker = Broker(root, free_port(), started, args.broker_debug)
    broker.start()
    tap = Tap(broker.port, root + "/tap.log") if args.tap else None
    bridge_port = tap.port if tap else broker.port
    stations = [Station(i, root, broker.port, bridge_port, "fleet") for i in range(args.stations)]
    started += [s.daemon for s in stations]
    raw = Subscriber(broker.port, root + "/raw.out", ["fleet/+/event/#", "fleet/+/status", "ref/+/event"], "fleet-raw")
    started.append(raw.process)
    watch = None
    if not tap and not args.no_repair:
        watch_log = open(root + "/watch.log", "w")
        watch = subprocess.Popen([f"{BIN}/sealtrust-mqtt", "watch", "--url", f"mqtt://127.0.0.1:{broker.port}", "--topic-prefix", "fleet",
                                  "--output", root + "/out"], stdout=subprocess.DEVNULL, stderr=watch_log)
        started.append(watch)
    notify = selectors.DefaultSelector()
    for station in stations:
        station.connect()
        station.start_bridge(notify)
        started += [station.reference, station.bridge]
    threading.Thread(target=follow_statuses, args=(notify,), daemon=True).start()
    per_station = 2 * args.codes
    wait_until("every bridge online", lambda: sum(1 for _, t, p in raw.lines() if t.endswith("/status") and p.startswith(b'{"state":"online"'))
               >= len(stations), 60, 0.2)
    time.sleep(1)  # idle: the bridges' resident memory before the burst
    idle = [rss_kib(s.bridge.pid) for s in stations]

    threads = [threading.Thread(target=s.burst, args=(args.codes, args.interval, scenario)) for s in stations]
    for t in threads:
        t.start()
    broker_cpu = cpu_seconds(broker.process.pid)
    time.sleep(1)
    if scenario == "restart":
        broker.stop()
        time.sleep(args.outage)
        back = broker.start()
    elif scenario == "pause":
        broker.process.send_signal(signal.SIGSTOP)
        time.sleep(args.outage)
        broker.process.send_signal(signal.SIGCONT)
        back = time.monotonic()
    else:
        back = time.monotonic()
    for t in threads:
        t.join()
    wait_until("every daemon journaled the burst", lambda: all(s.events >= per_station for s in stations), 120, 0.2)

    # Every station online again: the bridge's first STATUS=online after the broker's return (a pause may not have
    # ended its session at all: then it is online at the return).
    def online_again(station):
        if scenario == "steady":
            return 0.0
        if scenario == "pause" and not any(not text.startswith("online") for at, text in station.statuses if at >= back - args.outage):
            return 0.0
        return next((at - back for at, text in station.statuses if at >= back and text.startswith("online")), None)
    wait_until("every station online again", lambda: all(online_again(s) is not None for s in stations), 120, 0.2)
    online = sorted(online_again(s) for s in stations)

    def complete(station):
        return watch_output_complete(root, station, per_station)
    repaired_at = None
    if watch:
        deadline = time.monotonic() + args.repair_timeout
        while time.monotonic() < deadline and not all(complete(s) for s in stations):
            time.sleep(0.2)
        repaired_at = time.monotonic() - back if all(complete(s) for s in stations) else None
    else:
        wait_until("every bridge's acked seq at the end", lambda: all(
            open(s.dir + "/state/acked-seq").read().strip() == str(per_station) for s in stations), 120, 0.2)
    time.sleep(2)  # the subscriber's last lines
    peak = [rss_kib(s.bridge.pid, "VmHWM") for s in stations]
    if scenario == "steady":
        # The broker's share of a core while the fleet's events went through it (no outage: one broker's capacity).
        received = sorted(at for at, topic, _ in raw.lines() if topic.startswith("fleet/") and not topic.endswith("/status"))
        span = received[-1] - received[0]
        used = cpu_seconds(broker.process.pid) - broker_cpu
        broker_load = {"offered_events_per_s": round(len(stations) * 2 / args.interval),
                       "delivered_events_per_s": round(len(received) / span), "delivery_span_s": round(span, 1),
                       "broker_cpu_s": round(used, 2), "broker_cpu_ms_per_1000_events": round(1e6 * used / len(received), 1)}

    # The subscriber's view: bridge events (before any repair when --tap) and the reference's.
    seen = {"fleet": {}, "ref": {}}
    for _, topic, payload in raw.lines():
        levels = topic.split("/")
        seq = seq_of(payload)
        if seq is None or levels[-1] == "status":
            continue
        seen[levels[0]].setdefault(levels[1], []).append(seq)
    def account(stream):
        missing = repeats = 0
        missing_seqs = []
        for s in stations:
            lost, twice = missing_and_repeats(seen[stream].get(s.name, []), per_station)
            repeats += twice
            missing += len(lost)
            missing_seqs += [(s.name, q) for q in lost]
        return missing, repeats, missing_seqs

    result = {"scenario": scenario, "stations": len(stations), "events": per_station * len(stations)}
    result["reference_missing"], result["reference_repeats"], _ = account("ref")
    subscriber_missing, subscriber_repeats, missing_seqs = account("fleet")
    if watch:
        watch.send_signal(signal.SIGTERM)
        watch.wait(10)
        watch_log.close()
        text = open(root + "/watch.log").read()
        asked = asked_again(text)
        summary = [l for l in text.splitlines() if "events in order" in l]
        result["missing_before_repair"] = len(asked)
        result["replay_requests"] = sum(1 for line in text.splitlines() if "missing; asking again" in line)
        result["missing_after_repair"] = sum(per_station - min(per_station, sum(1 for l in open(f"{root}/out/{s.name}.jsonl", "rb") if b'"seq":' in l))
                                             for s in stations if os.path.exists(f"{root}/out/{s.name}.jsonl")) + \
            sum(per_station for s in stations if not os.path.exists(f"{root}/out/{s.name}.jsonl"))
        result["watch"] = summary[-1].split(": ", 1)[-1] if summary else text[-300:]
        result["all_gaps_repaired_s_after_return"] = None if repaired_at is None else round(repaired_at, 1)
    if scenario == "steady":
        result.update(broker_load)
    result["subscriber_missing_bridge_events"] = subscriber_missing
    result["subscriber_repeats_bridge_events"] = subscriber_repeats
    result["online_again_s_p50"] = round(statistics.median(online), 1)
    result["online_again_s_max"] = round(online[-1], 1)
    result["bridge_rss_idle_mib_p50"] = round(statistics.median(idle) / 1024, 1)
    result["bridge_rss_peak_mib_max"] = round(max(peak) / 1024, 1)
    daemon_rss = [rss_kib(s.daemon.pid) for s in stations]
    result["daemon_rss_mib_p50"] = round(statistics.median(daemon_rss) / 1024, 1)
    if tap:
        acknowledged = acknowledged_by_broker(root + "/tap.log")
        result["tap_missing_acknowledged_by_broker"] = sum(1 for m in missing_seqs if m in acknowledged)
        result["tap_missing_never_acknowledged"] = sum(1 for m in missing_seqs if m not in acknowledged)
        result["tap_examples"] = [f"{n}:{q}" for n, q in missing_seqs[:10]]
    if args.keep:
        result["folder"] = root
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stations", type=int, default=100)
    parser.add_argument("--codes", type=int, default=300)
    parser.add_argument("--interval", type=float, default=0.01)
    parser.add_argument("--outage", type=float, default=10)
    parser.add_argument("--scenarios", default="restart,pause")
    parser.add_argument("--repair-timeout", type=float, default=120)
    parser.add_argument("--tap", action="store_true", help="record PUBLISH/PUBACK through a proxy, no repair")
    parser.add_argument("--no-repair", action="store_true", help="no watch: the persistent subscriber's view of the bridges alone")
    parser.add_argument("--broker-debug", action="store_true", help="mosquitto logs every packet (log_type all) in mosquitto.log")
    parser.add_argument("--keep", action="store_true", help="keep each scenario's folder (logs, journals, the watch's files)")
    args = parser.parse_args()
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    for scenario in args.scenarios.split(","):
        print(json.dumps(run(args, scenario)), flush=True)


if __name__ == "__main__":
    main()
