"""JSON written one record per line: small enough to commit, and a changed record is a one-line diff."""
from __future__ import annotations

import json
from typing import Any


def dumps(data: dict[str, Any]) -> str:
    """`data` (a dict) with each element of its list and dict values on a line of its own."""
    out = ["{"]
    keys = sorted(data)
    for i, key in enumerate(keys):
        value = data[key]
        end = "," if i < len(keys) - 1 else ""
        if isinstance(value, list) and value:
            lines = [json.dumps(v, sort_keys=True) for v in value]
            out.append(f" {json.dumps(key)}: [\n  " + ",\n  ".join(lines) + f"\n ]{end}")
        elif isinstance(value, dict) and value and all(isinstance(v, (dict, list)) for v in value.values()):
            lines = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(value.items())]
            out.append(f" {json.dumps(key)}: {{\n  " + ",\n  ".join(lines) + f"\n }}{end}")
        else:
            out.append(f" {json.dumps(key)}: {json.dumps(value, sort_keys=True)}{end}")
    out.append("}")
    return "\n".join(out) + "\n"
