#!/usr/bin/env python3
"""Generates assets/backgrounds/dusk.png, a background for the README's setting picture: a dusk
sky over hills and a bay, an original drawing (no photograph). Standard library only (zlib).

Usage: python3 assets/make_backdrop.py
"""
import math
import struct
import zlib
from pathlib import Path

W, H = 960, 540


def mix(a, b, t):
    t = max(0.0, min(1.0, t))
    return tuple(x + (y - x) * t for x, y in zip(a, b))


def ridge(x, base, amp, freqs):
    """Height of a range of hills (pixels from the top) at column x."""
    return base - amp * sum(math.sin(x * f + p) / (i + 1) for i, (f, p) in enumerate(freqs))


def pixel(x, y):
    horizon = 0.62 * H
    if y < horizon:
        t = y / horizon
        sky = mix((24, 42, 92), (240, 150, 96), t ** 1.6)
        # The sun, low over the hills, with a soft glow.
        d = math.hypot(x - 0.7 * W, y - 0.5 * H)
        sky = mix(sky, (255, 226, 170), math.exp(-(d / 90.0) ** 2) * 0.9)
        if d < 26:
            sky = (255, 240, 205)
        far = ridge(x, 0.56 * H, 18, [(0.011, 0.4), (0.027, 1.3), (0.061, 2.0)])
        near = ridge(x, 0.63 * H, 34, [(0.006, 2.2), (0.019, 0.7), (0.043, 1.1)])
        if y > near:
            return (38, 40, 62)
        if y > far:
            return mix((86, 74, 104), sky, 0.25)
        return sky
    # The bay: the sky's colours, darker, with ripples of the sun's reflection.
    t = (y - horizon) / (H - horizon)
    water = mix((120, 92, 110), (22, 34, 62), t ** 0.7)
    glint = math.exp(-((x - 0.7 * W) / (40 + 140 * t)) ** 2) * (0.5 + 0.5 * math.sin(y * 0.9))
    return mix(water, (250, 200, 150), 0.55 * glint * (1 - t))


def main():
    rows = []
    for y in range(H):
        row = bytearray([0])
        for x in range(W):
            row.extend(int(round(c)) for c in pixel(x, y))
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", raw) + chunk(b"IEND", b""))
    out = Path(__file__).resolve().parent / "backgrounds" / "dusk.png"
    out.write_bytes(png)
    print(f"wrote {out} ({W} x {H})")


if __name__ == "__main__":
    main()
