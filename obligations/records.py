"""Records: ``dataclasses.dataclass`` semantics for privinfer's data classes, without
generated code.

``@record`` (frozen) and ``@record(frozen=False)`` stand for ``@dataclass(frozen=True)`` and
``@dataclass``, and ``field``, ``fields``, ``replace`` for their ``dataclasses`` namesakes,
for the subset of features privinfer uses:

* the fields are the class's annotations, in order, after those of a record base class
  (``ClassVar`` annotations are not fields); a class attribute is a field's default;
* ``field(default=..., default_factory=..., init=..., repr=..., compare=...)``;
* ``kw_only=True`` (every field keyword-only);
* ``__init__`` then ``__post_init__``; ``__eq__`` (same class, compared fields equal);
  ``__repr__``; frozen records are immutable (``FrozenInstanceError``) and hashable on their
  compared fields, mutable ones unhashable; ``__match_args__``;
* a method the class defines itself (``__hash__``, ``__repr__``, ...) is kept.

Why not dataclasses: they compile several methods per class with ``exec`` when the module is
imported, and ``privinfer verify`` starts a new process for every program. The hundred-odd
data classes of the verifier made a fifth of its start-up; records are built from closures
in microseconds. The module imports nothing (``dataclasses`` imports ``inspect``, which
alone costs more than a small verification's arithmetic).
"""
from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, Dict, Optional, Tuple

__all__ = ["record", "field", "fields", "replace", "FrozenInstanceError", "MISSING"]


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen record."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """What ``field(...)`` says about one field."""

    __slots__ = ("name", "default", "default_factory", "init", "repr", "compare")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING,
                 init: bool = True, repr: bool = True, compare: bool = True) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("a field cannot have both a default and a default_factory")
        self.name = ""
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare

    def __repr__(self) -> str:
        return f"Field({self.name!r})"


def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True,
          repr: bool = True, compare: bool = True) -> Any:
    """A field's options, as ``dataclasses.field``."""
    return Field(default, default_factory, init, repr, compare)


def fields(obj: Any) -> Tuple[Field, ...]:
    """The fields of a record (class or instance), in order."""
    try:
        return obj.__record_fields__
    except AttributeError:
        raise TypeError(f"{obj!r} is not a record") from None


def replace(obj: Any, **changes: Any) -> Any:
    """A copy of the record ``obj`` with some fields changed (``__post_init__`` runs again)."""
    for f in fields(obj):
        if f.init and f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
        elif not f.init and f.name in changes:
            raise ValueError(f"field {f.name!r} is not set by __init__ and cannot be replaced")
    return type(obj)(**changes)


def _is_class_var(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _collect(cls: type) -> Tuple[Field, ...]:
    inherited: Dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            inherited[f.name] = f
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        spec = cls.__dict__.get(name, MISSING)
        f = (Field(spec.default, spec.default_factory, spec.init, spec.repr, spec.compare)
             if isinstance(spec, Field) else Field(default=spec))
        f.name = name
        if f.default is not MISSING:
            setattr(cls, name, f.default)
        elif isinstance(spec, Field) and name in cls.__dict__:
            delattr(cls, name)
        inherited.pop(name, None)
        inherited[name] = f
    return tuple(inherited.values())


def record(cls: Optional[type] = None, *, frozen: bool = True, kw_only: bool = False,
           cache_hash: bool = False) -> Any:
    """Make ``cls`` a record (see the module docstring); usable as ``@record`` or
    ``@record(frozen=False, kw_only=True)``.

    ``cache_hash=True`` (frozen records only) computes the hash once per instance, for deep
    trees used as dictionary keys; such records pickle as their fields (a hash of strings
    differs between processes)."""
    if cache_hash and not frozen:
        raise ValueError("only a frozen record can cache its hash")
    if cls is None:
        return lambda c: _make(c, frozen, kw_only, cache_hash)
    return _make(cls, frozen, kw_only, cache_hash)


def _rebuild(cls: type, values: Dict[str, Any]) -> Any:
    return cls(**values)


def _make(cls: type, frozen: bool, kw_only: bool, cache_hash: bool) -> type:
    all_fields = _collect(cls)
    init_fields = tuple(f for f in all_fields if f.init)
    names = tuple(f.name for f in init_fields)
    positional = () if kw_only else names
    later = tuple(f for f in all_fields if not f.init and f.default is not MISSING)
    compared = tuple(f.name for f in all_fields if f.compare)
    shown = tuple(f.name for f in all_fields if f.repr)
    defaults = {f.name: f.default for f in init_fields if f.default is not MISSING}
    factories = {f.name: f.default_factory for f in init_fields
                 if f.default_factory is not MISSING}
    required = tuple(n for n in names if n not in defaults and n not in factories)
    post_init: Optional[Callable[[Any], None]] = getattr(cls, "__post_init__", None)
    qualified = cls.__qualname__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        state = self.__dict__
        if args and len(args) == len(positional) and not kwargs:  # the common call
            state.update(zip(positional, args))
        else:
            if len(args) > len(positional):
                raise TypeError(f"{qualified}() takes {len(positional)} positional "
                                f"argument(s) but {len(args)} were given")
            values = dict(zip(positional, args))
            for key in kwargs:
                if key not in names or key in values:
                    raise TypeError(f"{qualified}() got an unexpected or repeated "
                                    f"argument {key!r}")
            values.update(kwargs)
            for name in required:
                if name not in values:
                    raise TypeError(f"{qualified}() missing argument {name!r}")
            for name in names:
                if name not in values:
                    values[name] = (defaults[name] if name in defaults
                                    else factories[name]())
            state.update((n, values[n]) for n in names)
        for f in later:
            state[f.name] = f.default
        if post_init is not None:
            post_init(self)

    # the compared fields as one value (a tuple when several), read in C
    key: Callable[[Any], Any] = attrgetter(*compared) if compared else (lambda _: ())

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self is other or key(self) == key(other)

    def __repr__(self: Any) -> str:
        return f"{qualified}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

    methods: Dict[str, Any] = {"__init__": __init__, "__eq__": __eq__, "__repr__": __repr__}
    if frozen and cache_hash:
        def __hash__(self: Any) -> int:
            cached = self.__dict__.get("_hash")
            if cached is None:
                cached = hash((qualified, key(self)))
                self.__dict__["_hash"] = cached
            return cached

        def __reduce__(self: Any) -> Any:
            return (_rebuild, (self.__class__, {n: getattr(self, n) for n in names}))

        methods["__reduce__"] = __reduce__
    elif frozen:
        def __hash__(self: Any) -> int:
            return hash(key(self))
    if frozen:
        def __setattr__(self: Any, name: str, value: Any) -> None:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")

        def __delattr__(self: Any, name: str) -> None:
            raise FrozenInstanceError(f"cannot delete field {name!r}")

        methods.update(__hash__=__hash__, __setattr__=__setattr__, __delattr__=__delattr__)
    elif "__eq__" not in cls.__dict__:
        methods["__hash__"] = None  # as dataclass: equality by value, so not hashable
    written = {n for n in cls.__dict__ if n in methods}
    if cls.__dict__.get("__hash__", MISSING) is None and "__eq__" in cls.__dict__:
        written.discard("__hash__")  # Python's implicit None for a class that defines __eq__
    for name, method in methods.items():
        if name not in written:
            if method is not None:
                method.__qualname__ = f"{qualified}.{name}"
            setattr(cls, name, method)
    cls.__record_fields__ = all_fields  # type: ignore[attr-defined]
    cls.__match_args__ = positional  # type: ignore[attr-defined]
    return cls
