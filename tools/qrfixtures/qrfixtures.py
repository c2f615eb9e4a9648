#!/usr/bin/python3
"""Writes the QR fixtures (still frames and YUV4MPEG2 streams) into a directory.

Nothing generated here is committed: the tests and the benchmark run this into
a temporary directory. Codes come from the `qrencode` tool; PIL places them in
frames. Everything is seeded, so every run writes the same bytes.

usage: /usr/bin/python3 tools/qrfixtures/qrfixtures.py OUTDIR [robustness|bench|streams|exact|all]

OUTDIR/robustness/manifest.tsv   file, expected payload (hex), description
OUTDIR/bench/manifest.tsv        file, expected payload (hex, empty: no code), description
OUTDIR/streams/manifest.json     one entry per stream: what a reader should report
OUTDIR/exact/manifest.tsv        file, expected payload (hex), description
"""
import io
import json
import os
import random
import subprocess
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFilter

ACCENTED = "Montre Chronographe édition limitée — Genève, Zürich, São Paulo, Ærø"
GS1_LINK = "https://id.gs1.org/01/09506000134352"
SEALTRUST_SERIAL = "https://sealtrust.io/s/ST-2F8K3Q9X?gtin=03701234567890"


def qr_modules(payload: bytes, level="M", version=None, eight_bit=True, kanji=False):
    """The code as a PIL image with one pixel per module and no quiet zone; `kanji`: Shift-JIS in Kanji mode."""
    command = ["qrencode", "-o", "-", "-t", "PNG", "-s", "1", "-m", "0", "-l", level]
    if kanji:
        command.append("-k")
    elif eight_bit:
        command.append("-8")
    if version is not None:
        command += ["-v", str(version)]
    png = subprocess.run(command, input=payload, stdout=subprocess.PIPE, check=True).stdout
    return Image.open(io.BytesIO(png)).convert("RGBA").convert("L")


def card(payload: bytes, module_px: int, level="M", version=None, quiet=4, kanji=False):
    """The code printed on white paper with its quiet zone, modules of `module_px` pixels."""
    modules = qr_modules(payload, level, version, kanji=kanji)
    side = modules.width * module_px
    code = modules.resize((side, side), Image.NEAREST)
    paper = Image.new("L", (side + 2 * quiet * module_px,) * 2, 255)
    paper.paste(code, (quiet * module_px,) * 2)
    return paper


def scene(width, height, seed):
    """A cluttered grey background: a shelf, boxes, printed text-like strokes."""
    rng = random.Random(seed)
    image = Image.new("L", (width, height), 118)
    draw = ImageDraw.Draw(image)
    for _ in range(40):
        x, y = rng.randrange(width), rng.randrange(height)
        w, h = rng.randrange(20, width // 3), rng.randrange(10, height // 4)
        draw.rectangle([x, y, x + w, y + h], fill=rng.randrange(60, 200))
    for _ in range(120):
        x, y = rng.randrange(width), rng.randrange(height)
        draw.line([x, y, x + rng.randrange(8, 60), y], fill=rng.randrange(20, 90), width=rng.randrange(1, 3))
    return image.filter(ImageFilter.GaussianBlur(1.2))


def place(background, paper, angle, center):
    """Pastes the rotated paper on the background, its corners blended with a mask."""
    if angle:
        mask = Image.new("L", paper.size, 255).rotate(angle, resample=Image.BICUBIC, expand=True)
        paper = paper.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
    else:
        mask = Image.new("L", paper.size, 255)
    frame = background.copy()
    frame.paste(paper, (center[0] - paper.width // 2, center[1] - paper.height // 2), mask)
    return frame


def add_noise(image, sigma, seed):
    """Uniform noise of standard deviation `sigma` (a uniform byte has a deviation of 74)."""
    rng = random.Random(seed)
    noise = Image.frombytes("L", image.size, rng.randbytes(image.width * image.height))
    noise = noise.point(lambda u: int(128 + (u - 128) * sigma / 74))
    return ImageChops.add(image, noise, 1.0, -128)


def low_contrast(image, dark, light):
    return image.point(lambda v: dark + (light - dark) * v // 255)


def cover(paper, module_px, fraction_of_width):
    """Covers a corner of the data area (away from the three finder patterns)."""
    covered = paper.copy()
    side = paper.width - 8 * module_px
    extent = int(side * fraction_of_width)
    x1 = y1 = 4 * module_px + side
    ImageDraw.Draw(covered).rectangle([x1 - extent, y1 - extent, x1 - 1, y1 - 1], fill=150)
    return covered


def write_pgm(path, image):
    with open(path, "wb") as out:
        out.write(b"P5\n%d %d\n255\n" % image.size)
        out.write(image.tobytes())


def robustness(outdir):
    """Codes of 2 to 12 px modules, rotated, blurred, noisy, low-contrast, covered; one code per image."""
    folder = os.path.join(outdir, "robustness")
    os.makedirs(folder, exist_ok=True)
    rows = []
    index = 0

    def add(description, make):
        nonlocal index
        payload = ("SEALTRUST-R%03d" % index).encode()
        frame = make(payload, index)
        name = "%03d-%s.pgm" % (index, description)
        write_pgm(os.path.join(folder, name), frame)
        rows.append((name, payload.hex(), description))
        index += 1

    def plain(module_px, angle, level="M"):
        def make(payload, seed):
            background = scene(640, 480, seed)
            center = (320 + (seed * 37) % 41 - 20, 240 + (seed * 53) % 31 - 15)
            return place(background, card(payload, module_px, level), angle, center)
        return make

    for module_px in (2, 3, 4, 6, 8, 12):
        for angle in (0, 15, 45, 90):
            add("m%d-r%d" % (module_px, angle), plain(module_px, angle))
    for module_px in (3, 4, 6):
        for radius in (0.6, 1.0):
            for angle in (0, 15):
                base = plain(module_px, angle)
                add("m%d-r%d-blur%.1f" % (module_px, angle, radius),
                    lambda p, s, b=base, r=radius * module_px / 3: b(p, s).filter(ImageFilter.GaussianBlur(r)))
    for module_px in (3, 4, 6):
        for sigma in (12, 24):
            for angle in (0, 45):
                base = plain(module_px, angle)
                add("m%d-r%d-noise%d" % (module_px, angle, sigma),
                    lambda p, s, b=base, g=sigma: add_noise(b(p, s), g, s))
    for module_px in (3, 4, 6):
        for dark, light in ((90, 150), (110, 140)):
            for angle in (0, 15):
                base = plain(module_px, angle)
                add("m%d-r%d-contrast%d" % (module_px, angle, light - dark),
                    lambda p, s, b=base, d=dark, l=light: low_contrast(b(p, s), d, l))
    for module_px in (3, 4, 6):
        for fraction in (0.2, 0.3):
            for angle in (0, 15):
                def make(payload, seed, m=module_px, f=fraction, a=angle):
                    background = scene(640, 480, seed)
                    paper = cover(card(payload, m, "H"), m, f)
                    return place(background, paper, a, (320, 240))
                add("m%d-r%d-covered%d" % (module_px, angle, int(fraction * 100)), make)

    with open(os.path.join(folder, "manifest.tsv"), "w") as manifest:
        for row in rows:
            manifest.write("\t".join(row) + "\n")


def bench(outdir):
    """The frames the benchmark decodes: 640x480 and 1280x720, with and without a code."""
    folder = os.path.join(outdir, "bench")
    os.makedirs(folder, exist_ok=True)
    rows = []
    for width, height in ((640, 480), (1280, 720)):
        for with_code in (True, False):
            for variant in range(4):
                seed = width + variant
                frame = scene(width, height, seed)
                if with_code:
                    module_px = 4 if width == 640 else 6
                    center = (width // 2 + 30 * variant - 45, height // 2 + 20 * variant - 30)
                    frame = place(frame, card(SEALTRUST_SERIAL.encode(), module_px), 5 * variant, center)
                frame = add_noise(frame, 3, seed)
                name = "%dx%d-%s-%d.pgm" % (width, height, "code" if with_code else "empty", variant)
                write_pgm(os.path.join(folder, name), frame)
                rows.append((name, SEALTRUST_SERIAL.encode().hex() if with_code else "", "%dx%d %s" % (width, height, "code" if with_code else "empty")))
    with open(os.path.join(folder, "manifest.tsv"), "w") as manifest:
        for row in rows:
            manifest.write("\t".join(row) + "\n")


class Y4M:
    """Writes a YUV4MPEG2 stream; grey chroma, the Y plane from the frames given."""

    def __init__(self, path, width, height, fps="10:1", colour="420jpeg", extra=" It A1:1"):
        self.out = open(path, "wb")
        self.width, self.height, self.colour = width, height, colour
        colour_field = " C" + colour if colour else ""
        self.out.write(("YUV4MPEG2 W%d H%d F%s%s%s\n" % (width, height, fps, extra, colour_field)).encode())

    def chroma_bytes(self):
        w, h = self.width, self.height
        space = self.colour or "420jpeg"
        if space.startswith("mono"):
            return 0
        if space.startswith("444"):
            return 2 * w * h
        if space.startswith("422"):
            return 2 * ((w + 1) // 2) * h
        return 2 * ((w + 1) // 2) * ((h + 1) // 2)

    def frame(self, image, params=""):
        self.out.write(b"FRAME" + params.encode() + b"\n")
        self.out.write(image.tobytes())
        self.out.write(b"\x80" * self.chroma_bytes())

    def close(self):
        self.out.close()


def streams(outdir):
    folder = os.path.join(outdir, "streams")
    os.makedirs(folder, exist_ok=True)
    manifest = {}
    width, height = 320, 240
    empty = scene(width, height, 7)

    def with_code(payload, module_px=3, angle=0, center=(160, 120), level="M", version=None, background=empty):
        return place(background, card(payload, module_px, level, version), angle, center)

    # Entering, staying 1.5 s, leaving 0.5 s (less than the 2 s rescan), back 0.5 s,
    # gone 3 s, back 1 s: two scans with the default, three with a 0.3 s rescan.
    code = with_code(SEALTRUST_SERIAL.encode())
    timeline = [empty] * 5 + [code] * 15 + [empty] * 5 + [code] * 5 + [empty] * 30 + [code] * 10 + [empty] * 3
    stream = Y4M(os.path.join(folder, "appearances.y4m"), width, height)
    for image in timeline:
        stream.frame(image)
    stream.close()
    manifest["appearances"] = {"payload": SEALTRUST_SERIAL, "frames": len(timeline), "fps": 10}

    # Four codes in view for two frames each: a reader that skips frames misses some of them.
    brief_payloads = ["https://sealtrust.io/s/ST-BRIEF-%d" % k for k in range(4)]
    brief_empty = scene(640, 480, 13)
    stream = Y4M(os.path.join(folder, "brief-appearances.y4m"), 640, 480, fps="30:1")
    for payload in brief_payloads:
        shown = place(brief_empty, card(payload.encode(), 4), 10, (320, 240))
        for image in [brief_empty] * 6 + [shown] * 2:
            stream.frame(image)
    stream.frame(brief_empty)
    stream.close()
    manifest["brief-appearances"] = {"payloads": brief_payloads}

    two = scene(480, 240, 11)
    two = place(two, card(SEALTRUST_SERIAL.encode(), 3), 0, (120, 120))
    two = place(two, card(GS1_LINK.encode(), 3), 0, (360, 120))
    stream = Y4M(os.path.join(folder, "two-codes.y4m"), 480, 240, fps="25:1")
    for _ in range(3):
        stream.frame(two)
    stream.close()
    manifest["two-codes"] = {"payloads": [SEALTRUST_SERIAL, GS1_LINK]}

    rng = random.Random(2953)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/"
    full = "".join(rng.choice(alphabet) for _ in range(2953))
    big = Image.new("L", (800, 800), 200)
    big = place(big, card(full.encode(), 4, "L", 40), 0, (400, 400))
    stream = Y4M(os.path.join(folder, "full-capacity.y4m"), 800, 800, fps="5:1", colour="420mpeg2")
    stream.frame(big)
    stream.close()
    manifest["full-capacity"] = {"payload": full}

    binary = bytes([0x53, 0x54, 0x00, 0xFF, 0xFE, 0x80, 0xC3, 0x28]) + b"binary"
    stream = Y4M(os.path.join(folder, "binary.y4m"), width, height)
    stream.frame(with_code(binary))
    stream.close()
    manifest["binary"] = {"payload_hex": binary.hex()}

    with_nul = "ST\u0000NUL-inside"
    stream = Y4M(os.path.join(folder, "nul.y4m"), width, height)
    stream.frame(with_code(with_nul.encode()))
    stream.close()
    manifest["nul"] = {"payload": with_nul}

    stream = Y4M(os.path.join(folder, "accented.y4m"), width, height)
    stream.frame(with_code(ACCENTED.encode(), module_px=2))
    stream.close()
    manifest["accented"] = {"payload": ACCENTED}

    stream = Y4M(os.path.join(folder, "gs1.y4m"), width, height)
    stream.frame(with_code(GS1_LINK.encode()))
    stream.close()
    manifest["gs1"] = {"payload": GS1_LINK}

    # The same code in every colour space, odd sizes, frame parameters.
    spaces = ["420jpeg", "420paldv", "420mpeg2", "420", "422", "444", "mono", None]
    for space in spaces:
        name = "colour-%s" % (space or "default")
        w, h = 321, 241
        background = scene(w, h, 3)
        stream = Y4M(os.path.join(folder, name + ".y4m"), w, h, fps="30000:1001", colour=space,
                     extra=" Ip A0:0 XYSCSS=420JPEG")
        stream.frame(with_code(GS1_LINK.encode(), background=background), params=" Ip XCOMMENT=frame")
        stream.frame(with_code(GS1_LINK.encode(), background=background))
        stream.close()
    manifest["colour-spaces"] = {"names": ["colour-%s" % (s or "default") for s in spaces], "payload": GS1_LINK}

    corrupt = {
        "bad-magic": b"YUV4MPEG3 W320 H240 F10:1 C420jpeg\n",
        "missing-width": b"YUV4MPEG2 H240 F10:1 C420jpeg\n",
        "bad-colour": b"YUV4MPEG2 W320 H240 F10:1 C411\n",
        "bad-rate": b"YUV4MPEG2 W320 H240 F10:0 C420jpeg\n",
        "huge-size": b"YUV4MPEG2 W999999 H999999 F10:1 Cmono\n",
        "no-newline": b"YUV4MPEG2 W320 H240 F10:1 " + b"X" * 5000,
        "empty": b"",
    }
    for name, header in corrupt.items():
        with open(os.path.join(folder, name + ".y4m"), "wb") as out:
            out.write(header)

    # A code, then a frame cut short by the end of the file.
    stream = Y4M(os.path.join(folder, "truncated.y4m"), width, height)
    stream.frame(with_code(GS1_LINK.encode()))
    stream.out.write(b"FRAME\n" + empty.tobytes()[: width * height // 3])
    stream.close()
    # A code, then garbage where the next FRAME marker should be.
    stream = Y4M(os.path.join(folder, "bad-frame-marker.y4m"), width, height)
    stream.frame(with_code(GS1_LINK.encode()))
    stream.out.write(b"FRAMX\n" + empty.tobytes())
    stream.close()
    manifest["corrupt"] = {"names": sorted(corrupt) + ["truncated", "bad-frame-marker"]}

    with open(os.path.join(folder, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=1, ensure_ascii=False)


RESERVED_URL = "https://sealtrust.io/s/a:b/c?d=e&f=g;h@i!j$k'l(m)n*o+p,q[r]s#t%2F"


def exact(outdir):
    """Frames whose bytes must come through unchanged: every byte value in binary mode, Shift-JIS text in
    Kanji mode, a URL with every reserved character (RFC 3986's gen-delims and sub-delims)."""
    folder = os.path.join(outdir, "exact")
    os.makedirs(folder, exist_ok=True)
    cases = [("binary", bytes(range(256)), False),
             ("shift-jis", "今度のバージョンでは文章の暗号化ができます".encode("shift_jis"), True),
             ("reserved-url", RESERVED_URL.encode(), False)]
    with open(os.path.join(folder, "manifest.tsv"), "w") as manifest:
        for name, payload, kanji in cases:
            paper = card(payload, 4, kanji=kanji)
            frame = Image.new("L", (640, 480), 200)
            frame.paste(paper, ((640 - paper.width) // 2, (480 - paper.height) // 2))
            write_pgm(os.path.join(folder, name + ".pgm"), frame)
            manifest.write("%s\t%s\t%s\n" % (name + ".pgm", payload.hex(), name))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else "all"
    for name, make in (("robustness", robustness), ("bench", bench), ("streams", streams), ("exact", exact)):
        if which in (name, "all"):
            make(outdir)


if __name__ == "__main__":
    main()
