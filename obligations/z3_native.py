"""The few functions of z3's C API that running SMT-LIB scripts needs, bound with ctypes.

z3's Python package binds every function of the C API when it is imported (``z3.z3core``
declares about 1,500 of them), which costs more wall time than most verifications. Running
an obligation needs six: make a context, run an SMT-LIB script in it, read the error state,
delete the context, and the version. They are declared here against the library the z3
package ships, so ``privinfer verify`` loads ``import z3`` only to build a counterexample.

The library is the one of the installed ``z3-solver`` package (the same file ``z3.z3core``
loads, hence one copy in the process); if it is not where the package keeps it, the
package's own search is used.
"""
from __future__ import annotations

import ctypes
import os
import sys
from importlib.util import find_spec
from typing import Optional, Tuple

_lib: Optional[ctypes.CDLL] = None


def _library_names() -> Tuple[str, ...]:
    if sys.platform in ("win32", "cygwin"):
        return ("libz3.dll",)
    if sys.platform == "darwin":
        return ("libz3.dylib",)
    return ("libz3.so",)


def _load() -> ctypes.CDLL:
    spec = find_spec("z3")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for name in _library_names():
            path = os.path.join(folder, "lib", name)
            if os.path.isfile(path):
                return ctypes.CDLL(path)
    from z3 import z3core  # the package's own search (Z3_LIBRARY_PATH and others)
    return z3core._lib


def library() -> ctypes.CDLL:
    """libz3, loaded once, with the signatures of the functions this module uses."""
    global _lib
    if _lib is None:
        lib = _load()
        ptr, string, uint = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint
        for name, restype, argtypes in (
                ("Z3_mk_config", ptr, []),
                ("Z3_del_config", None, [ptr]),
                ("Z3_mk_context_rc", ptr, [ptr]),
                ("Z3_del_context", None, [ptr]),
                ("Z3_set_error_handler", None, [ptr, ptr]),
                ("Z3_get_error_code", ctypes.c_int, [ptr]),
                ("Z3_get_error_msg", string, [ptr, ctypes.c_int]),
                ("Z3_eval_smtlib2_string", string, [ptr, string]),
                ("Z3_get_version", None, [ctypes.POINTER(uint)] * 4)):
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        _lib = lib
    return _lib


def version_string() -> str:
    """``major.minor.build``, as ``z3.get_version_string()`` gives it."""
    parts = [ctypes.c_uint() for _ in range(4)]
    library().Z3_get_version(*(ctypes.byref(p) for p in parts))
    return ".".join(str(p.value) for p in parts[:3])


class Z3Error(Exception):
    """z3 reported an error (its message is the exception's text)."""


class NativeContext:
    """A z3 context that evaluates SMT-LIB 2 text, as ``(eval)`` in the z3 binary would.

    Errors are recorded by z3 and raised here as ``Z3Error``: the context has no error
    handler (z3's default one prints and exits the process)."""

    def __init__(self) -> None:
        lib = library()
        config = lib.Z3_mk_config()
        try:
            self._ctx = lib.Z3_mk_context_rc(config)
        finally:
            lib.Z3_del_config(config)
        if not self._ctx:
            raise Z3Error("z3 could not create a context")
        lib.Z3_set_error_handler(self._ctx, None)

    def eval(self, text: str) -> str:
        """The output of z3's SMT-LIB interpreter on ``text``."""
        lib = library()
        output = lib.Z3_eval_smtlib2_string(self._ctx, text.encode("utf-8"))
        code = lib.Z3_get_error_code(self._ctx)
        if code != 0:
            message = lib.Z3_get_error_msg(self._ctx, code) or b"unknown error"
            raise Z3Error(message.decode("utf-8", "replace"))
        return (output or b"").decode("utf-8", "replace")

    def close(self) -> None:
        if self._ctx:
            library().Z3_del_context(self._ctx)
            self._ctx = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass
