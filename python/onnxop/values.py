"""Values between Python and the library.

ONNX values are given and returned as Python objects:

- tensors as numpy arrays, for every element type numpy has; strings as
  arrays of ``str`` (``bytes`` for an element that is not UTF-8; in, ``str``,
  ``bytes`` and numpy's ``U`` and ``S`` arrays too), NUL bytes kept;
- the element types numpy lacks (bfloat16, the float8s, float8e8m0,
  float4e2m1, int4, uint4, int2, uint2) as :class:`Tensor`, their bit
  patterns with the type's name, or as ``ml_dtypes`` arrays when that module
  is importable (then outputs are ``ml_dtypes`` arrays too);
- sequences as lists, optionals as ``None`` (none) or the value, maps as
  dicts.

An input array that is C-contiguous, aligned and in the machine's byte order
is handed to the library without a copy (``onnxop_tensor_wrap``); any other
(Fortran order, strided, big-endian) is converted first. Outputs are always
copied into new, writable arrays, which need nothing of the library's once
made.
"""

import numpy as np

from . import errors
from .capi import ffi, lib

try:
    import ml_dtypes
except ImportError:  # not on Debian 12
    ml_dtypes = None

STRING = lib.ONNXOP_STRING

# ONNX element type -> the numpy dtype that holds it
NUMPY = {
    lib.ONNXOP_FLOAT: np.dtype(np.float32), lib.ONNXOP_UINT8: np.dtype(np.uint8),
    lib.ONNXOP_INT8: np.dtype(np.int8), lib.ONNXOP_UINT16: np.dtype(np.uint16),
    lib.ONNXOP_INT16: np.dtype(np.int16), lib.ONNXOP_INT32: np.dtype(np.int32),
    lib.ONNXOP_INT64: np.dtype(np.int64), lib.ONNXOP_BOOL: np.dtype(np.bool_),
    lib.ONNXOP_FLOAT16: np.dtype(np.float16), lib.ONNXOP_DOUBLE: np.dtype(np.float64),
    lib.ONNXOP_UINT32: np.dtype(np.uint32), lib.ONNXOP_UINT64: np.dtype(np.uint64),
    lib.ONNXOP_COMPLEX64: np.dtype(np.complex64), lib.ONNXOP_COMPLEX128: np.dtype(np.complex128),
}
ONNX = {dt: code for code, dt in NUMPY.items()}  # numpy dtype -> ONNX element type

# The types numpy lacks: ONNX element type -> (how onnxop stores an element
# in memory, the ml_dtypes name). 4- and 2-bit types take a byte each, the
# signed ones as their value (sign-extended), the others as their bits.
BITS = {
    lib.ONNXOP_BFLOAT16: (np.dtype(np.uint16), "bfloat16"),
    lib.ONNXOP_FLOAT8E4M3FN: (np.dtype(np.uint8), "float8_e4m3fn"),
    lib.ONNXOP_FLOAT8E4M3FNUZ: (np.dtype(np.uint8), "float8_e4m3fnuz"),
    lib.ONNXOP_FLOAT8E5M2: (np.dtype(np.uint8), "float8_e5m2"),
    lib.ONNXOP_FLOAT8E5M2FNUZ: (np.dtype(np.uint8), "float8_e5m2fnuz"),
    lib.ONNXOP_UINT4: (np.dtype(np.uint8), "uint4"),
    lib.ONNXOP_INT4: (np.dtype(np.int8), "int4"),
    lib.ONNXOP_FLOAT4E2M1: (np.dtype(np.uint8), "float4_e2m1fn"),
    lib.ONNXOP_FLOAT8E8M0: (np.dtype(np.uint8), "float8_e8m0fnu"),
    lib.ONNXOP_UINT2: (np.dtype(np.uint8), "uint2"),
    lib.ONNXOP_INT2: (np.dtype(np.int8), "int2"),
}
# the integer ones convert to ml_dtypes by value, the others by their bits
_BY_VALUE = {lib.ONNXOP_UINT4, lib.ONNXOP_INT4, lib.ONNXOP_UINT2, lib.ONNXOP_INT2}


def dtype_name(code):
    """The ONNX name of an element type ("float", "bfloat16"), or None."""
    p = lib.onnxop_dtype_name(code)
    return ffi.string(p).decode() if p != ffi.NULL else None


# ONNX name ("float", "float8e4m3fn") -> element type
CODES = {dtype_name(c): c for c in range(1, 64) if dtype_name(c)}

_ML = {}  # ml_dtypes dtype -> ONNX element type
if ml_dtypes is not None:
    for _code, (_, _name) in BITS.items():
        if hasattr(ml_dtypes, _name):
            _ML[np.dtype(getattr(ml_dtypes, _name))] = _code


class Tensor:
    """A tensor of an ONNX element type numpy lacks: ``Tensor(bits, "bfloat16")``.

    ``bits`` holds an element a number, as onnxop keeps it in memory:
    bfloat16 as uint16 bit patterns; the float8s, float8e8m0, float4e2m1,
    uint4 and uint2 as uint8 (their bits in the low ones); int4 and int2 as
    int8 values (-8 to 7, -2 to 1; uint8 bit patterns are taken too and
    sign-extended). ``dtype`` is the ONNX name.
    """

    __slots__ = ("bits", "dtype")

    def __init__(self, bits, dtype):
        code = CODES.get(dtype)
        if code not in BITS:
            names = ", ".join(dtype_name(c) for c in BITS)
            raise errors.UsageError(f"Tensor is for the types numpy lacks ({names}), not {dtype!r}")
        storage = BITS[code][0]
        bits = np.asarray(bits)
        if storage == np.int8 and bits.dtype.kind == "u":  # int4/int2 bit patterns
            width = 4 if code == lib.ONNXOP_INT4 else 2
            sign = 1 << (width - 1)
            bits = ((bits.astype(np.int16) & ((1 << width) - 1)) ^ sign) - sign
        if bits.dtype != storage:
            if bits.dtype.kind not in "iub" or (bits.size and (bits.min() < np.iinfo(storage).min
                                                              or bits.max() > np.iinfo(storage).max)):
                raise errors.UsageError(f"the bits of a {dtype} tensor must be {storage} "
                                        f"numbers, not {bits.dtype}")
            bits = bits.astype(storage)
        self.bits = bits
        self.dtype = dtype

    @property
    def shape(self):
        return self.bits.shape

    def __eq__(self, other):
        return (isinstance(other, Tensor) and other.dtype == self.dtype
                and other.bits.shape == self.bits.shape and bool(np.all(other.bits == self.bits)))

    def __repr__(self):
        return f"Tensor({self.bits!r}, {self.dtype!r})"


# ---- declared types ----

def parse_type(s):
    """An ONNX type string as a tuple: "tensor(float)" -> ("tensor", "float"),
    "seq(X)" and "optional(X)" -> ("seq", X), "map(string,X)" -> ("map",
    "string", X); None for None."""
    if s is None:
        return None
    s = s.strip()
    head, _, rest = s.partition("(")
    inner = rest[:-1].strip()
    if head == "tensor":
        return ("tensor", inner)
    if head in ("seq", "sequence"):
        return ("seq", parse_type(inner))
    if head == "optional":
        return ("optional", parse_type(inner))
    if head == "map":
        key, _, value = inner.partition(",")
        return ("map", key.strip(), parse_type(value))
    return None


def type_string(t):
    """The inverse of parse_type."""
    if t[0] == "tensor":
        return f"tensor({t[1]})"
    if t[0] == "map":
        return f"map({t[1]},{type_string(t[2])})"
    return f"{t[0]}({type_string(t[1])})"


# ---- Python -> library ----

def _check(rc, err):
    if rc:
        errors.raise_error(err)


def to_value(x, t, keep):
    """A new library value (the caller frees it) for the Python value x,
    of the declared type t (parse_type's tuple, or None: as x says). Arrays
    the value wraps are appended to keep, which must outlive it."""
    kind = t[0] if t else None
    if kind == "optional":
        if x is None:
            return _new(lib.onnxop_optional_new, type_string(t[1]).encode(), ffi.NULL)
        inner = to_value(x, t[1], keep)
        try:
            return _new(lib.onnxop_optional_new, ffi.NULL, inner)
        finally:
            lib.onnxop_value_free(inner)
    if x is None:
        want = f"; the model declares {type_string(t)}" if t else ""
        raise errors.UsageError(f"None is an absent optional{want}")
    if isinstance(x, dict):
        return _map(x, t, keep)
    if isinstance(x, (list, tuple)) and kind != "tensor":
        return _sequence(x, t[1] if kind == "seq" else None, keep)
    return tensor_value(x, t[1] if kind == "tensor" else None, keep)


def _new(fn, *args):
    out = ffi.new("onnxop_value **")
    err = ffi.new("onnxop_error **")
    _check(fn(*args, out, err), err)
    return out[0]


def tensor_value(x, elem, keep):
    """A tensor value for x (an array, a Tensor, a scalar, nested lists);
    elem: the declared element type's name, or None."""
    if isinstance(x, Tensor):
        return _wrap(x.bits, CODES[x.dtype], keep)
    if not isinstance(x, np.ndarray):
        code = CODES.get(elem)
        if code in BITS:
            raise errors.UsageError(f"a {elem} tensor is given as onnxop.Tensor(bits, {elem!r})")
        x = np.asarray(x, dtype=object if code == STRING else NUMPY.get(code))
    code = ONNX.get(x.dtype)
    if code is None:
        if x.dtype.kind in "OUS":
            return _strings(x)
        if x.dtype in _ML:
            code = _ML[x.dtype]
            storage = BITS[code][0]
            return _wrap(x.astype(storage) if code in _BY_VALUE else x.view(storage), code, keep)
        native = x.dtype.newbyteorder("=")
        if x.dtype.byteorder not in "=|" and native in ONNX:  # the other byte order
            return _wrap(x.astype(native), ONNX[native], keep)
        raise errors.UsageError(f"numpy's {x.dtype} has no ONNX element type")
    return _wrap(x, code, keep)


def _wrap(x, code, keep):
    if not (x.flags.c_contiguous and x.flags.aligned):
        x = np.array(x, order="C")  # a new array is aligned
    keep.append(x)
    dims = ffi.new("int64_t[]", x.shape) if x.ndim else ffi.NULL
    return _new(lib.onnxop_tensor_wrap, code, x.ndim, dims, ffi.from_buffer(x))


def _strings(x):
    flat = []
    for s in x.ravel(order="C").tolist():
        if isinstance(s, str):
            flat.append(s.encode("utf-8", "surrogatepass"))
        elif isinstance(s, (bytes, bytearray)):
            flat.append(bytes(s))
        else:
            raise errors.UsageError(f"a string tensor holds str or bytes, not {type(s).__name__}")
    bufs = [ffi.from_buffer(b) for b in flat]
    dims = ffi.new("int64_t[]", x.shape) if x.ndim else ffi.NULL
    return _new(lib.onnxop_tensor_new_strings, x.ndim, dims, ffi.new("char *[]", bufs),
                ffi.new("size_t[]", [len(b) for b in flat]))


def _sequence(items, elem, keep):
    if not items and elem is None:
        raise errors.UsageError("an empty list needs its element type (the model declares none)")
    elems = []
    try:
        for e in items:
            elems.append(to_value(e, elem, keep))
        tstr = type_string(elem).encode() if elem else ffi.NULL
        return _new(lib.onnxop_sequence_new, tstr, len(elems), ffi.new("onnxop_value *[]", elems))
    finally:
        for e in elems:
            lib.onnxop_value_free(e)


def _map(d, t, keep):
    key = t[1] if t and t[0] == "map" else None
    value = t[2] if t and t[0] == "map" else None
    keys = list(d)
    if key is None:
        if keys and all(isinstance(k, (str, bytes)) for k in keys):
            key = "string"
        elif keys and all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in keys):
            key = "int64"
        else:
            raise errors.UsageError("a dict's keys must be all strings or all integers "
                                    "(an empty one needs the model's declared type)")
    kv = tensor_value(np.array(keys, dtype=object if key == "string" else NUMPY.get(CODES.get(key))), key, keep)
    vv = None
    try:
        vv = _sequence(list(d.values()), value, keep) if d or value else None
        if vv is None:
            raise errors.UsageError("an empty dict needs the model's declared type")
        return _new(lib.onnxop_map_new, kv, vv)
    finally:
        lib.onnxop_value_free(kv)
        lib.onnxop_value_free(vv)


# ---- library -> Python ----

def from_value(v):
    """The Python value of a library value (copied: v may go after)."""
    if lib.onnxop_value_dtype(v):  # a tensor
        return tensor_from(v)
    kind = lib.onnxop_value_kind(v)
    if kind == lib.ONNXOP_SEQUENCE:
        return [_part(lib.onnxop_sequence_at, v, i) for i in range(lib.onnxop_sequence_length(v))]
    if kind == lib.ONNXOP_OPTIONAL:
        return _part(lib.onnxop_optional_element, v) if lib.onnxop_optional_has_element(v) == 1 else None
    if kind == lib.ONNXOP_MAP:
        keys = _part(lib.onnxop_map_keys, v)
        values = _part(lib.onnxop_map_values, v)
        return dict(zip(keys.tolist(), values))
    raise errors.UsageError(f"a value of unknown kind {kind}")


def read_pb(path, type_str=None):
    """The Python value of the .pb file at path, read as the ONNX type string
    type_str says (None: as the file's content tells)."""
    v = _new(lib.onnxop_value_read, path.encode(), lib.ONNXOP_FORMAT_PB, type_str.encode() if type_str else ffi.NULL)
    try:
        return from_value(v)
    finally:
        lib.onnxop_value_free(v)


def _part(fn, v, *index):
    p = _new(fn, v, *index)
    try:
        return from_value(p)
    finally:
        lib.onnxop_value_free(p)


def tensor_from(v):
    """A new numpy array (or Tensor) with the elements of tensor value v."""
    code = lib.onnxop_value_dtype(v)
    rank = lib.onnxop_value_rank(v)
    shape = tuple(ffi.unpack(lib.onnxop_value_dims(v), rank)) if rank else ()
    if code == STRING:
        n = lib.onnxop_value_numel(v)
        out = np.empty(n, dtype=object)
        size = ffi.new("size_t *")
        for i in range(n):
            b = ffi.unpack(lib.onnxop_value_string(v, i, size), size[0])
            try:
                out[i] = b.decode("utf-8")
            except UnicodeDecodeError:
                out[i] = b
        return out.reshape(shape)
    dtype = NUMPY.get(code)
    if dtype is None:
        dtype = BITS[code][0]
    out = np.empty(shape, dtype)
    if out.size:
        ffi.memmove(out, lib.onnxop_value_data(v), out.nbytes)
    if code in BITS:
        return bits_out(out, code)
    return out


def bits_out(bits, code):
    """An output of a type numpy lacks: an ml_dtypes array, else a Tensor."""
    name = BITS[code][1]
    if ml_dtypes is not None and hasattr(ml_dtypes, name):
        ml = np.dtype(getattr(ml_dtypes, name))
        return bits.astype(ml) if code in _BY_VALUE else bits.view(ml)
    return Tensor(bits, dtype_name(code))
