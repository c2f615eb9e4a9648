#!/usr/bin/python3
"""Runs the three decoders on the same frames, one core each in turn, and prints the table.

usage: /usr/bin/python3 bench/qr/report.py FIXTURES_DIR REPEAT ours=CMD ours-still=CMD zbar=CMD zxing=CMD
ours-still is this module with unchanged frames skipped, each frame given REPEAT times: a still scene.
Each CMD (a program and its options, split on spaces) prints, per frame: path, milliseconds per decode, payloads in hex (bench/qr/*_loop).
"""
import os
import subprocess
import sys


def run(command, repeat, frames):
    lines = subprocess.run(["taskset", "-c", "0"] + command.split() + [str(repeat)] + frames,
                           check=True, stdout=subprocess.PIPE, text=True).stdout.splitlines()
    results = {}
    for line in lines:
        path, milliseconds, payloads = line.split("\t")
        results[os.path.basename(path)] = (float(milliseconds), payloads.split(",") if payloads else [])
    return results


def manifest(folder):
    rows = []
    with open(os.path.join(folder, "manifest.tsv")) as lines:
        for line in lines:
            name, expected, description = line.rstrip("\n").split("\t")
            rows.append((name, expected, description))
    return rows


def main():
    fixtures, repeat = sys.argv[1], int(sys.argv[2])
    decoders = [argument.split("=", 1) for argument in sys.argv[3:]]
    bench_rows = manifest(os.path.join(fixtures, "bench"))
    robust_rows = manifest(os.path.join(fixtures, "robustness"))
    bench_frames = [os.path.join(fixtures, "bench", name) for name, _, _ in bench_rows]
    robust_frames = [os.path.join(fixtures, "robustness", name) for name, _, _ in robust_rows]

    costs, rates, misreads = {}, {}, {}
    # Three rounds, decoders interleaved, the lowest mean kept: the machine is shared.
    for _ in range(3):
        for name, command in decoders:
            results = run(command, repeat, bench_frames)
            for frame, expected, case in bench_rows:
                milliseconds, payloads = results[frame]
                if expected and expected not in payloads:
                    misreads[(name, frame)] = "missed"
                costs.setdefault((name, case), {}).setdefault(frame, []).append(milliseconds)
    for name, command in decoders:
        if name == "ours-still":
            continue
        results = run(command, 1, robust_frames)
        rates[name] = sum(1 for frame, expected, _ in robust_rows if expected in results[frame][1])

    cases = []
    for _, _, case in bench_rows:
        if case not in cases:
            cases.append(case)
    names = [name for name, _ in decoders]
    mean = {key: sum(min(times) for times in frames.values()) / len(frames) for key, frames in costs.items()}
    print("decode cost per frame (ms of CPU time, one core, mean over %d frames of the best of 3 rounds of %d decodes;" % (len(bench_rows) // len(cases), repeat))
    print("ours-still: the same frame %d times, as a still camera gives it, unchanged frames skipped)" % repeat)
    print("%-22s" % "frames" + "".join("%12s" % name for name in names) + "   ours/zxing   ours/zbar")
    for case in cases:
        row = "%-22s" % case + "".join("%12.2f" % mean[(name, case)] for name in names)
        row += "   %10.2f  %10.2f" % (mean[("ours", case)] / mean[("zxing", case)], mean[("ours", case)] / mean[("zbar", case)])
        print(row)
    print()
    print("decode rate on the robustness set (%d images)" % len(robust_rows))
    for name in rates:
        print("%-22s%4d / %d  (%.1f%%)" % (name, rates[name], len(robust_rows), 100.0 * rates[name] / len(robust_rows)))
    print("ours vs libzbar default: %+d images" % (rates["ours"] - rates["zbar"]))
    for (name, frame), what in sorted(misreads.items()):
        print("note: %s %s the code in %s" % (name, what, frame))


if __name__ == "__main__":
    main()
