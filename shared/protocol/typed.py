"""Typed values on the wire: turning a field's Python type into its msgpack form and back.

Every message field and every nested view field has a precise type (``int``, ``float``, ``str``,
``bool``, ``None`` unions, ``tuple[X, ...]``, fixed pairs, ``Mapping[str, X]``, a
:class:`View`, or a union of messages told apart by their ``t``). One decoder walks those types,
so a frame is checked all the way down and a bad value is reported with the path of the field
that holds it (``match.balls.white[1]``): the sender learns exactly what was wrong.

``View`` is the base of the nested objects (``MatchView``, ``RoomView`` …): a frozen, slotted
dataclass that validates itself like a message, with ``to_wire`` / ``from_wire``. A field listed
in ``FLAT`` is a view whose keys sit in the parent's own map (v1 spells ``stroke_played.stroke``
as one flat map; the cue parameters inside it are a ``CueParams``).
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from functools import cache
from typing import Any, ClassVar, Self, TypeVar, Union, get_args, get_origin

from shared.protocol.errors import BadField, ProtocolError
from shared.protocol.fields import MAX_SAFE_INT

# A value msgpack can carry: what ``to_wire`` returns and ``from_wire`` reads.
Wire = None | bool | int | float | str | list["Wire"] | tuple["Wire", ...] | dict[str, "Wire"]

STR_MAX = 1 << 20  # a generic string bound; each view checks its own, tighter, limits

T = TypeVar("T")


def _name(value: object) -> str:
    return type(value).__name__


def _fail(path: str, what: str, value: object) -> BadField:
    return BadField(f"{path} must be {what}, got {_name(value)}", field=path)


@cache
def hints(cls: type) -> dict[str, Any]:
    """The resolved type of each dataclass field of ``cls``."""
    resolved = typing.get_type_hints(cls)
    return {f.name: resolved[f.name] for f in fields(cls)}


Decoder = Callable[[object, str], Any]


def decode_value(tp: Any, value: object, path: str) -> Any:
    """``value`` (fresh off msgpack) as a value of type ``tp``; BadField naming ``path``."""
    return decoder(tp)(value, path)


def _int_value(value: object, path: str) -> Any:
    if type(value) is not int:
        return _slow(int, value, path)
    if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
        raise BadField(f"{path} is too large: {value}", field=path)
    return value


def _float_value(value: object, path: str) -> Any:
    kind = type(value)
    if kind is float:
        if not math.isfinite(value):  # type: ignore[arg-type]
            raise BadField(f"{path} must be a finite number, got {value!r}", field=path)
        return value
    if kind is int:
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:  # type: ignore[operator]
            raise BadField(f"{path} is too large: {value}", field=path)
        return value  # an int stays an int: v1 sends zeros as 0 and re-encodes them so
    return _slow(float, value, path)


def _str_value(value: object, path: str) -> Any:
    if type(value) is str and len(value) <= STR_MAX:
        return value
    return _slow(str, value, path)


def _bool_value(value: object, path: str) -> Any:
    if type(value) is bool:
        return value
    return _slow(bool, value, path)


@cache
def decoder(tp: Any) -> Decoder:
    """A function decoding values of type ``tp``, built once per type (decoding walks the same
    few types over and over); the general case and every error message are :func:`_slow`."""
    if tp is int:
        return _int_value
    if tp is float:
        return _float_value
    if tp is str:
        return _str_value
    if tp is bool:
        return _bool_value
    origin = get_origin(tp)
    if origin is Union or origin is types.UnionType:
        args = get_args(tp)
        rest = [x for x in args if x is not type(None)]
        if len(rest) == 1 and len(args) == 2:  # ``X | None``
            inner = decoder(rest[0])

            def optional(value: object, path: str) -> Any:
                return None if value is None else inner(value, path)

            return optional
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = decoder(args[0])

            def seq(value: object, path: str) -> Any:
                if not isinstance(value, list | tuple):
                    return _slow(tp, value, path)
                return tuple(item(v, f"{path}[{i}]") for i, v in enumerate(value))

            return seq
    if origin in (Mapping, dict):
        _, vt = get_args(tp)
        val = decoder(vt)

        def mapping(value: object, path: str) -> Any:
            if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
                return _slow(tp, value, path)
            return {k: val(v, f"{path}.{k}") for k, v in value.items()}

        return mapping

    def general(value: object, path: str) -> Any:
        return _slow(tp, value, path)

    return general


def _slow(tp: Any, value: object, path: str) -> Any:
    """The general case (unions, fixed tuples, views, messages) and the error messages."""
    origin = get_origin(tp)
    if origin is Union or origin is types.UnionType:
        args = get_args(tp)
        if value is None:
            if type(None) in args:
                return None
            raise BadField(f"{path} must not be null", field=path)
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return decode_value(rest[0], value, path)
        return _decode_tagged(rest, value, path)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(path, "an integer", value)
        if abs(value) > MAX_SAFE_INT:
            raise BadField(f"{path} is too large: {value}", field=path)
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(path, "a number", value)
        if isinstance(value, float) and not math.isfinite(value):
            raise BadField(f"{path} must be a finite number, got {value!r}", field=path)
        if isinstance(value, int) and abs(value) > MAX_SAFE_INT:
            raise BadField(f"{path} is too large: {value}", field=path)
        return value  # an int stays an int: v1 sends zeros as 0 and re-encodes them so
    if tp is str:
        if not isinstance(value, str) or len(value) > STR_MAX:
            raise _fail(path, "a string", value)
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(path, "true or false", value)
        return value
    if origin is tuple:
        args = get_args(tp)
        if not isinstance(value, list | tuple):
            raise _fail(path, "a list", value)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode_value(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise BadField(
                f"{path} must be a list of {len(args)}, got {len(value)} entries", field=path
            )
        return tuple(
            decode_value(a, v, f"{path}[{i}]")
            for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    if origin in (Mapping, dict):
        _, vt = get_args(tp)
        if not isinstance(value, Mapping):
            raise _fail(path, "a map", value)
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise BadField(f"{path} must have string keys, got {_name(k)}", field=path)
            out[k] = decode_value(vt, v, f"{path}.{k}")
        return out
    if isinstance(tp, type) and hasattr(tp, "from_wire"):  # a view (or the trajectory)
        return tp.from_wire(value, path)
    if isinstance(tp, type) and hasattr(tp, "TYPE") and hasattr(tp, "decode_map"):
        return _decode_tagged([tp], value, path)
    raise TypeError(f"no wire form for {tp!r} at {path}")  # our bug: a type the codec lacks


def _decode_tagged(classes: list[Any], value: object, path: str) -> Any:
    """One of several messages, chosen by the ``t`` of ``value`` (``snapshot.in_motion``)."""
    if not isinstance(value, Mapping):
        raise _fail(path, "a map", value)
    t = value.get("t")
    for cls in classes:
        if getattr(cls, "TYPE", None) == t:
            return cls.decode_map(value, path)
    known = ", ".join(getattr(c, "TYPE", "?") for c in classes)
    raise BadField(f"{path}.t must be one of {known}, got {t!r}", field=f"{path}.t")


_PLAIN = frozenset({type(None), bool, int, float, str})


def encode_value(value: Any) -> Wire:
    """The msgpack form of a typed value (views become maps; tuples stay arrays)."""
    if type(value) in _PLAIN or isinstance(value, bool | int | float | str):
        return value  # type: ignore[no-any-return]
    to_wire = getattr(value, "to_wire", None)
    if to_wire is not None:
        return to_wire()  # type: ignore[no-any-return]
    if isinstance(value, tuple | list):
        if all(type(v) in _PLAIN for v in value):
            return list(value)
        return [encode_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: encode_value(v) for k, v in value.items()}
    raise TypeError(f"no wire form for {type(value).__name__}")


@cache
def plan(cls: Any) -> tuple[tuple[str, str, bool, bool], ...]:
    """Per field of ``cls``: its name, its wire name, whether it is required (no default) and
    whether it is flat; computed once per class."""
    wire_names: Mapping[str, str] = getattr(cls, "WIRE", {})
    flat: frozenset[str] = getattr(cls, "FLAT", frozenset())
    return tuple(
        (
            f.name,
            wire_names.get(f.name, f.name),
            f.default is MISSING and f.default_factory is MISSING,
            f.name in flat,
        )
        for f in fields(cls)
    )


def fields_to_wire(obj: Any, out: dict[str, Wire]) -> dict[str, Wire]:
    """Every required field (null included) and every optional field that is not None, under
    its wire name; ``FLAT`` fields merge their own map into ``out``."""
    kind: Any = type(obj)
    for name, wire, required, flat in plan(kind):
        value = getattr(obj, name)
        if flat:
            out.update(value.to_wire())
        elif value is not None or required:
            out[wire] = encode_value(value)
    return out


def fields_from_wire(cls: Any, obj: Mapping[Any, Any], path: str) -> dict[str, Any]:
    """Keyword arguments for ``cls`` from a decoded map; ``path`` prefixes field names in
    errors (empty for a message's own fields)."""
    kwargs: dict[str, Any] = {}
    types_ = hints(cls)
    for name, wire, required, flat in plan(cls):
        tp = types_[name]
        if flat:
            kwargs[name] = tp.from_wire(obj, path)
            continue
        where = f"{path}.{wire}" if path else wire
        if wire not in obj:
            if required:
                raise BadField(f"{where} is required", field=where)
            continue
        value = obj[wire]
        if value is None and not required:
            continue  # an optional field sent as null: "not given"
        kwargs[name] = decoder(tp)(value, where)
    return kwargs


def build(cls: type[T], kwargs: dict[str, Any], path: str) -> T:
    """``cls(**kwargs)``, its own checks' errors prefixed with ``path``."""
    try:
        return cls(**kwargs)
    except BadField as exc:
        if not path:
            raise
        field = f"{path}.{exc.field}" if exc.field else path
        raise BadField(f"{path}.{exc.message}", field=field) from None
    except ProtocolError:
        raise
    except Exception as exc:  # defensive: a check missed a type; still the peer's fault
        raise BadField(f"{path or cls.__name__}: {exc}", field=path or None) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class View:
    """A nested wire object: frozen, validated on construction, with its wire form."""

    WIRE: ClassVar[Mapping[str, str]] = {}
    FLAT: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        """Check ranges and choices; subclasses override (types are checked when decoding)."""

    def to_wire(self) -> dict[str, Wire]:
        return fields_to_wire(self, {})

    @classmethod
    def from_wire(cls, obj: object, path: str = "") -> Self:
        if not isinstance(obj, Mapping):
            raise _fail(path or cls.__name__, "a map", obj)
        return build(cls, fields_from_wire(cls, obj, path), path)
