#!/usr/bin/python3
"""Frames that look like what a camera sees: the realistic set and the live-camera streams.

Each category sweeps its damage from mild to severe over its frames, so that every
decoder (ours, libzbar's default, zxing-cpp) reads the first ones and misses some of
the last: a set every decoder reads proves nothing. Every frame has what a real
camera adds anyway: a little perspective, optical blur and sensor noise.
Everything is seeded: every run writes the same bytes.

usage: /usr/bin/python3 tools/qrfixtures/realistic.py OUTDIR [realistic|live|all] [FRAMES_PER_CATEGORY]

OUTDIR/realistic/manifest.tsv   file, expected payload (hex), category
OUTDIR/live/manifest.tsv        stream, expected payload (hex, empty: none), category, first frame with the code
"""
import io
import os
import random
import subprocess
import sys

import numpy
from PIL import Image, ImageDraw, ImageFilter

CATEGORIES = ["perspective", "blur", "lowres", "jpeg", "light", "noise", "curved",
              "quiet-zone", "clutter", "inverted", "screen", "payloads"]


def payload_for(rng, category):
    """Chip URLs (SUN messages) and GS1 Digital Links, as printed on the products scanned."""
    hexdigits = "0123456789ABCDEF"
    if category == "payloads" or rng.random() < 0.5:
        kind = rng.randrange(3)
        if kind == 0:
            picc = "".join(rng.choice(hexdigits) for _ in range(32))
            cmac = "".join(rng.choice(hexdigits) for _ in range(16))
            return ("https://nfc.sealtrust.io/t?picc_data=%s&cmac=%s" % (picc, cmac)).encode()
        if kind == 1:
            gtin = "0%013d" % rng.randrange(10 ** 12, 10 ** 13)
            serial = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(10))
            return ("https://id.gs1.org/01/%s/21/%s?17=%02d%02d%02d&10=L%d" % (
                gtin, serial, 26 + rng.randrange(4), 1 + rng.randrange(12), 1 + rng.randrange(28), rng.randrange(10000))).encode()
        return ("https://brand.example.com/01/0%013d/10/B%05d/21/%d" % (
            rng.randrange(10 ** 12, 10 ** 13), rng.randrange(100000), rng.randrange(10 ** 9))).encode()
    return ("https://sealtrust.io/s/ST-%08X" % rng.randrange(1 << 32)).encode()


def qr_modules(payload, level="M"):
    """The code as a boolean array, True for a dark module, without its quiet zone."""
    png = subprocess.run(["qrencode", "-o", "-", "-t", "PNG", "-s", "1", "-m", "0", "-l", level, "-8"],
                         input=payload, stdout=subprocess.PIPE, check=True).stdout
    return numpy.asarray(Image.open(io.BytesIO(png)).convert("RGBA").convert("L")) < 128


def printed_card(modules, module_px, quiet=4, ink=20, paper=235, inverted=False):
    """The code printed at `module_px` pixels a module on a label; returns the label and the code's corners."""
    size = modules.shape[0]
    side = (size + 2 * quiet) * module_px
    grid = numpy.full((size + 2 * quiet,) * 2, False)
    grid[quiet:quiet + size, quiet:quiet + size] = modules
    if inverted:
        grid = ~grid
    card = numpy.where(grid, ink, paper).astype(numpy.uint8)
    card = numpy.kron(card, numpy.ones((module_px, module_px), dtype=numpy.uint8))
    return Image.fromarray(card), side


def perspective_coefficients(source, target):
    """PIL's PERSPECTIVE coefficients mapping each `target` point back to its `source` point."""
    rows = []
    for (x, y), (u, v) in zip(target, source):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    values = [coordinate for point in source for coordinate in point]
    return numpy.linalg.solve(numpy.array(rows, dtype=float), numpy.array(values, dtype=float)).tolist()


def warp_onto(scene, card, quad, mask=None, resample=Image.BICUBIC):
    """Pastes `card` onto `scene` so that its corners land on `quad` (clockwise from top left)."""
    corners = [(0, 0), (card.width, 0), (card.width, card.height), (0, card.height)]
    coefficients = perspective_coefficients(corners, quad)
    warped = card.transform(scene.size, Image.PERSPECTIVE, coefficients, resample, fillcolor=0)
    shape = Image.new("L", card.size, 255) if mask is None else mask
    alpha = shape.transform(scene.size, Image.PERSPECTIVE, coefficients, Image.BILINEAR, fillcolor=0)
    result = scene.copy()
    result.paste(warped, (0, 0), alpha)
    return result


def quad_for(rng, center, side, tilt, turn=None):
    """A square of `side` pixels around `center`, turned in the image plane and tilted by up to `tilt` (0..1)."""
    angle = rng.uniform(0, 2 * numpy.pi) if turn is None else turn
    half = side / 2
    points = []
    for cx, cy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        # Tilt: one pair of edges shrinks as if the card leaned away from the camera.
        lean = 1 - tilt * (cy + 1) / 2
        x, y = cx * half * lean, cy * half * (1 - tilt * 0.35)
        points.append((center[0] + x * numpy.cos(angle) - y * numpy.sin(angle),
                       center[1] + x * numpy.sin(angle) + y * numpy.cos(angle)))
    return points


def cluttered_scene(rng, width, height, busy=1.0):
    """A shelf or desk: boxes, labels, text lines, bars and a few square marks."""
    image = Image.new("L", (width, height), rng.randrange(90, 160))
    draw = ImageDraw.Draw(image)
    for _ in range(int(30 * busy)):
        x, y = rng.randrange(width), rng.randrange(height)
        w, h = rng.randrange(20, width // 3), rng.randrange(10, height // 3)
        draw.rectangle([x, y, x + w, y + h], fill=rng.randrange(40, 230))
    for _ in range(int(200 * busy)):
        x, y = rng.randrange(width), rng.randrange(height)
        step = rng.randrange(3, 9)
        for k in range(rng.randrange(3, 14)):
            if rng.random() < 0.8:
                draw.rectangle([x + k * step, y, x + k * step + step - 2, y + step], fill=rng.randrange(10, 80))
    for _ in range(int(12 * busy)):
        # Square marks that look a little like finder patterns.
        x, y, s = rng.randrange(width), rng.randrange(height), rng.randrange(6, 30)
        draw.rectangle([x, y, x + s, y + s], outline=rng.randrange(0, 60), width=max(1, s // 7))
        draw.rectangle([x + s * 2 // 7, y + s * 2 // 7, x + s * 5 // 7, y + s * 5 // 7], fill=rng.randrange(0, 60))
    for _ in range(int(8 * busy)):
        # Barcode-like bars.
        x, y = rng.randrange(width), rng.randrange(height)
        h = rng.randrange(15, 60)
        for k in range(rng.randrange(10, 40)):
            if rng.random() < 0.5:
                draw.rectangle([x + 2 * k, y, x + 2 * k + rng.randrange(1, 3), y + h], fill=20)
    return image.filter(ImageFilter.GaussianBlur(0.8))


def to_array(image):
    return numpy.asarray(image, dtype=numpy.float32)


def to_image(array):
    return Image.fromarray(numpy.clip(array, 0, 255).astype(numpy.uint8))


def sensor_noise(array, rng, sigma):
    """Shot and read noise: darker pixels are noisier relative to their level, as on a small sensor."""
    generator = numpy.random.default_rng(rng.randrange(1 << 30))
    level = numpy.sqrt(numpy.maximum(array, 1) / 255.0)
    return array + generator.normal(0, sigma, array.shape) * (0.4 + 0.6 * level)


def camera(image, rng, blur=0.6, noise=3.0):
    """What every camera adds: optics' blur and sensor noise."""
    if blur > 0:
        image = image.filter(ImageFilter.GaussianBlur(blur))
    return to_image(sensor_noise(to_array(image), rng, noise))


def motion_blur(array, length, angle):
    """The frame averaged along a straight path of `length` pixels."""
    steps = max(2, int(round(length)))
    total = numpy.zeros_like(array)
    for k in range(steps):
        offset = (k - (steps - 1) / 2)
        dx, dy = int(round(offset * numpy.cos(angle))), int(round(offset * numpy.sin(angle)))
        total += numpy.roll(numpy.roll(array, dy, axis=0), dx, axis=1)
    return total / steps


def defocus(array, radius):
    """A disk kernel: the out-of-focus blur of a lens."""
    r = int(numpy.ceil(radius))
    total = numpy.zeros_like(array)
    count = 0
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            if dx * dx + dy * dy <= radius * radius:
                total += numpy.roll(numpy.roll(array, dy, axis=0), dx, axis=1)
                count += 1
    return total / count


def jpeg(image, quality):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("L")


def cylinder(card, curvature):
    """The label wrapped round a bottle: `curvature` is the half-angle it covers, in radians."""
    source = to_array(card)
    height, width = source.shape
    radius = width / 2 / numpy.sin(curvature) if curvature > 0 else None
    if radius is None:
        return card, Image.new("L", card.size, 255)
    visible = int(2 * radius * numpy.sin(curvature))
    xs = numpy.arange(visible) - visible / 2 + 0.5
    theta = numpy.arcsin(numpy.clip(xs / radius, -1, 1))
    u = (theta / curvature * 0.5 + 0.5) * (width - 1)
    u0 = numpy.clip(numpy.floor(u).astype(int), 0, width - 2)
    fraction = u - u0
    curved = source[:, u0] * (1 - fraction) + source[:, u0 + 1] * fraction
    shading = 0.55 + 0.45 * numpy.cos(theta)
    curved = curved * shading
    return to_image(curved), Image.new("L", (visible, height), 255)


def glare(array, rng, center, radius, strength):
    """A specular highlight: a bright, saturating ellipse."""
    height, width = array.shape
    ys, xs = numpy.mgrid[0:height, 0:width]
    stretch = rng.uniform(0.4, 1.0)
    distance = ((xs - center[0]) / radius) ** 2 + ((ys - center[1]) / (radius * stretch)) ** 2
    return array + strength * numpy.exp(-distance * 2.5)


def uneven_light(array, rng, depth):
    """Light falling off across the frame and a soft shadow edge."""
    height, width = array.shape
    ys, xs = numpy.mgrid[0:height, 0:width]
    angle = rng.uniform(0, 2 * numpy.pi)
    ramp = (xs * numpy.cos(angle) + ys * numpy.sin(angle)) / max(width, height)
    ramp = (ramp - ramp.min()) / (ramp.max() - ramp.min())
    edge = rng.uniform(0.3, 0.7)
    shadow = 1 / (1 + numpy.exp(-(ramp - edge) * 25))
    return array * (1 - depth * shadow) * (1 - 0.3 * depth * ramp)


def phone_screen(modules, module_screen_px, brightness, rng):
    """The code on a phone: lit pixels made of three subpixel stripes with dark gaps between them."""
    card, side = printed_card(modules, module_screen_px, ink=10, paper=255)
    lit = to_array(card) / 255.0
    # Each screen pixel becomes 3x3 camera-scale samples: three stripes, the last row a gap.
    stripes = numpy.array([[1.0, 0.85, 0.6], [1.0, 0.85, 0.6], [0.35, 0.3, 0.25]], dtype=numpy.float32)
    panel = numpy.kron(lit, stripes) * brightness + 8
    bezel = numpy.full((panel.shape[0] + 120, panel.shape[1] + 60), 12.0, dtype=numpy.float32)
    bezel[60:60 + panel.shape[0], 30:30 + panel.shape[1]] = panel
    return to_image(bezel)


def make_frame(category, rng, severity, payload):
    """One frame of `category`; `severity` runs from 0 (mild) to 1 (severe)."""
    modules = qr_modules(payload, "M" if category != "quiet-zone" else "Q")
    size = modules.shape[0]
    width, height = rng.choice([(640, 480), (1280, 720)])
    scene = cluttered_scene(rng, width, height, busy=0.5)
    center = (width // 2 + rng.randrange(-width // 8, width // 8), height // 2 + rng.randrange(-height // 8, height // 8))
    base_side = min(width, height) * rng.uniform(0.35, 0.6)
    tilt = rng.uniform(0, 0.15)

    def placed(side=base_side, card_tilt=tilt, inverted=False, quiet=4, card=None, mask=None, turn=None):
        module_px = 6
        card_image = card if card is not None else printed_card(modules, module_px, quiet=quiet, inverted=inverted)[0]
        return warp_onto(scene, card_image, quad_for(rng, center, side, card_tilt, turn), mask)

    if category == "perspective":
        frame = placed(card_tilt=0.2 + 0.55 * severity)
        return camera(frame, rng, blur=0.5 + 0.5 * severity)
    if category == "blur":
        frame = to_array(placed())
        if rng.random() < 0.5:
            module = base_side / (size + 8)
            frame = motion_blur(frame, module * (0.6 + 1.8 * severity), rng.uniform(0, numpy.pi))
        else:
            module = base_side / (size + 8)
            frame = defocus(frame, module * (0.3 + 0.9 * severity))
        return camera(to_image(frame), rng, blur=0.3)
    if category == "lowres":
        # A small sensor or a far code: the code has about 1 to 2 pixels a module, scaled up to the frame.
        small_width = int(width * (0.42 - 0.22 * severity))
        small_height = small_width * height // width
        frame = placed(side=min(width, height) * rng.uniform(0.3, 0.45))
        small = camera(frame.resize((small_width, small_height), Image.BOX), rng, blur=0.3, noise=2)
        return small.resize((width, height), rng.choice([Image.BILINEAR, Image.BICUBIC]))
    if category == "jpeg":
        frame = camera(placed(side=min(width, height) * rng.uniform(0.2, 0.35)), rng)
        small = frame.resize((width // 2, height // 2), Image.BILINEAR) if severity > 0.5 else frame
        return jpeg(small, int(30 - 26 * severity) + 2).resize((width, height), Image.BILINEAR)
    if category == "light":
        frame = to_array(placed())
        frame = uneven_light(frame, rng, 0.3 + 0.6 * severity)
        spot = (center[0] + rng.randrange(-60, 60), center[1] + rng.randrange(-60, 60))
        frame = glare(frame, rng, spot, base_side * (0.15 + 0.35 * severity), 120 + 200 * severity)
        return camera(to_image(frame), rng)
    if category == "noise":
        # Low light: little contrast, much gain.
        frame = to_array(placed()) * (0.6 - 0.4 * severity) + 10
        return to_image(sensor_noise(to_array(to_image(frame).filter(ImageFilter.GaussianBlur(0.6))), rng, 6 + 30 * severity))
    if category == "curved":
        card, _ = printed_card(modules, 6)
        curved, mask = cylinder(card, 0.5 + 1.0 * severity)
        side = base_side
        quad = quad_for(rng, center, side, tilt)
        # Keep the curved card's aspect: stretch the quad's width by its aspect ratio.
        aspect = curved.width / curved.height
        quad = [(center[0] + (x - center[0]) * aspect, y) for x, y in quad]
        return camera(warp_onto(scene, curved, quad, mask), rng)
    if category == "quiet-zone":
        # Print crowding the code and a finger over its edge.
        quiet = max(0, 2 - int(severity * 3))
        frame = placed(quiet=quiet)
        draw = ImageDraw.Draw(frame)
        reach = base_side / 2
        for _ in range(2 + int(6 * severity)):
            side_index = rng.randrange(4)
            offset = rng.uniform(-reach, reach)
            depth = reach * (1.0 + rng.uniform(-0.02, 0.06) - 0.08 * severity)
            x, y = {0: (offset, -depth), 1: (depth, offset), 2: (offset, depth), 3: (-depth, offset)}[side_index]
            w = rng.uniform(8, 40)
            draw.rectangle([center[0] + x - w, center[1] + y - w / 3, center[0] + x + w, center[1] + y + w / 3], fill=rng.randrange(10, 70))
        finger_angle = rng.uniform(0, 2 * numpy.pi)
        tip = reach * (1.05 - 0.15 * severity)
        fx, fy = center[0] + tip * numpy.cos(finger_angle), center[1] + tip * numpy.sin(finger_angle)
        draw.ellipse([fx - 45, fy - 45, fx + 45, fy + 45], fill=rng.randrange(60, 110))
        return camera(frame, rng, blur=0.7)
    if category == "clutter":
        width, height = 1280, 720
        scene = cluttered_scene(rng, width, height, busy=2.0)
        center = (rng.randrange(150, width - 150), rng.randrange(120, height - 120))
        module = 3.2 - 1.6 * severity
        side = module * (size + 8)
        frame = warp_onto(scene, printed_card(modules, 6)[0], quad_for(rng, center, side, tilt))
        return camera(frame, rng, blur=0.5, noise=3)
    if category == "inverted":
        frame = placed(inverted=True)
        frame = to_array(frame)
        if severity > 0.3:
            frame = defocus(frame, base_side / (size + 8) * 0.8 * severity)
        return camera(to_image(frame), rng, noise=3 + 10 * severity)
    if category == "screen":
        screen = phone_screen(modules, rng.choice([3, 4, 5]), 200 - 100 * severity, rng)
        side = min(width, height) * rng.uniform(0.4, 0.7)
        aspect = screen.width / screen.height
        quad = quad_for(rng, center, side, 0.1 + 0.3 * severity, turn=rng.uniform(-0.4, 0.4))
        quad = [(center[0] + (x - center[0]) * aspect, y) for x, y in quad]
        frame = warp_onto(Image.new("L", (width, height), 40), screen, quad, resample=Image.BILINEAR)
        frame = to_array(frame)
        frame = glare(frame, rng, (center[0] + rng.randrange(-80, 80), center[1] + rng.randrange(-80, 80)), side * 0.3, 60 * severity)
        return camera(to_image(frame), rng, blur=0.4, noise=3 + 4 * severity)
    if category == "payloads":
        # Long URLs make dense codes: smaller modules at the same printed size.
        frame = placed(side=min(width, height) * (0.45 - 0.25 * severity), card_tilt=0.1 + 0.2 * severity)
        return camera(frame, rng, blur=0.6 + 0.4 * severity, noise=3 + 4 * severity)
    raise ValueError(category)


def write_pgm(path, image):
    with open(path, "wb") as out:
        out.write(b"P5\n%d %d\n255\n" % image.size)
        out.write(image.tobytes())


def realistic(outdir, per_category):
    folder = os.path.join(outdir, "realistic")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "manifest.tsv"), "w") as manifest:
        for number, category in enumerate(CATEGORIES):
            for index in range(per_category):
                rng = random.Random(number * 1000 + index)
                payload = payload_for(rng, category)
                severity = index / max(1, per_category - 1)
                frame = make_frame(category, rng, severity, payload)
                name = "%s-%02d.pgm" % (category, index)
                write_pgm(os.path.join(folder, name), frame)
                manifest.write("%s\t%s\t%s\n" % (name, payload.hex(), category))


def live(outdir):
    """1280x720 mono Y4M streams at 30 fps: an empty scene, and a code entering it for each category.

    idle.y4m: 150 frames of a still scene with sensor noise and a slow light drift.
    panning.y4m: 150 frames of the camera panning across a scene with no code.
    held.y4m: 150 frames, a code held by hand in view (it shakes by a pixel or two).
    enter-CATEGORY.y4m: 10 empty frames, then the code of that category's mildest third for 20 frames.
    """
    folder = os.path.join(outdir, "live")
    os.makedirs(folder, exist_ok=True)
    width, height = 1280, 720
    rng = random.Random(4242)
    background = cluttered_scene(rng, width, height, busy=1.0)
    rows = []

    def stream(name, frames):
        with open(os.path.join(folder, name), "wb") as out:
            out.write(b"YUV4MPEG2 W%d H%d F30:1 Ip A1:1 Cmono\n" % (width, height))
            for frame in frames:
                out.write(b"FRAME\n")
                out.write(frame.tobytes())

    def still(k):
        drift = 1 + 0.03 * numpy.sin(k / 20)
        return to_image(sensor_noise(to_array(background) * drift, rng, 3))

    stream("idle.y4m", (still(k) for k in range(150)))
    rows.append(("idle.y4m", "", "idle", ""))

    payload = b"https://sealtrust.io/s/ST-2F8K3Q9X?gtin=03701234567890"
    card = printed_card(qr_modules(payload), 6)[0]

    def held(k):
        shake = (640 + rng.uniform(-2, 2), 360 + rng.uniform(-2, 2))
        quad = quad_for(random.Random(7), shake, 300, 0.1, turn=0.2 + 0.01 * numpy.sin(k / 5))
        return camera(warp_onto(background, card, quad), rng, blur=0.6, noise=3)

    stream("held.y4m", (held(k) for k in range(150)))
    rows.append(("held.y4m", payload.hex(), "held", "0"))

    # A scene the camera pans across: every frame changes, and no code is in view.
    wide = cluttered_scene(random.Random(4343), width + 300, height, busy=1.0)
    stream("panning.y4m", (camera(wide.crop((2 * k, 0, 2 * k + width, height)), rng, blur=0, noise=3) for k in range(150)))
    rows.append(("panning.y4m", "", "panning", ""))

    for number, category in enumerate(CATEGORIES):
        # Ten empty frames, then the code as the mildest third of its category shows it, a new view each frame.
        entering = payload_for(random.Random(number * 1000), category)
        frames = [still(k) for k in range(10)]
        for k in range(20):
            frame = make_frame(category, random.Random(number * 1000 + k), (k % 8) / 24, entering)
            frames.append(frame if frame.size == (width, height) else fit(frame, width, height))
        stream("enter-%s.y4m" % category, frames)
        rows.append(("enter-%s.y4m" % category, entering.hex(), category, "10"))

    with open(os.path.join(folder, "manifest.tsv"), "w") as manifest:
        for row in rows:
            manifest.write("\t".join(row) + "\n")


def fit(image, width, height):
    """A 640x480 frame centred on a 1280x720 one, as a camera further away would see it."""
    canvas = Image.new("L", (width, height), 120)
    canvas.paste(image, ((width - image.width) // 2, (height - image.height) // 2))
    return canvas


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else "all"
    per_category = int(sys.argv[3]) if len(sys.argv) > 3 else 26
    if which in ("realistic", "all"):
        realistic(outdir, per_category)
    if which in ("live", "all"):
        live(outdir)


if __name__ == "__main__":
    main()
