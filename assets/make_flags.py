#!/usr/bin/env python3
"""Generates the flag images of assets/flags/ (used by assets/flags/row.json, the README's picture
of several flags): a tricolour and a cross, made-up designs and colours, no real flag. Standard
library only (zlib).

Usage: python3 assets/make_flags.py
"""
import struct
import zlib
from pathlib import Path


def png(path, width, height, pixel):
    rows = b"".join(
        b"\0" + bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height)
    )

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    Path(path).write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", head)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def tricolour(x, y, w=360, h=240):
    bands = [(70, 40, 120), (240, 200, 70), (90, 160, 210)]
    return bands[min(2, 3 * x // w)]


def cross(x, y, w=370, h=240):
    # A cross off the middle towards the hoist, a thin line inside it.
    cx, cy, arm, line = 130, 120, 30, 8
    if abs(x - cx) < line // 2 or abs(y - cy) < line // 2:
        return (120, 30, 110)
    if abs(x - cx) < arm // 2 or abs(y - cy) < arm // 2:
        return (250, 200, 60)
    return (60, 40, 120)


if __name__ == "__main__":
    out = Path(__file__).resolve().parent / "flags"
    out.mkdir(exist_ok=True)
    png(out / "tricolour.png", 360, 240, tricolour)
    png(out / "cross.png", 370, 240, cross)
