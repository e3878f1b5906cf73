"""Turn plain JSON data into the model's dataclasses, and back, with errors that name the path.

Snapshots come from other machines and other tfdoctor versions: a wrong type or a missing field
must become one clear message ("snapshot.python.version: expected str, got int"), not a
traceback somewhere inside a check.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import types
import typing
from typing import Any, TypeVar, Union

T = TypeVar("T")

INT_LIMIT = 2**63
"""Integers beyond a signed 64-bit range are refused: real facts never reach it."""


class ShapeError(ValueError):
    """Plain data does not have the shape a dataclass expects."""


def to_plain(obj: Any) -> Any:
    """A dataclass tree as JSON-ready dicts and lists."""
    names = _field_names(type(obj))
    if names is not None:
        return {name: to_plain(getattr(obj, name)) for name in names}
    if isinstance(obj, (list, tuple)):
        return [to_plain(item) for item in obj]
    if isinstance(obj, dict):
        return {str(key): to_plain(value) for key, value in obj.items()}
    return obj


@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...] | None:
    """A dataclass's field names (None for other types), looked up once per class."""
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls))
    return None


def from_plain(cls: type[T], data: Any, path: str = "$") -> T:
    """Build `cls` from plain data; unknown keys are ignored, missing ones use field defaults."""
    try:
        return _converter(cls)(data)
    except _Misfit as exc:
        raise ShapeError(f"{path}{exc.trail}: {exc.message}") from None


class _Misfit(Exception):
    """A shape error whose path is assembled on the way out (the happy path builds none)."""

    def __init__(self, message: str, trail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.trail = trail

    def under(self, step: str) -> "_Misfit":
        self.trail = step + self.trail
        return self


Converter = typing.Callable[[Any], Any]


@functools.lru_cache(maxsize=None)
def _converter(tp: Any) -> Converter:
    """The function that converts plain data to `tp`, made once per type: a snapshot of 150,000
    packages is converted in linear time with little work per value (issue 15)."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return lambda data: data
    if origin in (Union, types.UnionType):
        return _union(typing.get_args(tp))
    if dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    if origin in (list, tuple):
        (item_type, *_rest) = typing.get_args(tp) or (Any,)
        return _sequence(item_type, origin)
    if origin is dict:
        _key_type, value_type = typing.get_args(tp) or (str, Any)
        return _mapping(value_type)
    if tp is float:
        return _float
    if tp is int:
        return _int
    if isinstance(tp, type):
        return _plain(tp)

    def unsupported(data: Any) -> Any:
        raise _Misfit(f"unsupported type {tp!r}")

    return unsupported


def _union(args: tuple) -> Converter:
    options = [a for a in args if a is not type(None)]
    nullable = len(options) < len(args)

    def convert(data: Any) -> Any:
        if data is None and nullable:
            return None
        errors = []
        for arg in options:
            try:
                return _converter(arg)(data)
            except _Misfit as exc:
                errors.append(exc)
        if len(errors) == 1:
            raise errors[0]
        raise _Misfit(f"{_name(data)} fits no type")

    return convert


def _dataclass(tp: type) -> Converter:
    hints = _hints(tp)
    fields = [(f.name, hints[f.name], f.default is dataclasses.MISSING
               and f.default_factory is dataclasses.MISSING) for f in dataclasses.fields(tp)]
    resolved: list[tuple[str, Converter, bool]] = []  # on first use: types may refer ahead

    def convert(data: Any) -> Any:
        if not isinstance(data, dict):
            raise _Misfit(f"expected an object, got {_name(data)}")
        if not resolved:
            resolved.extend((name, _converter(hint), required) for name, hint, required in fields)
        kwargs = {}
        for name, field_converter, required in resolved:
            if name in data:
                try:
                    kwargs[name] = field_converter(data[name])
                except _Misfit as exc:
                    raise exc.under(f".{name}") from None
            elif required:
                raise _Misfit(f"missing field {name!r}")
        return tp(**kwargs)

    return convert


def _sequence(item_type: Any, origin: Any) -> Converter:
    def convert(data: Any) -> Any:
        if not isinstance(data, list):
            raise _Misfit(f"expected a list, got {_name(data)}")
        item = _converter(item_type)
        items = []
        for index, value in enumerate(data):
            try:
                items.append(item(value))
            except _Misfit as exc:
                raise exc.under(f"[{index}]") from None
        return tuple(items) if origin is tuple else items

    return convert


def _mapping(value_type: Any) -> Converter:
    def convert(data: Any) -> Any:
        if not isinstance(data, dict):
            raise _Misfit(f"expected an object, got {_name(data)}")
        value = _converter(value_type)
        result = {}
        for key, item in data.items():
            try:
                result[str(key)] = value(item)
            except _Misfit as exc:
                raise exc.under(f".{key}") from None
        return result

    return convert


def _float(data: Any) -> float:
    if isinstance(data, float):
        return data
    if isinstance(data, int) and not isinstance(data, bool):
        try:
            return float(data)
        except OverflowError:  # an integer above 1.8e308 in a float field
            raise _Misfit("number out of range for a float") from None
    raise _Misfit(f"expected float, got {_name(data)}")


def _int(data: Any) -> int:
    if isinstance(data, int) and not isinstance(data, bool):
        if not -INT_LIMIT <= data <= INT_LIMIT:
            # No fact (a byte count, a pid) is that large; arithmetic on it would overflow.
            raise _Misfit("integer out of range")
        return data
    raise _Misfit(f"expected int, got {_name(data)}")


def _plain(tp: type) -> Converter:
    def convert(data: Any) -> Any:
        if isinstance(data, tp):
            return data
        raise _Misfit(f"expected {tp.__name__}, got {_name(data)}")

    return convert


@functools.lru_cache(maxsize=None)
def _hints(tp: type) -> dict[str, Any]:
    """A dataclass's resolved field types: evaluating string annotations costs ~0.3 ms, once
    per class instead of once per object (150,000 packages, issue 15)."""
    return typing.get_type_hints(tp)


def _name(data: Any) -> str:
    return "null" if data is None else type(data).__name__


def json_schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of what `to_plain` makes of `tp`; dataclasses go into `defs` by name."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return {}
    if origin in (Union, types.UnionType):
        options = [json_schema(arg, defs) for arg in typing.get_args(tp)]
        return {"anyOf": options}
    if tp is type(None):
        return {"type": "null"}
    if origin is typing.Literal:
        values = list(typing.get_args(tp))
        return {"const": values[0]} if len(values) == 1 else {"enum": values}
    if dataclasses.is_dataclass(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder against recursion
            hints = typing.get_type_hints(tp)
            fields = dataclasses.fields(tp)
            defs[name] = {
                "type": "object",
                "properties": {f.name: json_schema(hints[f.name], defs) for f in fields},
                # A field with a default may be absent: older snapshots lack newer facts.
                "required": [f.name for f in fields if f.default is dataclasses.MISSING
                             and f.default_factory is dataclasses.MISSING],
            }
        return {"$ref": f"#/$defs/{name}"}
    if origin in (list, tuple):
        (item_type, *_rest) = typing.get_args(tp) or (Any,)
        return {"type": "array", "items": json_schema(item_type, defs)}
    if origin is dict:
        _key_type, value_type = typing.get_args(tp) or (str, Any)
        return {"type": "object", "additionalProperties": json_schema(value_type, defs)}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if tp in simple:
        return {"type": simple[tp]}
    raise TypeError(f"no JSON schema for {tp!r}")


def json_text(value: Any, indent: int | None = None) -> str:
    """Strict JSON for what tfdoctor prints: non-finite floats (an infinite speedup) become
    null, as other parsers reject `Infinity`; values JSON has no type for become strings; lone
    surrogates (undecodable bytes of a file name or message) become U+FFFD, so the text always
    encodes as UTF-8."""
    try:  # the common case in one pass; non-finite floats are rare enough to walk for
        text = json.dumps(value, indent=indent, default=str, allow_nan=False, ensure_ascii=False)
    except ValueError:
        text = json.dumps(_finite(value), indent=indent, default=str, allow_nan=False,
                          ensure_ascii=False)
    return clean_text(text)  # surrogates in keys, values and default=str text alike


_SURROGATES = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` without lone surrogates (they cannot be encoded as UTF-8): U+FFFD instead."""
    return _SURROGATES.sub("\ufffd", text)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(key)): _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def depth_within(value: Any, limit: int) -> bool:
    """Whether plain JSON data nests no deeper than `limit` (checked without recursion, so a
    hostile document cannot exhaust the stack of whatever walks it next)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return True
