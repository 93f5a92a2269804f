"""Draws examples/assets/receipt.png, the receipt examples/receipt.rs reads.

Made here, not downloaded: a 5x7 pixel font drawn at 3x on white, written
as an 8-bit grayscale PNG with the standard library alone (zlib, struct).
Run `python3 examples/assets/make_receipt.py` to draw it again.
"""

import pathlib
import struct
import zlib

LINES = [
    "BLUE DOOR CAFE",
    "RECEIPT #1042  2025-07-14",
    "",
    "ESPRESSO   2 X 3.50   7.00",
    "CROISSANT  1 X 2.75   2.75",
    "",
    "TOTAL                 9.75",
]

# 5 columns x 7 rows per glyph, one string per row.
FONT = {
    "A": ["01110", "10001", "10001", "11111", "10001", "10001", "10001"],
    "B": ["11110", "10001", "10001", "11110", "10001", "10001", "11110"],
    "C": ["01110", "10001", "10000", "10000", "10000", "10001", "01110"],
    "D": ["11110", "10001", "10001", "10001", "10001", "10001", "11110"],
    "E": ["11111", "10000", "10000", "11110", "10000", "10000", "11111"],
    "F": ["11111", "10000", "10000", "11110", "10000", "10000", "10000"],
    "I": ["01110", "00100", "00100", "00100", "00100", "00100", "01110"],
    "L": ["10000", "10000", "10000", "10000", "10000", "10000", "11111"],
    "N": ["10001", "11001", "10101", "10011", "10001", "10001", "10001"],
    "O": ["01110", "10001", "10001", "10001", "10001", "10001", "01110"],
    "P": ["11110", "10001", "10001", "11110", "10000", "10000", "10000"],
    "R": ["11110", "10001", "10001", "11110", "10100", "10010", "10001"],
    "S": ["01111", "10000", "10000", "01110", "00001", "00001", "11110"],
    "T": ["11111", "00100", "00100", "00100", "00100", "00100", "00100"],
    "U": ["10001", "10001", "10001", "10001", "10001", "10001", "01110"],
    "X": ["10001", "10001", "01010", "00100", "01010", "10001", "10001"],
    "0": ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    "1": ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    "2": ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    "3": ["11110", "00001", "00001", "01110", "00001", "00001", "11110"],
    "4": ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    "5": ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    "6": ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    "7": ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    "8": ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    "9": ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
    "#": ["01010", "01010", "11111", "01010", "11111", "01010", "01010"],
    "-": ["00000", "00000", "00000", "11111", "00000", "00000", "00000"],
    ".": ["00000", "00000", "00000", "00000", "00000", "01100", "01100"],
    " ": ["00000"] * 7,
}

SCALE = 3
MARGIN = 12
ADVANCE = 6  # a glyph and one blank column
LINE = 10  # a glyph and three blank rows


def draw():
    columns = max(len(line) for line in LINES) * ADVANCE
    width = columns * SCALE + 2 * MARGIN
    height = len(LINES) * LINE * SCALE + 2 * MARGIN
    pixels = [[255] * width for _ in range(height)]
    for row, line in enumerate(LINES):
        for col, char in enumerate(line):
            for y, bits in enumerate(FONT[char]):
                for x, bit in enumerate(bits):
                    if bit == "1":
                        top = MARGIN + (row * LINE + y) * SCALE
                        left = MARGIN + (col * ADVANCE + x) * SCALE
                        for dy in range(SCALE):
                            for dx in range(SCALE):
                                pixels[top + dy][left + dx] = 0
    return width, height, pixels


def png(width, height, pixels):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit gray
    raw = b"".join(b"\0" + bytes(row) for row in pixels)  # filter 0 per row
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("receipt.png")
    out.write_bytes(png(*draw()))
    print(f"{out}: {out.stat().st_size} bytes")
