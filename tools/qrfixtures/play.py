#!/usr/bin/python3
"""Copies a YUV4MPEG2 stream into a FIFO (or any path) one frame at a time, paced like a live writer.

usage: /usr/bin/python3 tools/qrfixtures/play.py IN OUT FRAMES_PER_SECOND
FRAMES_PER_SECOND 0: as fast as the reader takes it (a recording piped without ffmpeg -re).
"""
import sys
import time


def frame_bytes(header):
    fields = {f[:1]: f[1:] for f in header.split()[1:]}
    width, height = int(fields[b"W"]), int(fields[b"H"])
    space = fields.get(b"C", b"420jpeg")
    half_width, half_height = (width + 1) // 2, (height + 1) // 2
    chroma = {b"mono": 0, b"422": 2 * half_width * height, b"444": 2 * width * height}.get(space, 2 * half_width * half_height)
    return width * height + chroma


def main():
    source, target, fps = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open(source, "rb") as stream, open(target, "wb", buffering=0) as out:
        header = stream.readline()
        size = frame_bytes(header)
        out.write(header)
        while True:
            marker = stream.readline()
            if not marker:
                break
            out.write(marker + stream.read(size))
            if fps > 0:
                time.sleep(1 / fps)


if __name__ == "__main__":
    main()
