"""The lemma registry: one place where the library's lemmas are looked up by id.

``register(lemma)`` adds a lemma (a duplicate id fails loudly); ``register_lazy(id, build)``
adds one that is built on first use; ``get(id)`` finds it; ``all_lemmas()`` lists the library
in id order (building everything). Lemmas that depend on a dimension (Dirichlet
over k categories) are registered as a ``LemmaFamily``: its members have ids
``<family id>/k=<k>`` and are built on first use, for any k >= 2; ``all_lemmas()`` includes
the members at the family's ``listed`` dimensions.

The built-in library (``lemmas.library``) is registered on the registry's first use, whichever
module is imported first: registering it when this module is imported would run the library's
modules while one of them may still be half-imported.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from lemmas.core import Lemma


class DuplicateLemmaError(ValueError):
    """A lemma id registered twice."""


class UnknownLemmaError(KeyError):
    """No lemma with this id."""


@dataclass(frozen=True)
class LemmaFamily:
    """Lemmas indexed by a dimension k >= 2: ``build(k)`` returns the member with id
    ``f"{id}/k={k}"``. ``listed`` are the dimensions shown and checked by default."""

    id: str
    title: str
    build: Callable[[int], Lemma]
    listed: Tuple[int, ...] = (2, 3, 4)
    max_dimension: int = 16


_LOCK = threading.RLock()
_LEMMAS: Dict[str, Lemma] = {}
_PENDING: Dict[str, Callable[[], Lemma]] = {}
_FAMILIES: Dict[str, LemmaFamily] = {}
_BUILTIN_REGISTERED = False


def _with_builtin() -> None:
    """Register the built-in library once, before the registry is first read or written."""
    global _BUILTIN_REGISTERED
    if _BUILTIN_REGISTERED:
        return
    _BUILTIN_REGISTERED = True  # set first: registering calls ``register`` again
    try:
        from lemmas import library
        library.register_builtin()
    except BaseException:
        _BUILTIN_REGISTERED = False
        raise
_MEMBER = re.compile(r"^(?P<family>.+)/k=(?P<k>[0-9]+)$")


def register(item) -> None:
    """Register a ``Lemma`` or a ``LemmaFamily``. Raises ``DuplicateLemmaError`` on a clash."""
    with _LOCK:
        _with_builtin()
        if isinstance(item, LemmaFamily):
            if item.id in _FAMILIES or item.id in _LEMMAS or item.id in _PENDING:
                raise DuplicateLemmaError(f"lemma family {item.id!r} is already registered")
            _FAMILIES[item.id] = item
            return
        if not isinstance(item, Lemma):
            raise TypeError(f"cannot register {type(item).__name__}")
        _check_new(item.id)
        _LEMMAS[item.id] = item


def register_lazy(lemma_id: str, build: Callable[[], Lemma]) -> None:
    """Register a lemma by id, built by ``build()`` on first use (the built-in library does
    this, so that importing ``lemmas`` stays cheap). The built lemma must have this id."""
    with _LOCK:
        _with_builtin()
        _check_new(lemma_id)
        _PENDING[lemma_id] = build


def _check_new(lemma_id: str) -> None:
    if lemma_id in _LEMMAS or lemma_id in _PENDING or lemma_id in _FAMILIES:
        raise DuplicateLemmaError(f"lemma {lemma_id!r} is already registered")
    m = _MEMBER.match(lemma_id)
    if m and m.group("family") in _FAMILIES:
        raise DuplicateLemmaError(f"{lemma_id!r} belongs to the family {m.group('family')!r}")


def unregister(lemma_id: str) -> None:
    """Remove a lemma or family (for tests and tools that replace their own lemmas)."""
    with _LOCK:
        _with_builtin()
        if lemma_id in _LEMMAS or lemma_id in _PENDING:
            _LEMMAS.pop(lemma_id, None)
            _PENDING.pop(lemma_id, None)
        elif lemma_id in _FAMILIES:
            del _FAMILIES[lemma_id]
            for k in [k for k in _LEMMAS if k.startswith(lemma_id + "/k=")]:
                del _LEMMAS[k]
        else:
            raise UnknownLemmaError(lemma_id)


def get(lemma_id: str, k: Optional[int] = None) -> Lemma:
    """The lemma with this id; ``get("family", k=3)`` is ``get("family/k=3")``."""
    if k is not None:
        lemma_id = f"{lemma_id}/k={int(k)}"
    with _LOCK:
        _with_builtin()
        if lemma_id in _LEMMAS:
            return _LEMMAS[lemma_id]
        if lemma_id in _PENDING:
            lemma = _PENDING[lemma_id]()
            if lemma.id != lemma_id:
                raise RuntimeError(f"the builder registered as {lemma_id} built {lemma.id}")
            del _PENDING[lemma_id]
            _LEMMAS[lemma_id] = lemma
            return lemma
        m = _MEMBER.match(lemma_id)
        if m and m.group("family") in _FAMILIES:
            fam = _FAMILIES[m.group("family")]
            dim = int(m.group("k"))
            if not 2 <= dim <= fam.max_dimension:
                raise UnknownLemmaError(f"{lemma_id}: dimension must be in 2..{fam.max_dimension}")
            lemma = fam.build(dim)
            if lemma.id != lemma_id:
                raise RuntimeError(f"family {fam.id} built {lemma.id} for {lemma_id}")
            _LEMMAS[lemma_id] = lemma
            return lemma
        if lemma_id in _FAMILIES:
            raise UnknownLemmaError(f"{lemma_id} is a family: ask for {lemma_id}/k=<k>")
        raise UnknownLemmaError(lemma_id)


def ids() -> List[str]:
    """The ids of all registered lemmas (without building them) and of listed family members."""
    with _LOCK:
        _with_builtin()
        out = set(_LEMMAS) | set(_PENDING)
        for fam in _FAMILIES.values():
            out |= {f"{fam.id}/k={k}" for k in fam.listed}
        return sorted(out, key=_sort_key)


def families() -> List[LemmaFamily]:
    with _LOCK:
        _with_builtin()
        return [f for _, f in sorted(_FAMILIES.items())]


def all_lemmas() -> List[Lemma]:
    """Every registered lemma, family members at their listed dimensions, in id order."""
    with _LOCK:
        _with_builtin()
        for lemma_id in list(_PENDING):
            get(lemma_id)
        for fam in list(_FAMILIES.values()):
            for k in fam.listed:
                get(fam.id, k)
        return [l for _, l in sorted(_LEMMAS.items(), key=lambda kv: _sort_key(kv[0]))]


def _sort_key(lemma_id: str):
    m = _MEMBER.match(lemma_id)
    if m:
        return (m.group("family"), int(m.group("k")))
    return (lemma_id, 0)
