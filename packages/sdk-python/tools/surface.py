"""Prints the SDK's surface as JSON: the OpenAPI operations its client methods carry out and the
fields of its typed requests and answers, both found by introspection.

    {"operations": ["createOrder", ...], "schemas": {"Order": ["id", "orderRef", ...], ...}}

Operations come from the ``@operation("<operationId>")`` mark on the methods of ``Paygate`` and of the
resources it holds (``client.orders``, ...); schemas from every dataclass of ``paygate.types`` that
names the schema it mirrors in ``__schema__``, with the JSON key of each field.

Run with the package importable: ``PYTHONPATH=packages/sdk-python/src python3 packages/sdk-python/tools/surface.py``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import paygate  # noqa: E402
import paygate.types  # noqa: E402
from paygate._wire import json_name  # noqa: E402


def operations() -> list[str]:
    client = paygate.Paygate("http://surface.invalid", "shp_surface", "surface")
    found: set[str] = set()
    seen: set[int] = set()

    def walk(obj: object) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        for _, member in inspect.getmembers(type(obj), inspect.isfunction):
            op = getattr(member, "__paygate_operation__", None)
            if op:
                found.add(op)
        for value in vars(obj).values():
            if type(value).__module__.startswith("paygate") and not dataclasses.is_dataclass(value):
                walk(value)

    walk(client)
    return sorted(found)


def schemas() -> dict[str, list[str]]:
    result: dict[str, list[str]] = {}
    for _, cls in inspect.getmembers(paygate.types, inspect.isclass):
        name = cls.__dict__.get("__schema__")
        if dataclasses.is_dataclass(cls) and isinstance(name, str):
            result[name] = [json_name(f) for f in dataclasses.fields(cls)]
    return dict(sorted(result.items()))


if __name__ == "__main__":
    json.dump({"operations": operations(), "schemas": schemas()}, sys.stdout, indent=2)
    sys.stdout.write("\n")
