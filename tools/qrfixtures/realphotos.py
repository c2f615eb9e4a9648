#!/usr/bin/python3
"""The real-photo set: ../shared/fixtures/realqr's photos as a webcam gives them, and harder cases made from them.

The photos are read in place (never copied into the repository). Each becomes one grey frame, its longest
side brought down to 1280 pixels (a webcam's frame); smaller photos keep their size. From them:
  realqr     each photo, its category its folder (qrcode-1 .. qrcode-7)
  rotated    each photo turned by 15 degrees times its index (0 to 345, every angle about equally often)
  webcam     each photo fitted into a 640x480, 1280x720 or 1920x1080 frame in turn, the rest grey
  held       (live) a sample of photos fitted into 1280x720, each held in view 30 frames with hand
             shake and sensor noise, after 5 frames of the empty background: Y4M streams at 30 fps

The expected payload is the photo's .bin, or its .txt: the text as the code's own bytes hold it. A decoder
passes those raw bytes on, and the .txt is zxing-cpp's reading of them as text: many codes of qrcode-2 hold
Shift-JIS (not only 26 and 31, which realqr/README.md names), one GB2312. So a non-ASCII .txt is given as
its bytes in each charset a code may use, "|" between them (bytes in another charset are a misread).
Everything is seeded: every run writes the same bytes.

  turns      (tests) the photos named on the command line (CATEGORY/NAME), each at every angle from 0 to 345
  sweep      each photo at ANGLES angles 360/ANGLES degrees apart (24: every multiple of 15), starting from
             its angle in `rotated`, so that every multiple of 15 degrees is about equally often among them
  mosaics    frames of 2 to 12 photos pasted side by side (1280x720 up to 6, 1920x1080 above), four of each
             count, the photos drawn at random (seeded): several codes in one frame

usage: /usr/bin/python3 tools/qrfixtures/realphotos.py REALQR_DIR OUTDIR [realqr|webcam|rotations|live|mosaics|all]
       /usr/bin/python3 tools/qrfixtures/realphotos.py REALQR_DIR OUTDIR turns CATEGORY/NAME...
       /usr/bin/python3 tools/qrfixtures/realphotos.py REALQR_DIR OUTDIR sweep ANGLES

OUTDIR/SET/manifest.tsv        file, expected payload (hex, "|" between the charsets it may be in), category
OUTDIR/held/manifest.tsv       stream, expected payload (hex), category, first frame with the code
OUTDIR/mosaics/manifest.tsv    file, each pasted photo's expected payload ("," between them), "N codes"
"""
import os
import random
import sys

import numpy
from PIL import Image

CHARSETS = ["utf-8", "shift_jis", "gb2312", "big5", "euc-kr", "iso-8859-1"]
WEBCAM_SIZES = [(640, 480), (1280, 720), (1920, 1080)]
LONGEST_SIDE = 1280


def photos(realqr):
    """(category, name, image path, expected bytes) for every photo with a payload, in a fixed order."""
    found = []
    for category in sorted(os.listdir(realqr)):
        folder = os.path.join(realqr, category)
        if not category.startswith("qrcode-") or not os.path.isdir(folder):
            continue
        for file in sorted(os.listdir(folder)):
            name, extension = os.path.splitext(file)
            if extension not in (".webp", ".png", ".jpg"):
                continue
            binary, text = os.path.join(folder, name + ".bin"), os.path.join(folder, name + ".txt")
            if os.path.exists(binary):
                with open(binary, "rb") as payload:
                    expected = payload.read().hex()
            elif os.path.exists(text):
                with open(text, "rb") as payload:
                    expected = payload.read()
                expected = in_charsets(expected.decode("utf-8"))
            else:
                continue
            found.append((category, name, os.path.join(folder, file), expected))
    return found


def in_charsets(text):
    """The text's bytes in each charset that can hold it, "|" between them: hex, not bytes."""
    encodings = []
    for charset in CHARSETS:
        try:
            encoded = text.encode(charset).hex()
        except UnicodeEncodeError:
            continue
        if encoded not in encodings:
            encodings.append(encoded)
    return "|".join(encodings)


def grey(path):
    image = Image.open(path)
    if image.mode in ("RGBA", "LA", "P"):
        # A transparent background is white paper.
        image = image.convert("RGBA")
        paper = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(paper, image)
    image = image.convert("L")
    scale = LONGEST_SIDE / max(image.size)
    if scale < 1:
        image = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
    return image


def fitted(image, size):
    """The photo scaled to fit a frame of `size`, centred on the photo's own mean grey."""
    scale = min(size[0] / image.width, size[1] / image.height)
    scaled = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.LANCZOS)
    frame = Image.new("L", size, int(numpy.asarray(image).mean()))
    frame.paste(scaled, ((size[0] - scaled.width) // 2, (size[1] - scaled.height) // 2))
    return frame


def frame_name(category, name):
    return "%s-%s.pgm" % (category, name.replace("#", "n"))


def write_set(out, folder, rows):
    os.makedirs(os.path.join(out, folder), exist_ok=True)
    with open(os.path.join(out, folder, "manifest.tsv"), "w") as manifest:
        for file, image, expected, category in rows:
            image.save(os.path.join(out, folder, file))
            manifest.write("%s\t%s\t%s\n" % (file, expected, category))


def frames(realqr, out):
    write_set(out, "realqr", [(frame_name(c, n), grey(p), e, c) for c, n, p, e in photos(realqr)])


def webcam(realqr, out):
    all_photos = photos(realqr)
    write_set(out, "webcam", [(frame_name(c, n), fitted(grey(p), WEBCAM_SIZES[i % 3]), e, "%dx%d" % WEBCAM_SIZES[i % 3])
                              for i, (c, n, p, e) in enumerate(all_photos)])


def turned(image, angle):
    return image.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=int(numpy.asarray(image).mean()))


def turns(realqr, out, named):
    rows = []
    for category, name, path, expected in photos(realqr):
        if "%s/%s" % (category, name) in named:
            image = grey(path)
            rows += [(frame_name(category, name).replace(".pgm", "-%03d.pgm" % angle), turned(image, angle), expected, "%03d" % angle)
                     for angle in range(0, 360, 15)]
    write_set(out, "turns", rows)


def rotations(realqr, out):
    rows = []
    for index, (category, name, path, expected) in enumerate(photos(realqr)):
        angle = 15 * (index % 24)
        rows.append((frame_name(category, name), turned(grey(path), angle), expected, "%03d" % angle))
    write_set(out, "rotated", rows)


def sweep(realqr, out, angles):
    """Each photo at `angles` angles evenly apart, from its angle in `rotated` on."""
    rows = []
    step = 24 // angles
    for index, (category, name, path, expected) in enumerate(photos(realqr)):
        image = grey(path)
        for turn in range(angles):
            angle = 15 * ((index + turn * step) % 24)
            rows.append((frame_name(category, name).replace(".pgm", "-%03d.pgm" % angle), turned(image, angle), expected, "%03d" % angle))
    write_set(out, "sweep", rows)


def mosaics(realqr, out, each=4):
    """Frames of 2 to 12 photos side by side in a grid, each fitted into its cell on its own mean grey."""
    rng = random.Random(39)
    all_photos = photos(realqr)
    rows = []
    for count in range(2, 13):
        width, height = (1280, 720) if count <= 6 else (1920, 1080)
        # The fewest columns that are at least as many as the rows.
        columns = 1
        while columns < (count + columns - 1) // columns:
            columns += 1
        lines = (count + columns - 1) // columns
        cell = (width // columns, height // lines)
        for number in range(each):
            chosen = rng.sample(all_photos, count)
            frame = Image.new("L", (width, height), 128)
            for place, (category, name, path, expected) in enumerate(chosen):
                tile = fitted(grey(path), (cell[0] - 8, cell[1] - 8))
                frame.paste(tile, ((place % columns) * cell[0] + 4, (place // columns) * cell[1] + 4))
            rows.append(("mosaic-%02d-%d.pgm" % (count, number), frame, ",".join(e for _, _, _, e in chosen), "%d codes" % count))
    write_set(out, "mosaics", rows)


def live(realqr, out, every=10):
    """Every `every`-th photo held in view at 1280x720 and 30 fps."""
    rng = random.Random(25)
    folder = os.path.join(out, "held")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "manifest.tsv"), "w") as manifest:
        for category, name, path, expected in photos(realqr)[::every]:
            photo = fitted(grey(path), (1100, 620))
            background = numpy.full((720, 1280), int(numpy.asarray(photo).mean()), numpy.float32)
            file = frame_name(category, name).replace(".pgm", ".y4m")
            with open(os.path.join(folder, file), "wb") as stream:
                stream.write(b"YUV4MPEG2 W1280 H720 F30:1 Ip A1:1 Cmono\n")
                for number in range(35):
                    frame = background.copy()
                    if number >= 5:
                        dx, dy = 90 + rng.randint(-3, 3), 50 + rng.randint(-3, 3)
                        frame[dy:dy + photo.height, dx:dx + photo.width] = numpy.asarray(photo, numpy.float32)
                    frame += numpy.random.default_rng(number).normal(0, 3, frame.shape)
                    stream.write(b"FRAME\n" + numpy.clip(frame, 0, 255).astype(numpy.uint8).tobytes())
            manifest.write("%s\t%s\t%s\t5\n" % (file, expected, category))


def main():
    realqr, out = sys.argv[1], sys.argv[2]
    what = sys.argv[3] if len(sys.argv) > 3 else "all"
    if what == "turns":
        turns(realqr, out, sys.argv[4:])
    if what == "sweep":
        sweep(realqr, out, int(sys.argv[4]) if len(sys.argv) > 4 else 24)
    if what in ("mosaics", "all"):
        mosaics(realqr, out)
    if what in ("realqr", "all"):
        frames(realqr, out)
    if what in ("webcam", "all"):
        webcam(realqr, out)
    if what in ("rotations", "all"):
        rotations(realqr, out)
    if what in ("live", "all"):
        live(realqr, out)


if __name__ == "__main__":
    main()
