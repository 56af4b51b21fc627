"""JSON on the wire: exact bytes out (decimals as written), typed dataclasses in."""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from decimal import Decimal
from typing import Any, TypeVar

T = TypeVar("T")


def wire(name: str, **kwargs: Any) -> Any:
    """A dataclass field whose JSON key is ``name`` (the attribute itself is snake_case)."""
    metadata = {"json": name}
    return dataclasses.field(metadata=metadata, **kwargs)


def json_name(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("json", f.name))


def _encode(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} is not a finite number")
        # The decimal as written ("1500.50" stays 1500.50): no float rounding on the way out.
        out.append(format(value, "f"))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        out.append(repr(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        _encode(to_json(value), out)
    elif isinstance(value, dict):
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            if i:
                out.append(",")
            out.append(json.dumps(str(k), ensure_ascii=False))
            out.append(":")
            _encode(v, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            _encode(v, out)
        out.append("]")
    else:
        raise TypeError(f"cannot send a {type(value).__name__} as JSON")


def dumps(value: Any) -> bytes:
    """Compact JSON as UTF-8 bytes; a ``Decimal`` is written with its own digits."""
    out: list[str] = []
    _encode(value, out)
    return "".join(out).encode("utf-8")


def to_json(obj: Any) -> dict[str, Any]:
    """A request dataclass as the JSON object sent: its wire names, fields left as None omitted."""
    result: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if v is not None:
            result[json_name(f)] = v
    return result


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin is typing.Union or isinstance(tp, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(args[0], value) if len(args) == 1 else value
    if origin is list:
        (item,) = typing.get_args(tp) or (Any,)
        return [_convert(item, v) for v in value] if isinstance(value, list) else value
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return from_json(tp, value) if isinstance(value, dict) else value
    return value


def from_json(cls: type[T], data: Any) -> T:
    """A response dataclass from the parsed JSON; keys the class does not know are ignored."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: expected a JSON object, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    kwargs = {f.name: _convert(hints[f.name], data.get(json_name(f))) for f in dataclasses.fields(cls) if f.init}  # type: ignore[arg-type]
    return cls(**kwargs)
