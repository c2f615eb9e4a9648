#!/usr/bin/python3
"""Writes a YUV4MPEG2 stream that shows each payload as a printed QR code, one after the other.

Usage: qr-stream.py OUTPUT PAYLOAD [PAYLOAD...]   (OUTPUT may be a FIFO, or - for stdout)

Each code stays in view for one second, then three seconds of empty paper follow, longer than
the daemon's default rescan delay, so that a code shown twice would scan twice. 10 fps, 320x240.
"""

import io
import subprocess
import sys

from PIL import Image

WIDTH, HEIGHT, FPS = 320, 240, 10
SHOWN_FRAMES, BLANK_FRAMES = 10, 30


def code_frame(payload: bytes) -> bytes:
    png = subprocess.run(["qrencode", "-o", "-", "-t", "PNG", "-8", "-s", "4", "-m", "4"],
                         input=payload, stdout=subprocess.PIPE, check=True).stdout
    code = Image.open(io.BytesIO(png)).convert("RGBA").convert("L")
    if code.width > HEIGHT:
        code = code.resize((HEIGHT, HEIGHT), Image.NEAREST)
    paper = Image.new("L", (WIDTH, HEIGHT), 235)
    paper.paste(code, ((WIDTH - code.width) // 2, (HEIGHT - code.height) // 2))
    return paper.tobytes()


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: qr-stream.py OUTPUT PAYLOAD [PAYLOAD...]", file=sys.stderr)
        return 2
    blank = bytes([235]) * (WIDTH * HEIGHT)
    chroma = bytes([128]) * (WIDTH * HEIGHT // 2)
    output = sys.stdout.buffer if sys.argv[1] == "-" else open(sys.argv[1], "wb")
    with output:
        output.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
        frames = []
        for payload in sys.argv[2:]:
            frames += [code_frame(payload.encode("utf-8"))] * SHOWN_FRAMES + [blank] * BLANK_FRAMES
        for luma in [blank] * 5 + frames:
            output.write(b"FRAME\n" + luma + chroma)
    return 0


if __name__ == "__main__":
    sys.exit(main())
