#!/usr/bin/python3
"""`make bench-fleet-cluster`: N stations on a 3-node broker cluster on loopback, one node killed (SIGKILL) mid-burst
and started again 30 s later, beside mosquitto_pub publishing the same events in the same run.

The engine is RabbitMQ 3.10 (its MQTT plugin, a persistent subscriber's queue a quorum queue) or, with --engine nats,
NATS 2.9 (MQTT on JetStream, its streams replicated on the three nodes). Each node runs as a plain process of this
benchmark, its data under the run's temporary folder (in /dev/shm unless --dir), its ports free loopback ports; no
system service is used.

Station i's bridge gets the three nodes' URLs, node i mod 3 first, so a third of the fleet is on each node. The
persistent QoS 1 mosquitto_sub and `sealtrust-mqtt watch` are on node 1, which survives; node 3 is killed one second
into the burst (stations on it move to node 1 or 2 by the bridge's failover) and started again on its data 30 s later
(they come back to it). Each station's reference, `mosquitto_pub -l -q 1`, is on the station's own first node and has
no failover.

Measured (as `make bench-fleet`, see fleet.py): missing at the persistent subscriber before any repair (what the
engine and the bridges delivered), at the watch before and after repair, repeats, the reference's missing; for the
stations of the killed node, the time from its death until each bridge's session on another node is accepted
and until that node acknowledges its first event (both from the bridge's STATUS=, once a second); the bridges' memory.
"""
import argparse, datetime, json, os, selectors, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet  # noqa: E402  (Station, Subscriber and the helpers of the one-broker benchmark)
from fleet import (asked_again, follow_statuses, free_port, missing_and_repeats, rss_kib, seq_of,  # noqa: E402
                   wait_until, watch_output_complete)

NODES = 3
KILLED = 2  # node 3: the subscriber and the watch are on node 1
# Waits for the nodes to start, cluster and take messages: minutes on a loaded machine (a CI run beside other work).
SETUP_TIMEOUT = 300


class Node:
    """One broker node: a process group of its own, so that SIGKILL takes the whole node at once."""

    def __init__(self, index, directory):
        self.index, self.directory = index, directory
        os.makedirs(directory, exist_ok=True)
        self.mqtt_port = free_port()
        self.process = None

    def spawn(self, command, env=None):
        self.log = open(os.path.join(self.directory, "node.log"), "a")
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def accepts(self):
        try:
            with socket.create_connection(("127.0.0.1", self.mqtt_port), timeout=0.2):
                return True
        except OSError:
            return False

    def kill(self):
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(15)

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait(10)


class RabbitCluster:
    """RabbitMQ 3.10 nodes fleet-nK@localhost on a private epmd; MQTT's persistent sessions in quorum queues."""

    name = "rabbitmq"
    # 3.10 drops the connection on an MQTT 5 CONNECT instead of refusing it
    bridge_options = ["--mqtt-version", "3.1.1"]

    def __init__(self, root):
        self.root = root
        self.home = os.path.join(root, "home")
        os.makedirs(self.home)
        cookie = os.path.join(self.home, ".erlang.cookie")
        with open(cookie, "w") as f:
            f.write("sealtrustfleetbench")
        os.chmod(cookie, 0o400)
        self.epmd_port = free_port()
        self.epmd = subprocess.Popen(["/usr/bin/epmd", "-port", str(self.epmd_port), "-address", "127.0.0.1"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env())
        self.nodes = [Node(i, os.path.join(root, f"node{i + 1}")) for i in range(NODES)]
        names = [f"fleet-n{i + 1}@localhost" for i in range(NODES)]
        for node, name in zip(self.nodes, names):
            node.name, node.amqp_port, node.dist_port = name, free_port(), free_port()
            with open(os.path.join(node.directory, "rabbitmq.conf"), "w") as f:
                f.write(f"listeners.tcp.1 = 127.0.0.1:{node.amqp_port}\nloopback_users = none\n"
                        f"mqtt.listeners.tcp.1 = 127.0.0.1:{node.mqtt_port}\nmqtt.allow_anonymous = true\n"
                        "mqtt.durable_queue_type = quorum\n"
                        # QoS 1 messages in flight to a subscriber (default 10: a round trip each, and the
                        # subscriber's queue falls minutes behind a fleet's burst)
                        "mqtt.prefetch = 1000\n"
                        "cluster_formation.peer_discovery_backend = classic_config\n"
                        + "".join(f"cluster_formation.classic_config.nodes.{k + 1} = {n}\n" for k, n in enumerate(names))
                        + "log.file.level = info\nlog.console = false\n")

    def env(self, node=None):
        env = dict(os.environ, HOME=self.home, ERL_EPMD_PORT=str(self.epmd_port), ERL_EPMD_ADDRESS="127.0.0.1",
                   RABBITMQ_CONF_ENV_FILE="/dev/null")
        if node:
            d = node.directory
            env.update(RABBITMQ_NODENAME=node.name, RABBITMQ_NODE_IP_ADDRESS="127.0.0.1", RABBITMQ_NODE_PORT=str(node.amqp_port),
                       RABBITMQ_DIST_PORT=str(node.dist_port), RABBITMQ_CONFIG_FILE=d + "/rabbitmq.conf",
                       RABBITMQ_ADVANCED_CONFIG_FILE=d + "/advanced.config", RABBITMQ_MNESIA_BASE=d + "/mnesia",
                       RABBITMQ_LOG_BASE=d + "/log", RABBITMQ_PID_FILE=d + "/rabbit.pid",
                       RABBITMQ_ENABLED_PLUGINS_FILE=d + "/enabled_plugins", RABBITMQ_ENABLED_PLUGINS="rabbitmq_mqtt",
                       RABBITMQ_PLUGINS_EXPAND_DIR=d + "/plugins-expand", RABBITMQ_FEATURE_FLAGS_FILE=d + "/feature_flags",
                       # two cores shared with the fleet: no busy-waiting schedulers; the nodes' distribution on
                       # loopback only
                       RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="+sbwt none +sbwtdcpu none +sbwtdio none "
                                                           "-kernel inet_dist_use_interface {127,0,0,1}")
        return env

    def start(self, node):
        node.spawn(["/usr/lib/rabbitmq/bin/rabbitmq-server"], self.env(node))

    def formed(self):
        answer = subprocess.run(["/usr/lib/rabbitmq/bin/rabbitmqctl", "-n", self.nodes[0].name, "eval",
                                 "length(rabbit_nodes:all_running())."], env=self.env(), capture_output=True, text=True)
        return answer.stdout.strip() == str(NODES)

    def stop(self):
        for node in self.nodes:
            node.stop()
        self.epmd.terminate()
        self.epmd.wait(10)


class NatsCluster:
    """NATS 2.9 nodes with JetStream, a route to each other; MQTT's streams and consumers with three replicas."""

    name = "nats"
    bridge_options = []

    def __init__(self, root):
        self.nodes = [Node(i, os.path.join(root, f"node{i + 1}")) for i in range(NODES)]
        for node in self.nodes:
            node.client_port, node.route_port = free_port(), free_port()
        for node in self.nodes:
            routes = ", ".join(f"nats-route://127.0.0.1:{n.route_port}" for n in self.nodes if n is not node)
            node.conf = os.path.join(node.directory, "nats.conf")
            with open(node.conf, "w") as f:
                f.write(f"server_name: n{node.index + 1}\nlisten: 127.0.0.1:{node.client_port}\n"
                        f"jetstream {{ store_dir: \"{node.directory}/js\" }}\n"
                        f"cluster {{ name: fleet, listen: 127.0.0.1:{node.route_port}, routes: [{routes}] }}\n"
                        f"mqtt {{ listen: 127.0.0.1:{node.mqtt_port}, stream_replicas: 3, consumer_replicas: 3 }}\n")

    def start(self, node):
        node.spawn(["/usr/sbin/nats-server", "-c", node.conf])

    def formed(self):
        # JetStream's meta group has a leader only once the routes are up; MQTT's streams need all three peers.
        return all(publishes(n.mqtt_port, "fleet-probe") for n in self.nodes)

    def stop(self):
        for node in self.nodes:
            node.stop()


def publishes(port, topic):
    """A QoS 1 message through the node, acknowledged: the node takes MQTT sessions (its cluster is formed)."""
    try:
        return subprocess.run(["/usr/bin/mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-i", f"probe-{port}",
                               "-t", topic, "-m", "ready"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=10).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def start_node(cluster, node, timeout=SETUP_TIMEOUT):
    cluster.start(node)
    wait_until(f"{cluster.name} node {node.index + 1} listening", node.accepts, timeout, 0.2)


def run(args):
    started = []
    root = tempfile.mkdtemp(prefix=f"fleet-cluster-{args.engine}-", dir=args.dir)
    cluster = (NatsCluster if args.engine == "nats" else RabbitCluster)(root)
    try:
        return measure(args, cluster, started, root)
    finally:
        for process in started:
            if process.poll() is None:
                process.terminate()
        for process in started:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        cluster.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def measure(args, cluster, started, root):
    print(f"bench-fleet-cluster: {cluster.name}, {args.stations} stations, in {root}", file=sys.stderr, flush=True)
    nodes = cluster.nodes
    began = time.monotonic()
    # Node 1 first, the others once it is up: started together, a node that found no peer yet within its retries
    # formed a cluster of its own, and a run under load never saw three.
    start_node(cluster, nodes[0])
    for node in nodes[1:]:
        cluster.start(node)
    for node in nodes[1:]:
        wait_until(f"{cluster.name} node {node.index + 1} listening", node.accepts, SETUP_TIMEOUT, 0.2)
    # Quorum queues and replicated streams take their members from the cluster as it is when they are made.
    wait_until("the three nodes clustered", cluster.formed, SETUP_TIMEOUT, 1)
    wait_until("every node takes a QoS 1 message", lambda: all(publishes(n.mqtt_port, "fleet-probe") for n in nodes), SETUP_TIMEOUT, 0.5)
    print(f"bench-fleet-cluster: the cluster takes messages {time.monotonic() - began:.0f} s after its start", file=sys.stderr, flush=True)
    urls = [f"mqtt://127.0.0.1:{n.mqtt_port}" for n in nodes]
    survivor = nodes[0]
    stations = []
    for i in range(args.stations):
        first = i % NODES
        station = fleet.Station(i, root, nodes[first].mqtt_port, nodes[first].mqtt_port, "fleet")
        station.node = first
        order = [urls[(first + k) % NODES] for k in range(NODES)]
        station.bridge_args = [a for a in station.bridge_args[:3]] + sum((["--url", u] for u in order), []) + station.bridge_args[5:] + cluster.bridge_options
        stations.append(station)
    started += [s.daemon for s in stations]
    raw = fleet.Subscriber(survivor.mqtt_port, root + "/raw.out", ["fleet/+/event/#", "fleet/+/status", "ref/+/event"], "fleet-raw")
    started.append(raw.process)
    watch = None
    if not args.no_repair:
        watch_log = open(root + "/watch.log", "w")
        watch = subprocess.Popen([f"{fleet.BIN}/sealtrust-mqtt", "watch"] + sum((["--url", u] for u in urls), [])
                                 + cluster.bridge_options
                                 + ["--topic-prefix", "fleet", "--output", root + "/out"], stdout=subprocess.DEVNULL, stderr=watch_log)
        started.append(watch)
    notify = selectors.DefaultSelector()

    for station in stations:
        station.connect()
        station.start_bridge(notify)
        started += [station.reference, station.bridge]
    threading.Thread(target=follow_statuses, args=(notify,), daemon=True).start()
    per_station = 2 * args.codes
    wait_until("every bridge online", lambda: len({t for _, t, p in raw.lines() if t.endswith("/status") and p.startswith(b'{"state":"online"')})
               >= len(stations), 120, 0.2)
    time.sleep(1)
    idle = [rss_kib(s.bridge.pid) for s in stations]

    threads = [threading.Thread(target=s.burst, args=(args.codes, args.interval, "cluster")) for s in stations]
    for t in threads:
        t.start()
    time.sleep(1)
    killed = nodes[KILLED]
    killed.kill()
    died, died_wall = time.monotonic(), time.time()
    time.sleep(args.outage)
    start_node(cluster, killed)
    back = time.monotonic()
    for t in threads:
        t.join()
    wait_until("every daemon journaled the burst", lambda: all(s.events >= per_station for s in stations), 120, 0.2)
    moved = [s for s in stations if s.node == KILLED]

    def online_elsewhere(station):
        """The first session accepted after the node's death (on another node, since it was dead until `back`)."""
        return next((at - died for at, text in station.statuses if at > died and text.startswith("online")), None)
    wait_until("every station of the killed node online on another", lambda: all(online_elsewhere(s) is not None for s in moved),
               120, 0.2)

    def complete(station):
        return watch_output_complete(root, station, per_station)
    repaired_at = None
    if watch:
        deadline = time.monotonic() + args.repair_timeout
        while time.monotonic() < deadline and not all(complete(s) for s in stations):
            time.sleep(0.5)
        repaired_at = time.monotonic() - died if all(complete(s) for s in stations) else None
    else:
        def acked(s):
            try:
                return open(s.dir + "/state/acked-seq").read().strip() == str(per_station)
            except OSError:
                return False
        wait_until("every bridge's acked seq at the end", lambda: all(acked(s) for s in stations), 120, 0.2)
    # The persistent subscriber's queue may be behind the fleet: it is read until it has every event or has been
    # silent for 15 s.
    def subscriber_lines():
        return os.path.getsize(root + "/raw.out")
    last, quiet_since = -1, time.monotonic()
    deadline = time.monotonic() + args.drain_timeout
    while time.monotonic() < deadline and time.monotonic() - quiet_since < 15:
        size = subscriber_lines()
        if size != last:
            last, quiet_since = size, time.monotonic()
        time.sleep(1)
    peak = [rss_kib(s.bridge.pid, "VmHWM") for s in stations]

    seen = {"fleet": {}, "ref": {}}
    for _, topic, payload in raw.lines():
        levels = topic.split("/")
        seq = seq_of(payload)
        if seq is None or levels[-1] == "status":
            continue
        seen[levels[0]].setdefault(levels[1], []).append(seq)

    def account(stream):
        missing = repeats = 0
        for s in stations:
            lost, twice = missing_and_repeats(seen[stream].get(s.name, []), per_station)
            repeats += twice
            missing += len(lost)
        return missing, repeats

    result = {"engine": cluster.name, "stations": len(stations), "events": per_station * len(stations),
              "stations_on_killed_node": len(moved)}
    result["subscriber_missing_bridge_events"], result["subscriber_repeats_bridge_events"] = account("fleet")
    result["reference_missing"], result["reference_repeats"] = account("ref")
    if watch:
        watch.send_signal(signal.SIGTERM)
        watch.wait(10)
        watch_log.close()
        text = open(root + "/watch.log").read()
        asked = asked_again(text)
        result["watch_missing_before_repair"] = len(asked)
        lacking = 0
        for s in stations:
            try:
                with open(f"{root}/out/{s.name}.jsonl", "rb") as f:
                    lacking += per_station - min(per_station, sum(1 for line in f if b'"seq":' in line))
            except OSError:
                lacking += per_station
        result["missing_after_repair"] = lacking
        result["all_gaps_repaired_s_after_death"] = None if repaired_at is None else round(repaired_at, 1)
    # The moved stations: their session on another node, and their first PUBACK there (the acked seq of STATUS=,
    # once a second, past what it was at the node's death).
    def acked(text):
        marker = text.find("acked seq ")
        return int(text[marker + 10:].split(",")[0]) if marker >= 0 else 0

    def publishing_again(station):
        before = max((acked(text) for at, text in station.statuses if at <= died), default=0)
        return next((at - died for at, text in station.statuses if at > died and text.startswith("online") and acked(text) > before),
                    float("inf"))
    # The reference: how long the engine took to acknowledge anyone's event meanwhile. For the stations that stayed on
    # their node, each STATUS= whose acked seq moved in the 10 s after the death gives the age of the event it
    # reached (now minus its `at` in the journal): the PUBACK delay of a bridge that never moved.
    def journal_times(station):
        times = {}
        for name in sorted(os.listdir(station.dir + "/journal")):
            with open(os.path.join(station.dir, "journal", name), "rb") as f:
                for line in f:
                    event = json.loads(line)
                    stamp = event["at"].replace("Z", "+00:00")
                    times[event["seq"]] = datetime.datetime.fromisoformat(stamp).timestamp()
        return times
    delays = []
    for station in (s for s in stations if s.node != KILLED):
        times, last = journal_times(station), None
        for at, text in station.wall_statuses:
            seq = acked(text)
            if last is not None and seq > last and died_wall < at <= died_wall + 10 and seq in times:
                delays.append(at - times[seq])
            last = seq
    stayed_again = sorted(publishing_again(s) for s in stations if s.node != KILLED)
    result["stayed_next_puback_s_p50"], result["stayed_next_puback_s_max"] = round(statistics.median(stayed_again), 1), round(stayed_again[-1], 1)
    if delays:
        delays.sort()
        result["stayed_puback_delay_s_p50"], result["stayed_puback_delay_s_max"] = round(statistics.median(delays), 1), round(delays[-1], 1)
    online = sorted(online_elsewhere(s) for s in moved)
    again = sorted(publishing_again(s) for s in moved)
    if moved:
        result["online_elsewhere_s_p50"], result["online_elsewhere_s_max"] = round(statistics.median(online), 1), round(online[-1], 1)
        result["publishing_again_s_p50"], result["publishing_again_s_max"] = round(statistics.median(again), 1), round(again[-1], 1)
    result["bridge_rss_idle_mib_p50"] = round(statistics.median(idle) / 1024, 1)
    result["bridge_rss_peak_mib_max"] = round(max(peak) / 1024, 1)
    result["node_back_s_after_death"] = round(back - died, 1)
    if args.keep:
        result["folder"] = root
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", choices=["rabbitmq", "nats"], default="rabbitmq")
    parser.add_argument("--stations", type=int, default=100)
    parser.add_argument("--codes", type=int, default=300)
    parser.add_argument("--interval", type=float, default=0.01)
    parser.add_argument("--outage", type=float, default=30, help="seconds from the node's death until it is started again")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--repair-timeout", type=float, default=120)
    parser.add_argument("--drain-timeout", type=float, default=300, help="seconds the subscriber is read at most after the burst")
    parser.add_argument("--no-repair", action="store_true", help="no watch: the persistent subscriber's view alone")
    parser.add_argument("--dir", default="/dev/shm", help="where each run's temporary folder is made (the nodes' data: in memory, as bench-fleet's mosquitto)")
    parser.add_argument("--keep", action="store_true", help="keep each run's folder (the nodes' logs and data, the bridges' logs)")
    parser.add_argument("--check", type=float, metavar="SECONDS",
                        help="exit 1 unless every run has 0 missing before and after repair and every station of the killed "
                             "node publishes again within SECONDS of its death (make test-fleet-cluster)")
    args = parser.parse_args()
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    failed = []
    for number in range(1, args.runs + 1):
        result = run(args)
        if args.check is not None:
            failed += [f"run {number}: {what}" for what, bad in [
                ("events missing before repair", result["subscriber_missing_bridge_events"] > 0),
                ("events missing after repair", result.get("missing_after_repair", 0) > 0),
                (f"a station of the killed node published again only after {result.get('publishing_again_s_max')} s",
                 result.get("publishing_again_s_max", float("inf")) > args.check)] if bad]
        print(json.dumps(result), flush=True)
        print(f"run {number}: missing before repair {result['subscriber_missing_bridge_events']}", flush=True)
        if "missing_after_repair" in result:
            print(f"run {number}: missing after repair {result['missing_after_repair']}", flush=True)
        if "publishing_again_s_max" in result:
            print(f"run {number}: publishing again within {result['publishing_again_s_max']} s of the node's death "
                  f"(p50 {result['publishing_again_s_p50']} s, {result['stations_on_killed_node']} stations)", flush=True)
        if "stayed_puback_delay_s_max" in result:
            print(f"run {number}: reference, the stations that stayed: an event acknowledged {result['stayed_puback_delay_s_p50']} s "
                  f"(p50), {result['stayed_puback_delay_s_max']} s (max) after it was journaled, in the 10 s after the death", flush=True)

    if failed:
        raise SystemExit("bench-fleet-cluster: " + "; ".join(failed))


if __name__ == "__main__":
    main()
