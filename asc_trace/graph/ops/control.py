"""Structured control flow: a runtime loop is a `for` ... `end_for` pair traced once."""
from __future__ import annotations

from . import OpDef, register

register(
    OpDef("for", "control", None, "for"),
    OpDef("end_for", "control", None, "}"),
)
