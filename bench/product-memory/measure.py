#!/usr/bin/python3
"""Memory of the daemon and the kiosk under product answers of hostile shapes (issue 42, items 1 and 2).

The sandbox answers every passport read with a 1 MiB passport holding a list of 520,000 zeros, and every history
read with 16,000 events (about 1 MB). Then: 60 `passport` commands to the daemon (each a product read of its own),
and 20 printed codes verified with the kiosk bridge attached, whose page's product questions go to the daemon.
Prints each program's resident memory before and after, and its peak (VmHWM), beside the daemon idle.
"""
import json, os, socket, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release")


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0]) // 1024
    return fields


def line_client(path):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    return client, client.makefile("rb")


def main():
    scratch = tempfile.mkdtemp(prefix="product-memory-")
    sandbox = subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, "tools/sandbox/sandbox.py"), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(sandbox.stdout.readline().split()[1])
    base = f"http://127.0.0.1:{port}"

    def fault(path, body):
        request = urllib.request.Request(base + "/_sandbox/fault", method="POST", headers={"Content-Type": "application/json"},
                                         data=json.dumps({"path": path, "status": 200, "body": body, "content_type": "application/json"}).encode())
        urllib.request.urlopen(request).read()

    compact = (",", ":")
    zeros = json.dumps({"identifier": "0x5a", "access_tier": "public", "product_name": "Zeros", "brand": "B", "zeros": [0] * 520_000},
                       separators=compact)
    history = json.dumps({"events": [{"kind": "authentication_scan", "at": "2025-10-09T09:00:00Z"}] * 16_000}, separators=compact)
    fault("/passport/", zeros)
    fault("/history/", history)
    print(f"product-memory: passport body {len(zeros)} bytes (520,000 zeros), history body {len(history)} bytes (16,000 events), "
          "both under the API's 1 MiB")

    socket_path = os.path.join(scratch, "scand.sock")
    daemon = subprocess.Popen([os.path.join(BIN, "sealtrust-scand"), "--api-base", base, "--nfc", "none", "--camera", "none",
                               "--socket", socket_path, "--journal", os.path.join(scratch, "journal"), "--station", "memory",
                               "--log-level", "error"])
    while not os.path.exists(socket_path):
        time.sleep(0.05)
    client, reader = line_client(socket_path)
    reader.readline()
    idle = memory(daemon.pid)
    for index in range(60):
        client.sendall((json.dumps({"cmd": "passport", "id": index, "identifier": f"0x{index:x}"}) + "\n").encode())
    answered, longest = 0, 0
    while answered < 60:
        line = reader.readline()
        message = json.loads(line)
        if message.get("type") == "passport":
            answered += 1
            longest = max(longest, len(line))
    after = memory(daemon.pid)
    print(f"  daemon: idle {idle['VmRSS']} MiB; after 60 passport commands {after['VmRSS']} MiB, peak {after['VmHWM']} MiB; "
          f"longest answer line {longest} bytes")

    kiosk = subprocess.Popen([os.path.join(BIN, "sealtrust-kiosk"), "--socket", socket_path, "--listen", "127.0.0.1:0"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    kiosk_port = int(kiosk.stdout.readline().strip().rsplit(":", 1)[1].rstrip("/"))
    time.sleep(1)
    kiosk_idle = memory(kiosk.pid)
    scans = []
    for index in range(20):
        client.sendall((json.dumps({"cmd": "verify", "id": f"v{index}", "raw": f"https://sealtrust.io/p/SN-M{index}"}) + "\n").encode())
    while len(scans) < 20:
        message = json.loads(reader.readline())
        if message.get("type") == "verdict":
            scans.append(message["scan_id"])
    for scan in scans:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{kiosk_port}/passport?scan_id={scan}", timeout=20).read()
        except Exception:
            pass
    kiosk_after = memory(kiosk.pid)
    daemon_after = memory(daemon.pid)
    print(f"  kiosk: idle {kiosk_idle['VmRSS']} MiB; after 20 products asked {kiosk_after['VmRSS']} MiB, peak {kiosk_after['VmHWM']} MiB "
          f"(its unit's MemoryMax 192 MiB)")
    print(f"  daemon at the end: {daemon_after['VmRSS']} MiB, peak {daemon_after['VmHWM']} MiB")
    for process in (kiosk, daemon, sandbox):
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
