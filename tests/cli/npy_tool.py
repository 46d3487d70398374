#!/usr/bin/env python3
"""tests/cli/npy_tool.py: .npy and .npz files byte by byte, from numpy's
documented format (numpy/lib/format.py, NEP 1), without numpy.

  npy_tool.py gen DIR     write known-good files, each X.npy / X.npz beside the
                          value it holds as onnxop JSON (X.json, or X.NAME.json
                          per member), and hostile files bad_*.np[yz]
  npy_tool.py check FILE [JSON]
                          read FILE as numpy's np.load does (the same header
                          checks, zipfile's CRC checks) and print its values as
                          JSON, one line per array: NAME {"dtype": ...}; with
                          JSON (onnxop's JSON of one value), fail unless FILE
                          holds exactly that value
"""
import ast
import json
import struct
import sys
import zipfile
import zlib

MAGIC = b"\x93NUMPY"

# descr kind+size -> (struct code, onnxop dtype)
CODES = {
    "b1": ("?", "bool"), "i1": ("b", "int8"), "u1": ("B", "uint8"), "i2": ("h", "int16"),
    "u2": ("H", "uint16"), "i4": ("i", "int32"), "u4": ("I", "uint32"), "i8": ("q", "int64"),
    "u8": ("Q", "uint64"), "f2": ("e", "float16"), "f4": ("f", "float32"), "f8": ("d", "float64"),
    "c8": ("ff", "complex64"), "c16": ("dd", "complex128"),
}


def header(descr, shape, fortran=False, version=(1, 0)):
    d = "{'descr': %r, 'fortran_order': %s, 'shape': %r, }" % (descr, fortran, tuple(shape))
    pre = 10 if version[0] == 1 else 12
    d += " " * ((64 - (pre + len(d) + 1) % 64) % 64) + "\n"
    d = d.encode("utf8" if version[0] == 3 else "latin1")
    return MAGIC + bytes(version) + struct.pack("<H" if version[0] == 1 else "<I", len(d)) + d


def prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def flat(data, shape):
    if not shape:
        return [data]
    out = []
    for x in data:
        out += flat(x, shape[1:])
    return out


def fortran_order(items, shape):
    """C-order items -> the Fortran-order sequence (first index fastest)."""
    n = prod(shape)
    out = []
    for k in range(n):
        idx, r = [], k
        for s in shape:
            idx.append(r % s)
            r //= s
        c = 0
        for i, s in zip(idx, shape):
            c = c * s + i
        out.append(items[c])
    return out


def npy(descr, shape, data, fortran=False, version=(1, 0)):
    """The bytes of a .npy: data nested by shape (C order)."""
    items = flat(data, list(shape))
    if fortran:
        items = fortran_order(items, list(shape))
    order = "<" if descr[0] in "<|" else ">"
    body = descr[1:]
    out = b""
    if body[0] in "US":
        width = int(body[1:])
        for s in items:
            if body[0] == "U":
                b = s.encode("utf-32-le" if order == "<" else "utf-32-be")
                out += b + b"\0" * (4 * width - len(b))
            else:
                out += s + b"\0" * (width - len(s))
    else:
        code = CODES[body][0]
        for x in items:
            if len(code) == 2:
                out += struct.pack(order + code, x[0], x[1])
            else:
                out += struct.pack(order + code, x)
    return header(descr, shape, fortran, version) + out


def as_json(descr, shape, data):
    body = descr[1:]
    dt = "string" if body[0] in "US" else CODES[body][1]

    def conv(x):
        if isinstance(x, list):
            return [conv(y) for y in x]
        if isinstance(x, bytes):
            return x.decode()
        if isinstance(x, tuple):
            return [x[0], x[1]]
        return x

    return json.dumps({"dtype": dt, "shape": list(shape), "data": conv(data)})


# name: (descr, shape, data, fortran, version)
GOOD = {
    "f4": ("<f4", (2, 3), [[-1, 0, 1.5], [-2.25, 3.5, -4.75]], False, (1, 0)),
    "f8_be": (">f8", (3,), [1.5, -2.0, 1e300], False, (1, 0)),
    "i8_fortran": ("<i8", (2, 3), [[1, 2, 3], [4, 5, 6]], True, (1, 0)),
    "u2_be_fortran_v2": (">u2", (2, 2, 2), [[[1, 2], [3, 65535]], [[5, 6], [7, 8]]], True, (2, 0)),
    "b1": ("|b1", (4,), [True, False, True, True], False, (1, 0)),
    "c8": ("<c8", (2,), [(1.0, 2.0), (-3.5, 0.0)], False, (1, 0)),
    "c16_be": (">c16", (1, 2), [[(0.25, -1.0), (2.0, 3.0)]], False, (3, 0)),
    "f2": ("<f2", (4,), [1.0, 0.5, -2.0, 65504.0], False, (1, 0)),
    "i1": ("|i1", (3,), [-128, 0, 127], False, (1, 0)),
    "u1": ("|u1", (3,), [0, 1, 255], False, (1, 0)),
    "i2": ("<i2", (2,), [-32768, 32767], False, (1, 0)),
    "i4": ("<i4", (), 7, False, (1, 0)),
    "u4": (">u4", (2,), [0, 4294967295], False, (1, 0)),
    "u8": ("<u8", (2,), [0, 9007199254740992], False, (1, 0)),
    "empty": ("<f4", (0, 3), [], False, (1, 0)),
    "U": ("<U5", (2, 2), [["a", "h\u00e9llo"], ["", "\u65e5\u672c"]], False, (1, 0)),
    "U_be_fortran_v3": (">U3", (2, 2), [["ab", "c"], ["d\u00e9f", "\U0001F600"]], True, (3, 0)),
    "S": ("|S3", (2,), [b"ab", b"xyz"], False, (1, 0)),
}


def zip_numpy(path, members, method):
    """As np.savez (stored) and np.savez_compressed (deflate): zip64 forced."""
    with zipfile.ZipFile(path, "w", compression=method, allowZip64=True) as z:
        for name, data in members:
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                f.write(data)


def raw_zip(members, cd_tweak=None, local_tweak=None):
    """A stored zip written by hand: [(name, bytes)]; tweaks edit fields."""
    out, cd = b"", b""
    for name, data in members:
        nm = name.encode()
        crc = zlib.crc32(data)
        f = dict(crc=crc, csize=len(data), usize=len(data), off=len(out), method=0)
        lf = dict(f)
        if local_tweak:
            local_tweak(name, lf)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, lf["method"], 0, 0x21, lf["crc"], lf["csize"],
                           lf["usize"], len(nm), 0) + nm + data
        if cd_tweak:
            cd_tweak(name, f)
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, f["method"], 0, 0x21, f["crc"],
                          f["csize"], f["usize"], len(nm), 0, 0, 0, 0, 0, f["off"]) + nm
    n = len(members)
    return out + cd + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(cd), len(out), 0)


def gen(d):
    for name, (descr, shape, data, fortran, version) in GOOD.items():
        with open("%s/%s.npy" % (d, name), "wb") as f:
            f.write(npy(descr, shape, data, fortran, version))
        with open("%s/%s.json" % (d, name), "w") as f:
            f.write(as_json(descr, shape, data) + "\n")
    x = GOOD["f4"]
    y = ("<i8", (), -2, False, (1, 0))
    x2 = ("<f4", (2, 3), [[10, 20, 30], [40, 50, 60]], False, (1, 0))
    zip_numpy(d + "/bundle.npz", [("x", npy(*x)), ("pos", npy(*y))], zipfile.ZIP_STORED)
    zip_numpy(d + "/bundle_deflate.npz", [("x", npy(*x)), ("pos", npy(*y))], zipfile.ZIP_DEFLATED)
    # inputs of a model with inputs x and y: by name (in the other order), and positional
    zip_numpy(d + "/yx.npz", [("y", npy(*x2)), ("x", npy(*x))], zipfile.ZIP_DEFLATED)
    zip_numpy(d + "/arr.npz", [("arr_0", npy(*x)), ("arr_1", npy(*x2))], zipfile.ZIP_STORED)
    # the bytes onnxop writes for bundle.npz's two members: stored, fixed date
    with open(d + "/bundle_expected_bytes.npz", "wb") as f:
        f.write(raw_zip([("x.npy", npy(*x)), ("pos.npy", npy(*y))]))
    # zip64 end records (as zipfile writes past 65535 members or 4 GiB): the
    # classic record's counts and offsets are 0xffff / 0xffffffff
    z = raw_zip([("x.npy", npy(*x)), ("pos.npy", npy(*y))])
    cd_end = len(z) - 22
    (cdsize, cdoff) = struct.unpack("<II", z[cd_end + 12:cd_end + 20])
    rec64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 2, 2, cdsize, cdoff)
    loc = struct.pack("<IIQI", 0x07064B50, 0, cd_end, 1)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(d + "/zip64.npz", "wb") as f:
        f.write(z[:cd_end] + rec64 + loc + end)
    bad_loc = struct.pack("<IIQI", 0x07064B50, 0, 10 ** 9, 1)
    with open(d + "/bad_zip64_locator.npz", "wb") as f:
        f.write(z[:cd_end] + rec64 + bad_loc + end)
    for nm, v in (("x", x), ("pos", y)):
        with open("%s/bundle.%s.json" % (d, nm), "w") as f:
            f.write(as_json(v[0], v[1], v[2]) + "\n")

    # ---- hostile ----
    good = npy(*x)
    bad = {}
    bad["bad_header_len.npy"] = good[:8] + struct.pack("<H", 60000) + good[10:]
    bad["bad_header_len_v2.npy"] = MAGIC + bytes((2, 0)) + struct.pack("<I", 0xFFFFFFF0) + good[10:]
    bad["bad_overflow.npy"] = header("<f4", (2 ** 40, 2 ** 40)) + b"\0" * 16
    bad["bad_short.npy"] = good[:-4]
    bad["bad_trailing.npy"] = good + b"\0\0\0\0"
    bad["bad_object.npy"] = header("|O", (2,)) + b"\x80\x02N."
    bad["bad_structured.npy"] = (MAGIC + b"\x01\x00" + struct.pack("<H", 80)
                                 + b"{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': False, 'shape': (2,), }".ljust(79) + b"\n")
    bad["bad_version.npy"] = MAGIC + b"\x04\x00" + good[8:]
    bad["bad_magic.npy"] = b"NUMPY!" + good[6:]
    bad["bad_key.npy"] = header("<f4", (1,)).replace(b"'shape'", b"'shapf'") + b"\0" * 4
    bad["bad_datetime.npy"] = header("<M8[ns]", (1,)) + b"\0" * 8
    bad["bad_surrogate.npy"] = header("<U1", (1,)) + struct.pack("<I", 0xD800)
    # zip archives
    bad["bad_zip_offset.npz"] = raw_zip([("x.npy", good)], cd_tweak=lambda n, f: f.update(off=100000))
    bad["bad_zip_size.npz"] = raw_zip([("x.npy", good)], cd_tweak=lambda n, f: f.update(csize=10 ** 6, usize=10 ** 6))
    bad["bad_zip_crc.npz"] = raw_zip([("x.npy", good)], cd_tweak=lambda n, f: f.update(crc=f["crc"] ^ 1))
    bad["bad_zip_path.npz"] = raw_zip([("../x.npy", good)])
    bad["bad_zip_abs.npz"] = raw_zip([("/tmp/x.npy", good)])
    bad["bad_zip_dup.npz"] = raw_zip([("x.npy", good), ("x.npy", good)])
    bad["bad_zip_truncated.npz"] = raw_zip([("x.npy", good)])[:-30]
    # a zip bomb: 64 MiB of zeros deflate to 64 KiB; the member declares its real size
    zeros = header("|u1", (64 << 20,)) + b"\0" * (64 << 20)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    cz = comp.compress(zeros) + comp.flush()
    crc = zlib.crc32(zeros)

    def bomb(n, f):
        f.update(method=8, csize=len(cz), usize=len(zeros), crc=crc)

    arch = raw_zip([("x.npy", b"\0" * len(cz))], cd_tweak=bomb, local_tweak=bomb)
    # put the deflated bytes where the stored placeholder was
    i = arch.index(b"x.npy") + 5
    bad["bad_zip_bomb.npz"] = arch[:i] + cz + arch[i + len(cz):]

    def liar(n, f):  # declares 100 bytes, inflates to 64 MiB
        f.update(method=8, csize=len(cz), usize=100, crc=crc)

    arch = raw_zip([("x.npy", b"\0" * len(cz))], cd_tweak=liar, local_tweak=liar)
    bad["bad_zip_liar.npz"] = arch[:i] + cz + arch[i + len(cz):]
    for k, v in bad.items():
        with open("%s/%s" % (d, k), "wb") as f:
            f.write(v)


# ---- reading as numpy does ----

def read_npy(b, where):
    if b[:6] != MAGIC:
        raise SystemExit("%s: not a .npy" % where)
    major, minor = b[6], b[7]
    if (major, minor) not in ((1, 0), (2, 0), (3, 0)):
        raise SystemExit("%s: version %d.%d" % (where, major, minor))
    if major == 1:
        (hl,) = struct.unpack("<H", b[8:10])
        pre = 10
    else:
        (hl,) = struct.unpack("<I", b[8:12])
        pre = 12
    text = b[pre:pre + hl].decode("utf8" if major == 3 else "latin1")
    if not text.endswith("\n") or (pre + hl) % 64:
        raise SystemExit("%s: the header is not padded to 64 bytes and ended by a newline" % where)
    d = ast.literal_eval(text)  # numpy: safe_eval
    if not isinstance(d, dict) or sorted(d.keys()) != ["descr", "fortran_order", "shape"]:
        raise SystemExit("%s: header keys %r" % (where, d))
    shape, fortran, descr = d["shape"], d["fortran_order"], d["descr"]
    if not isinstance(shape, tuple) or not all(isinstance(x, int) for x in shape):
        raise SystemExit("%s: shape %r" % (where, shape))
    if not isinstance(fortran, bool) or fortran:
        raise SystemExit("%s: fortran_order %r (onnxop writes C order)" % (where, fortran))
    n = prod(shape)
    body, order = descr[1:], "<" if descr[0] in "<|" else ">"
    data = b[pre + hl:]
    items = []
    if body[0] == "U":
        w = 4 * int(body[1:])
        if len(data) != n * w:
            raise SystemExit("%s: %d data bytes for %d elements of %s" % (where, len(data), n, descr))
        for k in range(n):
            items.append(data[k * w:(k + 1) * w].decode("utf-32-le").rstrip("\0"))
        dt = "string"
    else:
        code, dt = CODES[body]
        size = struct.calcsize("<" + code)
        if len(data) != n * size:
            raise SystemExit("%s: %d data bytes for %d elements of %s" % (where, len(data), n, descr))
        for k in range(n):
            v = struct.unpack(order + code, data[k * size:(k + 1) * size])
            items.append(list(v) if len(v) == 2 else v[0])
    return json.dumps({"descr": descr, "dtype": dt, "shape": list(shape), "data": items})


def check(path, want=None):
    if want:
        with open(want) as f:
            w = json.load(f)
        got = json.loads(read_npy(open(path, "rb").read(), path))
        flat_w = flat(w["data"], w["shape"]) if w["shape"] else [w["data"]]
        if w["dtype"].startswith("complex"):
            flat_w = [list(c) for c in flat_w]
        if got["dtype"] != w["dtype"] or got["shape"] != w["shape"] or got["data"] != flat_w:
            raise SystemExit("%s holds %r, not %r" % (path, got, w))
        print("-", json.dumps(got))
        return
    with open(path, "rb") as f:
        b = f.read()
    if path.endswith(".npz"):
        with zipfile.ZipFile(path) as z:
            if z.testzip() is not None:
                raise SystemExit("%s: a member fails its CRC" % path)
            for info in z.infolist():
                print(info.filename[:-4] if info.filename.endswith(".npy") else info.filename,
                      read_npy(z.read(info), path + ":" + info.filename))
    else:
        print("-", read_npy(b, path))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "check":
        check(*sys.argv[2:])
    else:
        sys.exit(__doc__)
