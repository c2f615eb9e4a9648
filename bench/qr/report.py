#!/usr/bin/python3
"""Runs the decoders on the same frames, one core each in turn, and prints the tables.

usage: /usr/bin/python3 bench/qr/report.py FIXTURES_DIR REPEAT ours=CMD ours-still=CMD zbar=CMD zxing=CMD zxing-current=CMD
ours-still is this module with unchanged frames skipped, each frame given REPEAT times: a still scene.
Each CMD (a program and its options, split on spaces) prints, per frame: path, milliseconds per decode,
payloads in hex (bench/qr/*_loop, zxing_current.py). The live-camera figures come from `ours --live` on
FIXTURES_DIR/live and FIXTURES_DIR/held; what each pass reads on its own from `ours --pass NAME`.
First the real photographs (tools/qrfixtures/realphotos.py: the set that decides), then the generated sets.
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


def reads(expected, payloads):
    """The codes of a frame read: the manifests give a frame's codes "," apart, and a text's bytes in each
    charset it may be in, "|" between them."""
    return sum(1 for code in expected.split(",") if any(alternative in payloads for alternative in code.split("|")))


def codes(expected):
    return len(expected.split(","))


def superset_misses(frames, results, zbar_bytes):
    """Frame by frame: the frames in which ours misses a code zxing-cpp's default reads, and those in which
    zxing-cpp reads nothing and ours misses a code libzbar's default (bytes unconverted) reads."""
    missed_zxing = [frame for frame in frames if not set(results["zxing"][frame][1]) <= set(results["ours"][frame][1])]
    missed_zbar = [frame for frame in frames if not results["zxing"][frame][1]
                   and not set(zbar_bytes[frame][1]) <= set(results["ours"][frame][1])]
    return missed_zxing, missed_zbar


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


PHOTO_SETS = [("realqr", "each photo one grey frame, longest side at most 1280"),
              ("webcam", "each photo fitted into a webcam's frame"),
              ("rotated", "each photo turned by 15 degrees times its index")]
# Checked frame by frame too, not counted in the CPU median (the three sets above are the real photos' frames).
MORE_SETS = [("sweep", "each photo at every multiple of 15 degrees"),
             ("mosaics", "2 to 12 photos pasted side by side in one frame")]
PASSES = ["zxing", "wholeFrame", "zxingHalf", "squaredUp", "lightOnDark"]
TIMING_REPEAT = 3
TIMING_ROUNDS = 3


def timed_decode(decoders, frames):
    """Each decoder on the frames, TIMING_ROUNDS rounds with the decoders in turn, each frame's cost the lowest
    of its rounds (each the mean of TIMING_REPEAT decodes): the machine is shared, and a load that comes and goes
    during one decoder's round would otherwise fall on it alone."""
    rounds = [{name: decode(command, TIMING_REPEAT, frames) for name, command in decoders} for _ in range(TIMING_ROUNDS)]
    return {name: {frame: (min(one[name][frame][0] for one in rounds), rounds[0][name][frame][1]) for frame in rounds[0][name]}
            for name, _ in decoders}


def real_photos(fixtures, decoders, zbar_bytes_command):
    """Codes read per category for each decoder, the two libraries' union, CPU per frame (the mean of
    TIMING_REPEAT decodes, the best of TIMING_ROUNDS rounds), and the superset property frame by frame."""
    names = [name for name, _ in decoders if name != "ours-still"]
    everything = {name: [] for name in names}
    # The superset's floor, timed in the same rounds: ours' zxing-cpp call alone, and libzbar's scan alone where
    # that call reads nothing: what any decoder that makes both libraries' calls as they are pays.
    floor_passes = [("zxing alone", dict(decoders)["ours"] + " --pass zxing"), ("libzbar alone", dict(decoders)["ours"] + " --pass wholeFrame")]
    floor = []
    outcome = {}
    median_ratio = {}
    for folder, description in PHOTO_SETS + MORE_SETS:
        rows = manifest(os.path.join(fixtures, folder))
        frames = [os.path.join(fixtures, folder, row[0]) for row in rows]
        timed = folder not in dict(MORE_SETS)
        chosen_names = names if timed else ["ours", "zbar", "zxing"]
        chosen_decoders = [(name, command) for name, command in decoders if name in chosen_names]
        results = timed_decode(chosen_decoders + floor_passes, frames) if timed else {name: decode(command, 1, frames) for name, command in chosen_decoders}
        outcome[folder] = (rows, results)
        print()
        print("real photographs, %s (%s, %d frames): codes read per category%s" % (folder, description, len(rows), ", median ms of CPU a frame" if timed else ""))
        print("%-12s" % "category" + "".join("%15s" % name for name in chosen_names) + "%12s" % "libs union"
              + "   ours/best lib   ours/union")
        categories = in_order(row[2] for row in rows)
        for category in categories + ["total"]:
            chosen = [row for row in rows if category in (row[2], "total")]
            marked = sum(codes(expected) for _, expected, _ in chosen)
            read = {name: sum(reads(expected, results[name][frame][1]) for frame, expected, _ in chosen) for name in chosen_names}
            read["union"] = sum(reads(expected, results["zbar"][frame][1] + results["zxing"][frame][1]) for frame, expected, _ in chosen)
            best = max(read["zbar"], read["zxing"])
            print("%-12s" % category + "".join("%11d/%-3d" % (read[name], marked) for name in chosen_names) + "%8d/%-3d" % (read["union"], marked)
                  + "   %13.2f   %10.2f" % (read["ours"] / best if best else 1.0, read["ours"] / read["union"] if read["union"] else 1.0))
        if timed:
            cost = {name: median(results[name][row[0]][0] for row in rows) for name in names}
            print("%-12s" % "median ms" + "".join("%15.2f" % cost[name] for name in names) + "   ours/zxing %.2f" % (cost["ours"] / cost["zxing"]))
            median_ratio[folder] = cost["ours"] / cost["zxing"]
            for name in names:
                everything[name] += [results[name][row[0]][0] for row in rows]
            for frame in (row[0] for row in rows):
                zxing_ms, zxing_read = results["zxing alone"][frame]
                floor.append(zxing_ms + (0 if zxing_read else results["libzbar alone"][frame][0]))
        unread = [frame for frame in (row[0] for row in rows) if not results["zxing"][frame][1]]
        zbar_bytes = decode(zbar_bytes_command, 1, [os.path.join(fixtures, folder, frame) for frame in unread]) if unread else {}
        missed_zxing, missed_zbar = superset_misses([row[0] for row in rows], results, zbar_bytes)
        print("frame by frame: ours misses a code zxing-cpp's default reads in %d of %d frames; zxing-cpp reads nothing in %d, "
              "and there ours misses a code libzbar's default reads in %d%s"
              % (len(missed_zxing), len(rows), len(unread), len(missed_zbar),
                 (": " + " ".join(missed_zxing + missed_zbar)) if missed_zxing or missed_zbar else ""))
        wrong = [(name, row[0]) for name in chosen_names for row in rows
                 if any(p not in row[1].replace(",", "|").split("|") for p in results[name][row[0]][1])]
        for name, frame in wrong:
            print("note: %s read a payload that is not the one printed in %s" % (name, frame))
        missed = [row[0] for row in rows if any(reads(row[1], results[other][row[0]][1]) > reads(row[1], results["ours"][row[0]][1]) for other in chosen_names)]
        print("missed by ours, read by another (%d): %s" % (len(missed), " ".join(m.replace(".pgm", "") for m in missed)))
    print()
    # Issue 39 measures a photo set as one frame a photo, its longest side at most 1280 (the realqr set), and
    # compares the medians of one set. The webcam and rotated sets are the same photos framed and turned: each is
    # compared on its own too. Pooling the three mixes frames of different sizes, and the median of such a mixture
    # can fall in the gap between them: it is shown, but it is not the goal's figure.
    print("median ms of CPU a frame (the mean of %d decodes, the best of %d rounds), ours/zxing-cpp's on each set "
          "(goal at most 1.5): " % (TIMING_REPEAT, TIMING_ROUNDS)
          + ", ".join("%s %.2f" % (folder, median_ratio[folder]) for folder, _ in PHOTO_SETS))
    cost = {name: median(times) for name, times in everything.items()}
    print("pooled over all %d real-photo frames of the three sets (a mixture of sizes): " % len(everything["ours"])
          + ", ".join("%s %.2f" % (name, cost[name]) for name in names) + "; ours/zxing %.2f" % (cost["ours"] / cost["zxing"]))
    print("the superset's floor in the same rounds (zxing-cpp's call, and libzbar's scan where it reads nothing; no pass of ours), pooled: "
          "median %.2f ms, %.2f x zxing-cpp's" % (median(floor), median(floor) / cost["zxing"]))
    return outcome


def passes(fixtures, command, outcome):
    """Each pass of ours on its own on the real photographs: codes read, codes neither library reads, cost."""
    print()
    print("each pass of ours on its own, over the three real-photo sets: codes read, codes neither library reads,")
    print("mean ms a frame, and codes read per ms; the decoder runs zxing on every frame, the others, in this order, where it reads nothing")
    print("%-14s%8s%14s%10s%12s" % ("pass", "reads", "adds to libs", "ms", "codes/ms"))
    for name in PASSES:
        read = added = 0
        milliseconds = []
        for folder, _ in PHOTO_SETS:
            rows, results = outcome[folder]
            frames = [os.path.join(fixtures, folder, row[0]) for row in rows]
            alone = decode(command + " --pass " + name, TIMING_REPEAT, frames)
            for frame, expected, _ in rows:
                milliseconds.append(alone[frame][0])
                if reads(expected, alone[frame][1]):
                    read += 1
                    added += not (reads(expected, results["zbar"][frame][1]) or reads(expected, results["zxing"][frame][1]))
        mean = sum(milliseconds) / len(milliseconds)
        print("%-14s%8d%14d%10.2f%12.3f" % (name, read, added, mean, read / (mean * len(milliseconds))))


def first_seen(seen):
    """`ours --live`'s payloads: hex@first frame#frames read in, comma separated."""
    found = {}
    for item in seen.split(",") if seen else []:
        payload, frames = item.rsplit("@", 1)
        first, count = frames.split("#")
        found[payload] = (int(first), int(count))
    return found


def held(fixtures, command, references):
    """Real photos held in view at 1280x720 and 30 fps for 1 s: CPU share, frames from appearing to the scan,
    and reads per appearance (the code scanned while held) beside reads per frame (frames the code is read in,
    each frame decoded on its own by the references)."""
    rows = manifest(os.path.join(fixtures, "held"))
    streams = [os.path.join(fixtures, "held", row[0]) for row in rows]
    print()
    print("real photos held in view, 1280x720 Y4M at 30 fps (5 empty frames, then 30 with the code, 1 s): share of one core,")
    print("frames from the code's appearance to its scan (never: not read on the stream), frames of the 30 the code is read in")
    print("(ours: on the stream, an unchanged frame giving the last one's codes; the references: each frame on its own)")
    print("%-30s%8s%8s%8s" % ("photo", "CPU", "delay", "ours") + "".join("%10s" % name for name, _ in references))
    appearances = {name: 0 for name in ["ours"] + [name for name, _ in references] + ["union"]}
    frames_read = dict.fromkeys(appearances, 0)
    total_frames = 0
    for line in run(command, ["--live"] + streams):
        path, frames, share, seen = line.split("\t")
        name, expected, category, appears = next(row for row in rows if row[0] == os.path.basename(path))
        found = first_seen(seen)
        mine = [found[alternative] for alternative in expected.split("|") if alternative in found]
        delay = mine[0][0] - int(appears) if mine else "never"
        pictures = stream_frames(path, int(appears), os.path.join(fixtures, "held-frames", name.replace(".y4m", "")))
        total_frames += len(pictures)
        counts = {"ours": mine[0][1] if mine else 0}
        union = set()
        for reference, decoder in references:
            results = decode(decoder, 1, pictures)
            read = [index for index, picture in enumerate(pictures) if reads(expected, results[os.path.basename(picture)][1])]
            counts[reference] = len(read)
            union |= set(read)
        counts["union"] = len(union)
        for key, count in counts.items():
            frames_read[key] += count
            appearances[key] += count > 0
        print("%-30s%7.1f%%%8s%8d" % (name.replace(".y4m", ""), 100 * float(share), delay, counts["ours"])
              + "".join("%10d" % counts[reference] for reference, _ in references))
    print("codes held 1 s and scanned (reads per appearance), of %d: " % len(rows)
          + ", ".join("%s %d" % (key, count) for key, count in appearances.items()))
    print("frames read (reads per frame), of %d: " % total_frames + ", ".join("%s %d" % (key, count) for key, count in frames_read.items()))


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
        firsts = {payload: first for payload, (first, _) in first_seen(seen).items()}
        figures[os.path.basename(path)] = (int(frames), float(share), firsts)
    print()
    print("live camera: 1280x720 Y4M at 30 fps through one decoder as the daemon runs it (skipping unchanged frames)")
    for name, expected, case, appears in rows:
        frames, share, firsts = figures[name]
        if not appears:
            # Beside it, the references on the same frames: zxing-cpp's default call on each, libzbar's default
            # on every 10th. Three rounds, in turn, the lowest of each kept: the machine is shared.
            pictures = stream_frames(os.path.join(fixtures, "live", name), 0, os.path.join(fixtures, "live-frames", case))
            seconds = len(pictures) / 30.0
            shares = {"ours": [share]}
            for round in range(TIMING_ROUNDS):
                if round:
                    shares["ours"].append(float(run(command, ["--live", os.path.join(fixtures, "live", name)])[0].split("\t")[2]))
                for reference, decoder in references:
                    chosen = pictures if reference != "zbar" else pictures[::10]
                    spent = sum(milliseconds for milliseconds, _ in decode(decoder, 1, chosen).values()) / 1000.0
                    shares.setdefault(reference, []).append(spent / seconds)
            print("%-22s CPU %5.1f%% of one core (no code in view, %d frames; the best of %d rounds); beside it, on the same frames: "
                  % (case, 100 * min(shares["ours"]), frames, TIMING_ROUNDS)
                  + ", ".join("%s %.1f%% (%s)" % (reference, 100 * min(shares[reference]), "every 10th frame" if reference == "zbar" else "every frame")
                              for reference, _ in references))
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
    outcome = real_photos(fixtures, decoders, dict(decoders)["zbar"] + " --binary")
    passes(fixtures, dict(decoders)["ours"], outcome)
    held(fixtures, dict(decoders)["ours"], [(name, command) for name, command in decoders if name in ("zbar", "zxing")])
    print()
    print("the generated sets (tools/qrfixtures): the second set")
    bench_costs(fixtures, repeat, decoders)
    realistic(fixtures, decoders)
    live(fixtures, dict(decoders)["ours"], [(name, command) for name, command in decoders if name in ("zbar", "zxing", "zxing-current")])
    robustness(fixtures, decoders)


if __name__ == "__main__":
    main()
