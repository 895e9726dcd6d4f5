"""Output paths, checked before a command starts its work (U003).

A command that writes files (``verify --certificate/--dot/--smtlib``, ``experiment --out``,
``fuzz --out``, ``bench --out``) checks each output path first, so that a path it cannot write
is reported at once — with the option, the path and the operating system's reason, exit 2 —
rather than after minutes of work, or as an internal error. The check *tries* the write (root
may "have access" to ``/proc`` and still not create files there): a file is opened for
appending (a new one is removed again), a folder is created and a temporary file made in it.

``source_name`` is how the files written name the source (a certificate, ``--smtlib``): by the
path given, never an absolute path of this machine.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Union

from verifier.errors import error

PathLike = Union[str, "os.PathLike[str]"]


def _refuse(option: str, path: PathLike, reason: str, hint: str) -> Exception:
    return error("U003", f"{option} {os.fspath(path)}: cannot write here: {reason}", hint=hint)


def check_output_file(path: PathLike, option: str) -> None:
    """Raise U003 unless a file can be written at ``path`` (its folder must exist)."""
    target = Path(path)
    hint = f"give {option} a file in an existing folder you can write to"
    if target.is_dir():
        raise _refuse(option, path, "it is a folder", hint)
    if not target.parent.is_dir():
        raise _refuse(option, path, f"the folder {os.fspath(target.parent) or '.'} does not exist", hint)
    existed = target.exists()
    if existed and not target.is_file():
        return          # a device or a pipe (/dev/null, /dev/stdout, a FIFO): opened when written
    try:
        with open(target, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise _refuse(option, path, exc.strerror or str(exc), hint) from None
    if not existed:
        try:
            target.unlink()
        except OSError:
            pass


def check_output_dir(path: PathLike, option: str) -> None:
    """Create the folder ``path`` if needed and raise U003 unless files can be written in it."""
    target = Path(path)
    hint = f"give {option} a folder you can write to (it is created if needed)"
    if target.exists() and not target.is_dir():
        raise _refuse(option, path, "it is a file, not a folder", hint)
    try:
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=target):
            pass
    except OSError as exc:
        raise _refuse(option, path, exc.strerror or str(exc), hint) from None


def source_name(path: str) -> str:
    """``path`` as certificates name it: as given, unless absolute (then relative to the working
    directory when below it, else its base name)."""
    if not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return os.path.basename(path) if relative.startswith("..") else relative


__all__ = ["check_output_file", "check_output_dir", "source_name"]
