#!/usr/bin/env python3
"""Writes the fuzz seed corpus (tests/fuzz/seeds): small PNGs of every
colour type and bit depth the loader expands (palette with tRNS, grey with
tRNS, 16-bit, interlaced, sRGB and sBIT chunks) and baseline JPEGs (RGB and
grey, from gst-launch-1.0's jpegenc). Each file is under 2 KB.

Usage: make_seeds.py OUT_DIR
"""
import os
import struct
import subprocess
import sys
import zlib


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(
        ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png(width, height, depth, color_type, interlace=0, extra=b"", sample=None):
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    bits_per_row = width * channels * depth
    row_bytes = (bits_per_row + 7) // 8
    raw = b""
    if interlace:
        # Adam7: every pass's rows (pattern data; the values do not matter).
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
                  (1, 0, 2, 2), (0, 1, 1, 2)]
        for x0, y0, dx, dy in passes:
            w = max(0, (width - x0 + dx - 1) // dx)
            h = max(0, (height - y0 + dy - 1) // dy)
            if w == 0:
                continue
            rb = (w * channels * depth + 7) // 8
            for y in range(h):
                raw += bytes([y % 5]) + bytes((7 * x + 3 * y) % 256 for x in range(rb))
    else:
        for y in range(height):
            raw += bytes([y % 5]) + bytes(
                (sample(x, y) if sample else (13 * x + 29 * y)) % 256 for x in range(row_bytes))
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    palette = chunk(b"PLTE", bytes(range(48)))
    seeds = {
        "rgb8.png": png(16, 16, 8, 2),
        "rgb16.png": png(9, 8, 16, 2),
        "rgba8.png": png(12, 10, 8, 6),
        "rgba16.png": png(8, 8, 16, 6),
        "grey8.png": png(16, 9, 8, 0),
        "grey16.png": png(8, 11, 16, 0),
        "grey_alpha8.png": png(10, 10, 8, 4),
        "grey_trns.png": png(8, 8, 8, 0, extra=chunk(b"tRNS", b"\x00\x10")),
        "palette4.png": png(16, 8, 4, 3, extra=palette + chunk(b"tRNS", b"\x00\x80\xff")),
        "palette8.png": png(8, 8, 8, 3, extra=palette, sample=lambda x, y: (x + y) % 16),
        "interlaced.png": png(17, 13, 8, 2, interlace=1),
        "srgb_sbit.png": png(8, 8, 8, 2, extra=chunk(b"sRGB", b"\x00") +
                             chunk(b"sBIT", b"\x08\x08\x08")),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    for name, fmt in (("rgb.jpg", "I420"), ("grey.jpg", "GRAY8")):
        subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "pattern=ball",
                        "!", f"video/x-raw,format={fmt},width=24,height=16", "!",
                        "jpegenc", "quality=80", "!", "filesink",
                        "location=" + os.path.join(out, name)], check=True)


if __name__ == "__main__":
    main()
