#!/usr/bin/env python3
"""Generates assets/flag.png, flagsim's own flag (an original design, no real country's flag).

Design: a navy field over a teal sea, split by a cream wave band; a golden leaf rises in the
upper hoist. Four colours, no words. Drawn at 4x and downsampled so the edges are anti-aliased.

Usage: python3 assets/make_flag.py   (needs Pillow: pip install pillow)
"""
import math
from pathlib import Path

from PIL import Image, ImageDraw

WIDTH, HEIGHT = 512, 341  # 3:2, the final texture size in pixels
SS = 4  # supersampling factor

NAVY = (29, 53, 87)
TEAL = (42, 157, 143)
CREAM = (241, 236, 214)
GOLD = (233, 176, 66)


def wave_y(x: float, base: float, amp: float, phase: float) -> float:
    """Height (pixels, y down) of a wave across the flag; x in pixels of the large canvas."""
    w = WIDTH * SS
    return base + amp * math.sin(2.0 * math.pi * (1.25 * x / w) + phase)


def wave_band(draw: ImageDraw.ImageDraw, top: float, bottom: float, amp: float, colour) -> None:
    """Fills everything between two parallel waves, the lower one extending to the bottom if
    `bottom` is None."""
    w, h = WIDTH * SS, HEIGHT * SS
    xs = range(0, w + SS, SS)
    upper = [(x, wave_y(x, top, amp, 0.3)) for x in xs]
    if bottom is None:
        lower = [(w, h), (0, h)]
    else:
        lower = [(x, wave_y(x, bottom, amp, 0.3)) for x in reversed(xs)]
    draw.polygon(upper + lower, fill=colour)


def leaf(draw: ImageDraw.ImageDraw, cx: float, cy: float, length: float, width: float, angle: float):
    """A pointed leaf (two circular arcs) with a midrib, rotated by `angle` radians."""
    n = 64
    pts = []
    for side in (1, -1):
        for i in range(n + 1):
            t = i / n if side == 1 else 1 - i / n
            along = (t - 0.5) * length
            across = side * width * 0.5 * math.sin(math.pi * t) ** 0.8
            pts.append((along, across))
    ca, sa = math.cos(angle), math.sin(angle)
    rot = [(cx + a * ca - b * sa, cy + a * sa + b * ca) for a, b in pts]
    draw.polygon(rot, fill=GOLD)
    # Midrib and two pairs of veins in the field colour, so the leaf reads at small sizes.
    def to_canvas(a, b):
        return (cx + a * ca - b * sa, cy + a * sa + b * ca)

    rib = 0.045 * width
    draw.line([to_canvas(-0.5 * length, 0), to_canvas(0.42 * length, 0)], fill=NAVY, width=int(rib))
    for a0 in (-0.15, 0.12):
        for side in (1, -1):
            start = to_canvas(a0 * length, 0)
            end = to_canvas((a0 + 0.16) * length, side * 0.3 * width)
            draw.line([start, end], fill=NAVY, width=int(rib * 0.8))


def main() -> None:
    w, h = WIDTH * SS, HEIGHT * SS
    img = Image.new("RGB", (w, h), NAVY)
    draw = ImageDraw.Draw(img)
    amp = 0.06 * h
    wave_band(draw, 0.60 * h, None, amp, CREAM)  # cream crest
    wave_band(draw, 0.68 * h, None, amp, TEAL)  # the sea
    wave_band(draw, 0.80 * h, 0.84 * h, amp, CREAM)  # a thin second crest
    # Sun disc behind the leaf, then the leaf itself, in the upper hoist.
    r = 0.17 * h
    cx, cy = 0.25 * w, 0.30 * h
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=GOLD, width=int(0.025 * h))
    leaf(draw, cx, cy, 0.42 * h, 0.20 * h, -math.pi / 4)
    out = img.resize((WIDTH, HEIGHT), Image.LANCZOS)
    path = Path(__file__).with_name("flag.png")
    out.save(path, optimize=True)
    print(f"wrote {path} ({WIDTH}x{HEIGHT})")


if __name__ == "__main__":
    main()
