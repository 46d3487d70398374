"""Exceptions, one for each exit-status class of the onnxop command.

Each carries the message the library gives for the failure (the command's
own, without its "onnxop: FILE: " in front), its library error ``code``
(``ONNXOP_ERR_*``) and the command's ``exit_status``:

- InputError (a ValueError; exit status 1): a model or value is rejected,
  or the evaluation fails;
- TimeoutError (an InputError): the run's time limit is reached;
- OutOfMemoryError (a MemoryError; 1): memory ran out, or a tensor would
  pass the run's max_memory;
- UsageError (a TypeError; 2): a bad argument, an unknown input name;
- UnsupportedError (a NotImplementedError; 3): an operator, or a case of
  one, that this build lacks;
- CancelledError (a RuntimeError; 1): the run was stopped from outside.
"""

from .capi import ffi, lib


class Error(Exception):
    """The base of onnxop's exceptions."""

    code = 0
    exit_status = 1


class InputError(Error, ValueError):
    """A model or value was rejected, or the evaluation failed (exit status 1)."""

    code = lib.ONNXOP_ERR_INPUT


class TimeoutError(InputError):  # noqa: A001 (as asyncio.TimeoutError)
    """The run's time limit was reached (exit status 1)."""


class UsageError(Error, TypeError):
    """A bad argument: an unknown input name, a wrong count or kind (exit status 2)."""

    code = lib.ONNXOP_ERR_USAGE
    exit_status = 2


class UnsupportedError(Error, NotImplementedError):
    """The model needs an operator, or a case of one, this build lacks (exit status 3)."""

    code = lib.ONNXOP_ERR_UNSUPPORTED
    exit_status = 3


class OutOfMemoryError(Error, MemoryError):
    """Memory ran out: the run's max_memory, or the system's (exit status 1)."""

    code = lib.ONNXOP_ERR_NOMEM


class CancelledError(Error, RuntimeError):
    """The run was stopped from outside (exit status 1)."""

    code = lib.ONNXOP_ERR_CANCELLED


_BY_CODE = {c.code: c for c in (InputError, UsageError, UnsupportedError, OutOfMemoryError, CancelledError)}

# The library's message for a run stopped by its time limit (core/eval.c).
# A tensor refused because it would pass the memory limit has the library's
# code ONNXOP_ERR_NOMEM, as what the allocator refused has.
_TIMEOUT = "the time limit of "


def from_code(code, message):
    """The exception for a library error code and message."""
    cls = _BY_CODE.get(code, InputError)
    if cls is InputError and _TIMEOUT in message and message.endswith("is reached"):
        cls = TimeoutError
    return cls(message)


def raise_error(errp):
    """Raise the exception for the error the library stored in errp[0], and free it."""
    e = errp[0]
    try:
        message = ffi.string(lib.onnxop_error_message(e)).decode("utf-8", "backslashreplace")
        exc = from_code(lib.onnxop_error_code(e), message)
    finally:
        lib.onnxop_error_free(e)
        errp[0] = ffi.NULL
    raise exc
