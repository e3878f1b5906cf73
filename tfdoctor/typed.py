"""Turn plain JSON data into the model's dataclasses, and back, with errors that name the path.

Snapshots come from other machines and other tfdoctor versions: a wrong type or a missing field
must become one clear message ("snapshot.python.version: expected str, got int"), not a
traceback somewhere inside a check.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from typing import Any, TypeVar, Union

T = TypeVar("T")


class ShapeError(ValueError):
    """Plain data does not have the shape a dataclass expects."""


def to_plain(obj: Any) -> Any:
    """A dataclass tree as JSON-ready dicts and lists."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_plain(item) for item in obj]
    if isinstance(obj, dict):
        return {str(key): to_plain(value) for key, value in obj.items()}
    return obj


def from_plain(cls: type[T], data: Any, path: str = "$") -> T:
    """Build `cls` from plain data; unknown keys are ignored, missing ones use field defaults."""
    return _convert(cls, data, path)


def _convert(tp: Any, data: Any, path: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return data
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if data is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(arg, data, path)
            except ShapeError as exc:
                errors.append(str(exc))
        raise ShapeError(errors[0] if len(errors) == 1 else f"{path}: {_name(data)} fits no type")
    if dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise ShapeError(f"{path}: expected an object, got {_name(data)}")
        hints = typing.get_type_hints(tp)
        kwargs = {}
        for field in dataclasses.fields(tp):
            if field.name in data:
                kwargs[field.name] = _convert(hints[field.name], data[field.name], f"{path}.{field.name}")
            elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise ShapeError(f"{path}: missing field {field.name!r}")
        return tp(**kwargs)
    if origin in (list, tuple):
        if not isinstance(data, list):
            raise ShapeError(f"{path}: expected a list, got {_name(data)}")
        (item_type, *_rest) = typing.get_args(tp) or (Any,)
        items = [_convert(item_type, item, f"{path}[{i}]") for i, item in enumerate(data)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(data, dict):
            raise ShapeError(f"{path}: expected an object, got {_name(data)}")
        _key_type, value_type = typing.get_args(tp) or (str, Any)
        return {str(k): _convert(value_type, v, f"{path}.{k}") for k, v in data.items()}
    if tp is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if isinstance(tp, type):
        if isinstance(data, tp) and not (tp is int and isinstance(data, bool)):
            return data
        raise ShapeError(f"{path}: expected {tp.__name__}, got {_name(data)}")
    raise ShapeError(f"{path}: unsupported type {tp!r}")


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
    if dataclasses.is_dataclass(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder against recursion
            hints = typing.get_type_hints(tp)
            fields = dataclasses.fields(tp)
            defs[name] = {
                "type": "object",
                "properties": {f.name: json_schema(hints[f.name], defs) for f in fields},
                "required": [f.name for f in fields],
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
    null, as other parsers reject `Infinity`; values JSON has no type for become strings."""
    return json.dumps(_finite(value), indent=indent, default=str, allow_nan=False, ensure_ascii=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
