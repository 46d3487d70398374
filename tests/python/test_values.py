"""Values in and out: every ONNX element type, shapes, layouts, byte orders,
strings, sequences, optionals and maps, through Identity (or a graph that
returns its input)."""

import numpy as np
import pytest
from onnx import TensorProto

import models
import onnxop
from onnxop import values
from onnxop.capi import ffi, lib

RNG = np.random.default_rng(0)

NUMPY_TYPES = [np.float32, np.uint8, np.int8, np.uint16, np.int16, np.int32, np.int64, np.bool_,
               np.float16, np.float64, np.uint32, np.uint64, np.complex64, np.complex128]

# ONNX element types numpy lacks: (name, onnx id, the bits' dtype, lowest, highest)
BITS_TYPES = [("bfloat16", 16, np.uint16, 0, 0xFFFF), ("float8e4m3fn", 17, np.uint8, 0, 255),
              ("float8e4m3fnuz", 18, np.uint8, 0, 255), ("float8e5m2", 19, np.uint8, 0, 255),
              ("float8e5m2fnuz", 20, np.uint8, 0, 255), ("uint4", 21, np.uint8, 0, 15),
              ("int4", 22, np.int8, -8, 7), ("float4e2m1", 23, np.uint8, 0, 15),
              ("float8e8m0", 24, np.uint8, 0, 255), ("uint2", 25, np.uint8, 0, 3), ("int2", 26, np.int8, -2, 1)]


def sample(dtype, shape=(2, 3)):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if dtype.kind == "c":
        return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def roundtrip(x, t):
    (y,) = onnxop.Session(models.passthrough(t)).run(None, {"x": x})
    return y


def same(got, want):
    assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("dtype", NUMPY_TYPES, ids=lambda d: np.dtype(d).name)
def test_every_numpy_dtype(dtype):
    code = values.ONNX[np.dtype(dtype)]
    for shape in [(2, 3), (), (0, 3), (4, 0, 2), (1,)]:
        x = sample(dtype, shape)
        y = roundtrip(x, models.tensor_type(code))
        same(y, x)
        assert y.flags.writeable and y.flags.owndata and y.flags.c_contiguous


@pytest.mark.parametrize("name,code,storage,lo,hi", BITS_TYPES, ids=[b[0] for b in BITS_TYPES])
def test_types_numpy_lacks(name, code, storage, lo, hi):
    bits = RNG.integers(lo, hi, (3, 2), endpoint=True).astype(storage)
    y = roundtrip(onnxop.Tensor(bits, name), models.tensor_type(code))
    assert isinstance(y, onnxop.Tensor) and y.dtype == name and y.shape == (3, 2)
    assert y.bits.dtype == storage and y.bits.tobytes() == bits.tobytes()
    assert y == onnxop.Tensor(bits, name)


def test_int4_bit_patterns_are_sign_extended():
    t = onnxop.Tensor(np.array([0x0, 0x7, 0x8, 0xF], np.uint8), "int4")
    assert t.bits.tolist() == [0, 7, -8, -1]
    assert onnxop.Tensor(np.array([3], np.uint8), "int2").bits.tolist() == [-1]


def test_tensor_refuses():
    with pytest.raises(onnxop.UsageError, match="not 'float'"):
        onnxop.Tensor([1], "float")
    with pytest.raises(onnxop.UsageError, match="must be uint16 numbers, not float64"):
        onnxop.Tensor([1.5], "bfloat16")
    # a value outside the type: the library's own check
    with pytest.raises(onnxop.UsageError, match="element 1 is 16; a uint4 holds 0 to 15"):
        roundtrip(onnxop.Tensor(np.array([1, 16], np.uint8), "uint4"), models.tensor_type(21))
    with pytest.raises(onnxop.UsageError, match="is given as onnxop.Tensor"):
        roundtrip([1.0], models.tensor_type(16))
    with pytest.raises(onnxop.UsageError, match="datetime64.* has no ONNX element type"):
        roundtrip(np.zeros(2, "datetime64[s]"), None)


def test_layouts_and_byte_orders():
    t = models.tensor_type(TensorProto.FLOAT)
    x = sample(np.float32, (4, 6))
    for view in [np.asfortranarray(x), x[::2, 1::2], x.T, x.astype(">f4"), x[:, :0]]:
        y = roundtrip(view, t)
        assert y.dtype == np.float32 and y.shape == view.shape
        assert np.array_equal(y, view) and y.flags.c_contiguous
    # big-endian integers and complex too
    for dt in [">i8", ">u2", ">c16", ">f8"]:
        z = sample(np.dtype(dt).newbyteorder("="), (3,)).astype(dt)
        y = roundtrip(z, models.tensor_type(values.ONNX[np.dtype(dt).newbyteorder("=")]))
        assert y.dtype.isnative and np.array_equal(y, z)
    # unaligned: a float32 array one byte into a buffer
    raw = np.zeros(4 * 6 + 1, np.uint8)[1:].view(np.float32)
    assert not raw.flags.aligned
    raw[:] = np.arange(6)
    assert np.array_equal(roundtrip(raw, t), np.arange(6, dtype=np.float32))


def test_contiguous_inputs_are_not_copied():
    x = sample(np.float32, (3, 4))
    for view, copied in [(x, False), (x[1:], False), (np.asfortranarray(x), True), (x[:, ::2], True),
                         (x.astype(">f4"), True)]:
        keep = []
        v = values.to_value(view, None, keep)
        try:
            same_memory = int(ffi.cast("uintptr_t", lib.onnxop_value_data(v))) == view.__array_interface__["data"][0]
            assert same_memory != copied
        finally:
            lib.onnxop_value_free(v)


def test_scalars_and_lists_take_the_declared_type():
    t = models.tensor_type(TensorProto.INT32)
    y = roundtrip(7, t)
    assert y.dtype == np.int32 and y.shape == () and y == 7
    y = roundtrip([[1, 2], [3, 4]], t)
    assert y.dtype == np.int32 and y.tolist() == [[1, 2], [3, 4]]
    # an array of another dtype is not cast: the library refuses it
    with pytest.raises(onnxop.InputError, match="input 'x' is tensor.int64.; the model declares tensor.int32."):
        roundtrip(np.array([1, 2]), t)


def test_strings():
    t = models.tensor_type(TensorProto.STRING)
    x = np.array([["a\x00b", "", "é\u4e2d\U0001f600"], ["\x00", "plain", "x\x00\x00"]], dtype=object)
    y = roundtrip(x, t)
    assert y.dtype == object and y.shape == (2, 3) and y.tolist() == x.tolist()
    # bytes that are not UTF-8 come back as bytes; str as str
    b = np.array([b"\xff\x00\xfe", "ok", b"bytes"], dtype=object)
    assert roundtrip(b, t).tolist() == [b"\xff\x00\xfe", "ok", "bytes"]
    # numpy's U and S arrays, a 0-d string, an empty one
    assert roundtrip(np.array(["ab", "c"]), t).tolist() == ["ab", "c"]
    assert roundtrip(np.array([b"ab", b"c\x00d"]), t).tolist() == ["ab", "c\x00d"]
    assert roundtrip(np.array("only", dtype=object), t).shape == ()
    assert roundtrip(np.zeros((0, 2), dtype=object), t).shape == (0, 2)
    assert roundtrip(["x\x00y"], t).tolist() == ["x\x00y"]
    with pytest.raises(onnxop.UsageError, match="holds str or bytes, not int"):
        roundtrip(np.array([1, "a"], dtype=object), t)


def test_sequences():
    ft = models.tensor_type(TensorProto.FLOAT)
    xs = [sample(np.float32, (2,)), sample(np.float32, (3, 1)), np.zeros((0,), np.float32)]
    y = roundtrip(xs, models.seq_type(ft))
    assert isinstance(y, list) and len(y) == 3
    for a, b in zip(y, xs):
        same(a, b)
    assert roundtrip([], models.seq_type(ft)) == []
    # nested: seq(seq(tensor(int64))), with an empty inner one
    nested = [[np.arange(3), np.arange(2)], [], [np.array(5)]]
    y = roundtrip(nested, models.seq_type(models.seq_type(models.tensor_type(TensorProto.INT64))))
    assert [[e.tolist() for e in s] for s in y] == [[[0, 1, 2], [0, 1]], [], [5]]
    # a sequence of strings; tuples are sequences too
    y = roundtrip((np.array(["a\x00"], dtype=object),), models.seq_type(models.tensor_type(TensorProto.STRING)))
    assert y[0].tolist() == ["a\x00"]
    with pytest.raises(onnxop.InputError, match="element 1 is tensor.int64.; the sequence holds tensor.float."):
        roundtrip([np.zeros(1, np.float32), np.zeros(1, np.int64)], None)


def test_optionals():
    ft = models.tensor_type(TensorProto.FLOAT)
    t = models.optional_type(ft)
    assert roundtrip(None, t) is None
    x = sample(np.float32, (2,))
    same(roundtrip(x, t), x)
    st = models.optional_type(models.seq_type(ft))
    assert roundtrip(None, st) is None
    assert len(roundtrip([x, x], st)) == 2
    assert roundtrip([], st) == []
    # an optional input left out of the feed is an absent one
    (y,) = onnxop.Session(models.passthrough(t)).run(None, {})
    assert y is None
    with pytest.raises(onnxop.UsageError, match="None is an absent optional; the model declares tensor.float."):
        roundtrip(None, ft)


def test_maps():
    ft = models.tensor_type(TensorProto.FLOAT)
    m = {"a": sample(np.float32, (2,)), "b\x00c": np.zeros(0, np.float32), "é": sample(np.float32, ())}
    y = roundtrip(m, models.map_type(TensorProto.STRING, ft))
    assert isinstance(y, dict) and list(y) == list(m)
    for k in m:
        same(y[k], m[k])
    im = {-3: np.array([1.5], np.float32), 2**40: np.array([2.5], np.float32)}
    y = roundtrip(im, models.map_type(TensorProto.INT64, ft))
    assert list(y) == [-3, 2**40] and y[2**40].tolist() == [2.5]
    # uint8 keys, sequence values, a map inside a sequence, an empty map
    y = roundtrip({7: [np.arange(2)]}, models.map_type(TensorProto.UINT8, models.seq_type(
        models.tensor_type(TensorProto.INT64))))
    assert list(y) == [7] and y[7][0].tolist() == [0, 1]
    y = roundtrip([{"k": np.ones(1, np.float32)}], models.seq_type(models.map_type(TensorProto.STRING, ft)))
    assert y[0]["k"].tolist() == [1.0]
    assert roundtrip({}, models.map_type(TensorProto.STRING, ft)) == {}
    # without a declared type: the keys tell
    assert list(roundtrip({"z": np.ones(1, np.float32)}, None)) == ["z"]
    with pytest.raises(onnxop.UsageError, match="all strings or all integers"):
        roundtrip({1: np.ones(1), "a": np.ones(1)}, None)


def test_value_errors_free_what_was_made():
    # a bad element deep in a sequence: the elements made before it are freed
    # (ASan's leak check in tests/python/test_lifetime.py runs this module)
    with pytest.raises(onnxop.UsageError):
        roundtrip([np.zeros(1, np.float32), object()], None)
