"""Typed values on the wire: turning a field's Python type into its msgpack form and back.

Every message field and every nested view field has a precise type (``int``, ``float``, ``str``,
``bool``, ``None`` unions, ``tuple[X, ...]``, fixed pairs, ``Mapping[K, X]``, a word of
``shared.protocol.enums`` (an ``Enum`` or a ``Literal``), a :class:`View`, or a union of
messages told apart by their ``t``), and where a value has bounds they are part of its type:
``Annotated[int, Range(0, 1)]``, ``Annotated[str, Length(1, 32), Visible()]``
(``shared.protocol.bounds``). One decoder walks those types, so a frame is checked for types
and ranges all the way down, each bound written once, and a bad value is reported with the path
of the field that holds it (``match.balls.white[1]``): the sender learns exactly what was wrong.

``View`` is the base of the nested objects (``MatchView``, ``RoomView`` …): a frozen, slotted
dataclass with ``to_wire`` / ``from_wire``. Built by our own code, it checks the same declared
bounds on construction (and turns a word given as a plain string into its enum member); built
by the decoder, whose walk has already checked every field, only its ``_validate`` runs: the
checks that span several fields. A field listed in ``FLAT`` is a view whose keys sit in the
parent's own map (v1 spells ``stroke_played.stroke`` as one flat map; the cue parameters inside
it are a ``CueParams``).
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from enum import Enum
from functools import cache
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    Self,
    TypeVar,
    Union,
    get_args,
    get_origin,
)

from shared.protocol.bounds import MAX_SAFE_INT
from shared.protocol.enums import OpenEnum
from shared.protocol.errors import BadField, ProtocolError

# A value msgpack can carry: what ``to_wire`` returns and ``from_wire`` reads.
Wire = None | bool | int | float | str | list["Wire"] | tuple["Wire", ...] | dict[str, "Wire"]

STR_MAX = 1 << 20  # a generic string bound; fields declare their own, tighter, ``Length``

T = TypeVar("T")


def _name(value: object) -> str:
    return type(value).__name__


def _fail(path: str, what: str, value: object) -> BadField:
    return BadField(f"{path} must be {what}, got {_name(value)}", field=path)


# Message classes by name: a view may name one in a field (a replay entry's body is a
# ``LagResult`` or a ``StrokePlayed``) that its module imports only for the type checker.
MESSAGES: dict[str, type] = {}


@cache
def hints(cls: type) -> dict[str, Any]:
    """The resolved type of each dataclass field of ``cls``, bounds (``Annotated``) included."""
    resolved = typing.get_type_hints(cls, localns=dict(MESSAGES), include_extras=True)
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


def _choices(values: Any) -> str:
    return ", ".join(sorted(str(v) for v in values))


def _bad_choice(path: str, value: object, choices: Any) -> BadField:
    shown = value if isinstance(value, str) else _name(value)
    return BadField(f"{path} must be one of {_choices(choices)}, got {shown!r}", field=path)


def _annotated(tp: Any) -> Decoder:
    """The base type's decoder, then each bound of ``Annotated[base, *bounds]`` in turn."""
    base, *meta = get_args(tp)
    inner = decoder(base)
    checks = tuple(m.check for m in meta if hasattr(m, "check"))
    if len(checks) == 1:
        (check,) = checks

        def bounded(value: object, path: str) -> Any:
            out = inner(value, path)
            check(out, path)
            return out

        return bounded

    def bounded_all(value: object, path: str) -> Any:
        out = inner(value, path)
        for c in checks:
            c(out, path)
        return out

    return bounded_all


def _literal(tp: Any) -> Decoder:
    """One of a ``Literal``'s strings, exactly (closed words: ball names, spots …)."""
    allowed = frozenset(get_args(tp))

    def literal(value: object, path: str) -> Any:
        if type(value) is str and value in allowed:
            return value
        if isinstance(value, str) and value in allowed:  # a str subclass (an enum member)
            return str(value)
        raise _bad_choice(path, value, allowed)

    return literal


def _enum(tp: type[Enum]) -> Decoder:
    """A member of ``tp`` from its wire word. An :class:`OpenEnum` keeps a word it does not
    know as an unknown member (forward compatibility); a closed enum refuses it."""
    members: Mapping[object, Any] = tp._value2member_map_
    is_open = issubclass(tp, OpenEnum)

    def word(value: object, path: str) -> Any:
        member = members.get(value) if isinstance(value, str) else None
        if member is not None:
            return member
        if not isinstance(value, str) or len(value) > 64:
            raise _fail(path, "a string of at most 64 characters", value)
        if is_open:
            return tp(value)
        raise _bad_choice(path, value, members)

    return word


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
    if origin is Annotated:
        return _annotated(tp)
    if origin is Literal:
        return _literal(tp)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum(tp)
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
        items = tuple(decoder(a) for a in args)

        def fixed(value: object, path: str) -> Any:
            if not isinstance(value, list | tuple) or len(value) != len(items):
                return _slow(tp, value, path)
            return tuple(
                d(v, f"{path}[{i}]") for i, (d, v) in enumerate(zip(items, value, strict=True))
            )

        return fixed
    if origin in (Mapping, dict):
        kt, vt = get_args(tp)
        val = decoder(vt)
        if kt is str:

            def mapping(value: object, path: str) -> Any:
                if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
                    return _slow(tp, value, path)
                return {k: val(v, f"{path}.{k}") for k, v in value.items()}

            return mapping
        key = decoder(kt)

        def keyed(value: object, path: str) -> Any:
            if not isinstance(value, Mapping):
                raise _fail(path, "a map", value)
            where = f"{path} key"
            return {key(k, where): val(v, f"{path}.{k}") for k, v in value.items()}

        return keyed

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
    if value is None:
        raise BadField(f"{path} must not be null", field=path)
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


# Checks on construction by our own code ----------------------------------------------------------

Checker = Callable[[Any, str], Any]


def _literal_check(tp: Any) -> Checker:
    """A closed word as our code gives it: already one of the ``Literal``'s strings."""
    allowed = frozenset(get_args(tp))
    slow = decoder(tp)

    def literal(value: Any, path: str) -> Any:
        return value if value in allowed and isinstance(value, str) else slow(value, path)

    return literal


def _enum_check(tp: type[Enum]) -> Checker:
    """A word as our code gives it: its member (a plain string is turned into it)."""
    slow = decoder(tp)

    def word(value: Any, path: str) -> Any:
        return value if type(value) is tp else slow(value, path)

    return word


def _words_in(tp: Any) -> frozenset[str] | None:
    """The strings a ``Literal`` allows, or None for any other type."""
    return frozenset(get_args(tp)) if get_origin(tp) is Literal else None


@cache
def checker(tp: Any) -> Checker | None:
    """What a value of type ``tp`` built by our code must pass: the declared bounds and words
    inside ``tp`` (returning the value, a word given as a plain string turned into its member,
    a list into a tuple), or None when ``tp`` declares none. Plain types are mypy's to check;
    nested views checked themselves when they were built. Values that pass are returned as
    they are (no copy): this runs for every view the server builds."""
    origin = get_origin(tp)
    if origin is Literal:
        return _literal_check(tp)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum_check(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        checks = tuple(m.check for m in meta if hasattr(m, "check"))
        if base in (int, float, str, bool):
            inner: Checker = decoder(base)  # the type first, then the bounds read it
        else:
            inner = checker(base) or (lambda value, path: value)

        if len(checks) == 1:
            (check,) = checks

            def bounded_one(value: Any, path: str) -> Any:
                out = inner(value, path)
                check(out, path)
                return out

            return bounded_one

        def bounded(value: Any, path: str) -> Any:
            out = inner(value, path)
            for c in checks:
                c(out, path)
            return out

        return bounded
    if origin is Union or origin is types.UnionType:
        args = get_args(tp)
        rest = [x for x in args if x is not type(None)]
        if len(rest) != 1:
            return None
        some = checker(rest[0])
        if some is None:
            return None
        one = some

        def optional(value: Any, path: str) -> Any:
            return None if value is None else one(value, path)

        return optional
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = checker(args[0])
            if item is None:
                return None
            each = item
            allowed = _words_in(args[0])

            def seq(value: Any, path: str) -> Any:
                if allowed is not None and type(value) is tuple and allowed.issuperset(value):
                    return value  # closed words, all known: nothing to turn or report
                return tuple(each(v, f"{path}[{i}]") for i, v in enumerate(value))

            return seq
        items = tuple(checker(a) or (lambda value, path: value) for a in args)
        if all(checker(a) is None for a in args):
            return None

        def fixed(value: Any, path: str) -> Any:
            if not isinstance(value, list | tuple) or len(value) != len(items):
                raise BadField(f"{path} must be a list of {len(items)}", field=path)
            return tuple(
                c(v, f"{path}[{i}]") for i, (c, v) in enumerate(zip(items, value, strict=True))
            )

        return fixed
    if origin in (Mapping, dict):
        kt, vt = get_args(tp)
        ck, cv = checker(kt), checker(vt)
        if ck is None and cv is None:
            return None
        key = ck or (lambda value, path: value)
        val = cv or (lambda value, path: value)
        allowed = _words_in(kt) if cv is None else None

        def mapping(value: Any, path: str) -> Any:
            if allowed is not None and allowed.issuperset(value):
                return value  # keys are closed words, all known; values declare nothing
            where = f"{path} key"
            return {key(k, where): val(v, f"{path}.{k}") for k, v in value.items()}

        return mapping
    return None


# Per-class plans -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldPlan:
    """One dataclass field as the codec handles it, computed once per class."""

    name: str
    wire: str  # its key on the wire
    required: bool  # no default: must be on the wire (null included)
    flat: bool  # a view whose keys sit in the parent's map
    default: Any
    decode: Decoder
    tp: Any


@cache
def plan(cls: Any) -> tuple[FieldPlan, ...]:
    """Per field of ``cls``: its name, wire name, whether it is required and flat, its default
    and its decoder."""
    wire_names: Mapping[str, str] = getattr(cls, "WIRE", {})
    flat: frozenset[str] = getattr(cls, "FLAT", frozenset())
    types_ = hints(cls)
    out = []
    for f in fields(cls):
        if f.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: wire classes take plain defaults")
        tp = types_[f.name]
        out.append(
            FieldPlan(
                name=f.name,
                wire=wire_names.get(f.name, f.name),
                required=f.default is MISSING,
                flat=f.name in flat,
                default=None if f.default is MISSING else f.default,
                decode=decoder(tp),
                tp=tp,
            )
        )
    return tuple(out)


@cache
def _wire_plan(cls: Any) -> tuple[tuple[str, str, bool, bool], ...]:
    """(name, wire name, required, flat) per field: what encoding reads, as plain tuples."""
    return tuple((p.name, p.wire, p.required, p.flat) for p in plan(cls))


@cache
def _checks(cls: Any) -> tuple[tuple[str, str, Checker], ...]:
    """The fields of ``cls`` with declared bounds or words: (name, wire name, checker)."""
    out = []
    for p in plan(cls):
        check = checker(p.tp)
        if check is not None:
            out.append((p.name, p.wire, check))
    return tuple(out)


def check_fields(obj: Any) -> None:
    """Check ``obj`` (a view or message our code built) against its fields' declared bounds;
    BadField names the field. A word given as a plain string becomes its member."""
    kind: Any = type(obj)
    for name, wire, check in _checks(kind):
        value = getattr(obj, name)
        out = check(value, wire)
        if out is not value:
            object.__setattr__(obj, name, out)


def fields_to_wire(obj: Any, out: dict[str, Wire]) -> dict[str, Wire]:
    """Every required field (null included) and every optional field that is not None, under
    its wire name; ``FLAT`` fields merge their own map into ``out``."""
    kind: Any = type(obj)
    for name, wire, required, flat in _wire_plan(kind):
        value = getattr(obj, name)
        if flat:
            out.update(value.to_wire())
        elif value is not None or required:
            out[wire] = encode_value(value)
    return out


def fields_from_wire(cls: Any, obj: Mapping[Any, Any], path: str) -> dict[str, Any]:
    """Keyword arguments for ``cls`` from a decoded map, each checked against its declared type
    and bounds; ``path`` prefixes field names in errors (empty for a message's own fields)."""
    kwargs: dict[str, Any] = {}
    for p in plan(cls):
        if p.flat:
            kwargs[p.name] = p.tp.from_wire(obj, path)
            continue
        wire = p.wire
        if wire not in obj:
            if p.required:
                where = f"{path}.{wire}" if path else wire
                raise BadField(f"{where} is required", field=where)
            kwargs[p.name] = p.default
            continue
        value = obj[wire]
        if value is None and not p.required:
            kwargs[p.name] = p.default  # an optional field sent as null: "not given"
            continue
        kwargs[p.name] = p.decode(value, f"{path}.{wire}" if path else wire)
    return kwargs


def decoded(cls: type[T], kwargs: dict[str, Any], path: str) -> T:
    """An instance of ``cls`` from fields the decoder has checked: their bounds are not checked
    again; only the class's cross-field ``_validate`` runs, its errors prefixed with ``path``."""
    obj = object.__new__(cls)
    for name, value in kwargs.items():
        object.__setattr__(obj, name, value)
    try:
        obj._validate()  # type: ignore[attr-defined]
    except BadField as exc:
        if not path:
            raise
        field = f"{path}.{exc.field}" if exc.field else path
        raise BadField(f"{path}.{exc.message}", field=field) from None
    return obj


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


_PLAIN = frozenset({type(None), bool, int, float, str})


def encode_value(value: Any) -> Wire:
    """The msgpack form of a typed value (views become maps; tuples stay arrays)."""
    kind = type(value)
    if kind in _PLAIN:
        return value  # type: ignore[no-any-return]
    if kind is tuple or kind is list:
        if all(type(v) in _PLAIN for v in value):
            return list(value)
        return [encode_value(v) for v in value]
    if isinstance(value, bool | int | float | str):  # a word (StrEnum member) is its string
        return value
    to_wire = getattr(value, "to_wire", None)
    if to_wire is not None:
        return to_wire()  # type: ignore[no-any-return]
    if isinstance(value, tuple | list):
        return [encode_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: encode_value(v) for k, v in value.items()}
    raise TypeError(f"no wire form for {type(value).__name__}")


@dataclass(frozen=True, slots=True, kw_only=True)
class View:
    """A nested wire object: frozen, checked against its declared bounds when our code builds
    it, with its wire form."""

    WIRE: ClassVar[Mapping[str, str]] = {}
    FLAT: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        check_fields(self)
        self._validate()

    def _validate(self) -> None:
        """Checks that span several fields; subclasses override (each field's type and bounds
        are declared, and checked by the decoder or on construction)."""

    def to_wire(self) -> dict[str, Wire]:
        return fields_to_wire(self, {})

    @classmethod
    def from_wire(cls, obj: object, path: str = "") -> Self:
        if not isinstance(obj, Mapping):
            raise _fail(path or cls.__name__, "a map", obj)
        return decoded(cls, fields_from_wire(cls, obj, path), path)
