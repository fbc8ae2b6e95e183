"""report_check.py -- helpers of tests/cli_report.sh (not a test itself):
read a PNG screenshot (the standard library only: zlib, struct) and the
data-* attributes of a page's DOM as Chromium serialized it."""
import html.parser
import struct
import zlib


def png_pixels(path):
    """(width, height, rows): rows[y] is a list of (r, g, b) tuples."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def count_colors(rows, colors):
    """{hex: number of pixels of exactly that colour}."""
    want = {tuple(int(c[k:k + 2], 16) for k in (1, 3, 5)): c for c in colors}
    n = dict.fromkeys(colors, 0)
    for r in rows:
        for p in r:
            if p in want:
                n[want[p]] += 1
    return n


class Elements(html.parser.HTMLParser):
    """Every element with a data-* attribute: (tag, {attr: value})."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if any(k.startswith("data-") for k in a):
            self.found.append((tag, a))

    handle_startendtag = handle_starttag


def elements(path):
    p = Elements()
    p.feed(open(path, encoding="utf-8").read())
    return p.found
