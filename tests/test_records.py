"""obligations.records behaves as the dataclasses it replaces (the features privinfer uses)."""
import dataclasses
import pickle
from typing import ClassVar, List, Optional

import pytest

from obligations.records import FrozenInstanceError, field, fields, record, replace


@record
class Point:
    x: int
    y: int = 0
    label: str = field(default="", compare=False, repr=False)


@dataclasses.dataclass(frozen=True)
class PointDC:
    x: int
    y: int = 0
    label: str = dataclasses.field(default="", compare=False, repr=False)


@record(frozen=False)
class Bag:
    items: List[int] = field(default_factory=list)
    kind: ClassVar[str] = "bag"


@record(kw_only=True)
class Named:
    name: str
    size: Optional[int] = None


@record
class Sorted:
    args: tuple
    total: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "total", sum(self.args))


@record
class Point3(Point):
    z: int = 0


@record(cache_hash=True)
class Leaf:
    name: str


def test_construction_equality_hash_and_repr_match_dataclasses():
    for args, kwargs in (((1,), {}), ((1, 2), {}), ((), {"x": 3, "y": 4}), ((1,), {"label": "a"})):
        r, d = Point(*args, **kwargs), PointDC(*args, **kwargs)
        assert (r.x, r.y, r.label) == (d.x, d.y, d.label)
        assert repr(r) == repr(d).replace("PointDC", "Point")
    assert Point(1, 2, "a") == Point(1, 2, "b") and hash(Point(1, 2, "a")) == hash(Point(1, 2))
    assert Point(1, 2) != Point(2, 1)
    assert Point(1) != PointDC(1)  # another class is never equal
    assert Point.__match_args__ == ("x", "y", "label")


def test_bad_calls_raise_type_error():
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Point(1, 2, "a", 4)
    with pytest.raises(TypeError):
        Point(1, x=1)
    with pytest.raises(TypeError):
        Point(1, w=1)
    with pytest.raises(TypeError):
        Named("a")  # keyword-only
    with pytest.raises(TypeError):
        Named()


def test_frozen_and_mutable():
    p = Point(1)
    with pytest.raises(FrozenInstanceError):
        p.x = 2
    with pytest.raises(FrozenInstanceError):
        del p.x
    b = Bag()
    b.items.append(1)
    assert Bag().items == [] and b == Bag([1])  # a fresh list per instance
    assert Bag.kind == "bag" and [f.name for f in fields(Bag)] == ["items"]  # ClassVar: no field
    with pytest.raises(TypeError):
        hash(b)


def test_init_false_fields_post_init_inheritance_and_replace():
    s = Sorted([1, 2])
    assert s.args == (1, 2) and s.total == 3 and repr(s) == "Sorted(args=(1, 2))"
    assert replace(s, args=(4,)).total == 4
    with pytest.raises(ValueError):
        replace(s, total=1)
    q = Point3(1, 2, "l", 3)
    assert [f.name for f in fields(q)] == ["x", "y", "label", "z"]
    assert replace(q, z=5) == Point3(1, 2, "", 5) and q != Point(1, 2)
    assert Named(name="a", size=2) == replace(Named(name="a"), size=2)


def test_cached_hash_survives_pickling_and_stays_out_of_equality():
    leaf = Leaf("a")
    assert hash(leaf) == hash(Leaf("a")) and leaf == Leaf("a")
    again = pickle.loads(pickle.dumps(leaf))
    assert again == leaf and "_hash" not in again.__dict__


def test_methods_written_in_the_class_are_kept():
    @record
    class Custom:
        value: int

        def __repr__(self) -> str:
            return "custom"

        def __hash__(self) -> int:
            return 7

    assert repr(Custom(1)) == "custom" and hash(Custom(1)) == 7
