#!/usr/bin/python3
"""Runs the three decoders on the same frames, one core each in turn, and prints the tables.

usage: /usr/bin/python3 bench/qr/report.py FIXTURES_DIR REPEAT ours=CMD ours-still=CMD zbar=CMD zxing=CMD
ours-still is this module with unchanged frames skipped, each frame given REPEAT times: a still scene.
Each CMD (a program and its options, split on spaces) prints, per frame: path, milliseconds per decode,
payloads in hex (bench/qr/*_loop). The live-camera figures come from `ours --live` on FIXTURES_DIR/live.
"""
import os
import subprocess
import sys


def run(command, arguments):
    return subprocess.run(["taskset", "-c", "0"] + command.split() + arguments,
                          check=True, stdout=subprocess.PIPE, text=True).stdout.splitlines()


def decode(command, repeat, frames):
    results = {}
    for line in run(command, [str(repeat)] + frames):
        path, milliseconds, payloads = line.split("\t")
        results[os.path.basename(path)] = (float(milliseconds), payloads.split(",") if payloads else [])
    return results


def manifest(folder):
    with open(os.path.join(folder, "manifest.tsv")) as lines:
        return [line.rstrip("\n").split("\t") for line in lines]


def in_order(values):
    seen = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen


def bench_costs(fixtures, repeat, decoders):
    rows = manifest(os.path.join(fixtures, "bench"))
    frames = [os.path.join(fixtures, "bench", row[0]) for row in rows]
    costs, misreads = {}, []
    # Three rounds, decoders interleaved, the lowest mean kept: the machine is shared.
    for _ in range(3):
        for name, command in decoders:
            results = decode(command, repeat, frames)
            for frame, expected, case in rows:
                milliseconds, payloads = results[frame]
                if expected and expected not in payloads and (name, frame) not in misreads:
                    misreads.append((name, frame))
                costs.setdefault((name, case), {}).setdefault(frame, []).append(milliseconds)
    cases = in_order(row[2] for row in rows)
    names = [name for name, _ in decoders]
    mean = {key: sum(min(times) for times in frames.values()) / len(frames) for key, frames in costs.items()}
    print("decode cost per frame on the bench frames (ms of CPU time, one core, mean over %d frames of the best of 3 rounds of %d decodes;"
          % (len(rows) // len(cases), repeat))
    print("ours: every frame as if seen once, all passes; ours-still: the same frame %d times, as a still camera gives it)" % repeat)
    print("%-22s" % "frames" + "".join("%12s" % name for name in names) + "   ours/zxing   ours/zbar")
    for case in cases:
        row = "%-22s" % case + "".join("%12.2f" % mean[(name, case)] for name in names)
        row += "   %10.2f  %10.2f" % (mean[("ours", case)] / mean[("zxing", case)], mean[("ours", case)] / mean[("zbar", case)])
        print(row)
    for name, frame in misreads:
        print("note: %s missed the code in bench/%s" % (name, frame))


def realistic(fixtures, decoders):
    rows = manifest(os.path.join(fixtures, "realistic"))
    frames = [os.path.join(fixtures, "realistic", row[0]) for row in rows]
    results = {name: decode(command, 1, frames) for name, command in decoders if name != "ours-still"}
    names = list(results)
    categories = in_order(row[2] for row in rows)
    print()
    print("the realistic set: frames read per category (of %d frames), and the mean decode cost in ms" % len(rows))
    print("%-14s" % "category" + "".join("%10s" % name for name in names) + "".join("%10s" % (name + " ms") for name in names))
    totals = {name: 0 for name in names}
    missed = {name: [] for name in names}
    for category in categories:
        chosen = [row for row in rows if row[2] == category]
        read = {name: sum(1 for frame, expected, _ in chosen if expected in results[name][frame][1]) for name in names}
        cost = {name: sum(results[name][frame][0] for frame, _, _ in chosen) / len(chosen) for name in names}
        for name in names:
            totals[name] += read[name]
            missed[name] += [frame for frame, expected, _ in chosen if expected not in results[name][frame][1]]
        print("%-14s" % category + "".join("%7d/%-2d" % (read[name], len(chosen)) for name in names)
              + "".join("%10.1f" % cost[name] for name in names))
    mean_cost = {name: sum(results[name][row[0]][0] for row in rows) / len(rows) for name in names}
    print("%-14s" % "total" + "".join("%6d/%-3d" % (totals[name], len(rows)) for name in names)
          + "".join("%10.1f" % mean_cost[name] for name in names))
    wrong = [(name, row[0]) for name in names for row in rows if any(p != row[1] for p in results[name][row[0]][1])]
    for name, frame in wrong:
        print("note: %s read a payload that is not the one printed in %s" % (name, frame))
    for name in names:
        print("missed by %s (%d): %s" % (name, len(missed[name]), " ".join(f.replace(".pgm", "") for f in missed[name])))


def stream_frames(path, first, folder):
    """Writes the luma of each frame from `first` on as a PGM; returns their paths in order."""
    with open(path, "rb") as stream:
        data = stream.read()
    end = data.index(b"\n")
    fields = {field[:1]: field[1:] for field in data[:end].split()[1:]}
    width, height = int(fields[b"W"]), int(fields[b"H"])
    assert fields.get(b"C", b"").startswith(b"mono"), "the live streams are mono"
    os.makedirs(folder, exist_ok=True)
    paths, offset, number = [], end + 1, 0
    while offset < len(data):
        start = data.index(b"\n", offset) + 1
        if number >= first:
            paths.append(os.path.join(folder, "%03d.pgm" % number))
            with open(paths[-1], "wb") as out:
                out.write(b"P5\n%d %d\n255\n" % (width, height) + data[start:start + width * height])
        offset, number = start + width * height, number + 1
    return paths


def live(fixtures, command, references):
    rows = manifest(os.path.join(fixtures, "live"))
    streams = [os.path.join(fixtures, "live", row[0]) for row in rows]
    figures = {}
    for line in run(command, ["--live"] + streams):
        path, frames, share, seen = line.split("\t")
        firsts = dict(item.rsplit("@", 1) for item in seen.split(",")) if seen else {}
        figures[os.path.basename(path)] = (int(frames), float(share), firsts)
    print()
    print("live camera: 1280x720 Y4M at 30 fps through one decoder as the daemon runs it (skipping unchanged frames)")
    for name, expected, case, appears in rows:
        frames, share, firsts = figures[name]
        if not appears:
            print("%-22s CPU %5.1f%% of one core (no code in view, %d frames)" % (case, 100 * share, frames))
        elif case == "held":
            print("%-22s CPU %5.1f%% of one core (a code held in view, %d frames)" % (case, 100 * share, frames))
    # A view of the code no decoder reads on its own is no appearance: the code appears at the first
    # view one of them (ours seen once, libzbar's default, zxing-cpp) reads, frame by frame, on its own.
    deciders = [("ours", command)] + references
    print("frames from a code's appearance to its scan on the stream; the code appears at the first view, from")
    print("the one it enters in, that some decoder reads on its own (beside it: that view's number for each one)")
    print("%-22s%8s" % ("category", "ours") + "".join("%10s" % ("1st " + name) for name, _ in deciders) + "   CPU over the stream")
    for name, expected, case, appears in rows:
        if appears and case != "held":
            frames, share, firsts = figures[name]
            pictures = stream_frames(os.path.join(fixtures, "live", name), int(appears), os.path.join(fixtures, "live-frames", case))
            row, readable_from = "", []
            for _, decoder in deciders:
                results = decode(decoder, 1, pictures)
                readable = [index for index, path in enumerate(pictures) if expected in results[os.path.basename(path)][1]]
                readable_from += readable[:1]
                row += "%10s" % (readable[0] if readable else "never")
            # A stream reads no view its frames, decoded one by one, do not: the delay is never negative.
            delay = int(firsts[expected]) - int(appears) - min(readable_from, default=0) if expected in firsts else "never"
            print("%-22s%8s" % (case, delay) + row + "   %5.1f%%" % (100 * share))


def robustness(fixtures, decoders):
    rows = manifest(os.path.join(fixtures, "robustness"))
    frames = [os.path.join(fixtures, "robustness", row[0]) for row in rows]
    print()
    print("decode rate on the robustness set (%d images)" % len(rows))
    rates = {}
    for name, command in decoders:
        if name == "ours-still":
            continue
        results = decode(command, 1, frames)
        rates[name] = sum(1 for frame, expected, _ in rows if expected in results[frame][1])
        print("%-22s%4d / %d  (%.1f%%)" % (name, rates[name], len(rows), 100.0 * rates[name] / len(rows)))


def main():
    fixtures, repeat = sys.argv[1], int(sys.argv[2])
    decoders = [argument.split("=", 1) for argument in sys.argv[3:]]
    bench_costs(fixtures, repeat, decoders)
    realistic(fixtures, decoders)
    live(fixtures, dict(decoders)["ours"], [(name, command) for name, command in decoders if name in ("zbar", "zxing")])
    robustness(fixtures, decoders)


if __name__ == "__main__":
    main()
