"""pyasc's `asc.language.core.struct`: `Struct` classes of typed `Field`s (and nested `StructField`s)
passed to a kernel as one parameter.

asc_trace specialises a kernel on a struct argument, as on an `asc.ConstExpr`: the launch takes a
snapshot of the field values, the kernel sees them as constants, and new values make a new
compilation. Results are the same as pyasc's by-value struct; the fields are simply known while
tracing (so tile counts and lengths in a struct can size loops and buffers).
"""
from __future__ import annotations

from typing import Any, ClassVar

from .dtypes import DataType
from .errors import LaunchError, TraceError
from .proxies.source_loc import user_loc

_MISSING = object()


class BaseField:
    """A field of a Struct: its default (or none) and its optional C name."""

    def __init__(self, default: Any = _MISSING, name: str | None = None) -> None:
        self.default = default
        self.name = name

    def convert(self, value: Any, owner: str, field: str) -> Any:
        raise NotImplementedError


class Field(BaseField):
    """A scalar field of a given dtype (e.g. `Field(dtype=KT.int32, default=0)`)."""

    def __init__(self, dtype: DataType, default: Any = _MISSING, name: str | None = None) -> None:
        if not isinstance(dtype, DataType):
            raise LaunchError(f"a struct Field takes a dtype such as asc.int32, got {dtype!r}", user_loc())
        super().__init__(default, name)
        self.dtype = dtype

    def convert(self, value: Any, owner: str, field: str) -> Any:
        """The value as the field's C type holds it (integers wrap to the width, as ctypes does)."""
        dt = self.dtype
        if dt.is_float:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise LaunchError(f"{owner}.{field} is a {dt.name} field; got {type(value).__name__} {value!r}",
                                  user_loc())
            # bfloat16 has no NumPy type: its field keeps the float32 value
            return float(dt.np.type(value)) if dt.kind == "float" else float(value)
        if not isinstance(value, int):
            raise LaunchError(f"{owner}.{field} is a {dt.name} field; got {type(value).__name__} {value!r}", user_loc())
        bits = 8 * dt.itemsize
        value &= (1 << bits) - 1
        if dt.name.startswith("int") and value >= 1 << (bits - 1):
            value -= 1 << bits
        return value


class StructField(BaseField):
    """A nested struct; its default is the nested class's own defaults."""

    def __init__(self, struct_cls: type["Struct"], default: Any = None, name: str | None = None) -> None:
        super().__init__(default, name)
        self.struct_cls = struct_cls

    def convert(self, value: Any, owner: str, field: str) -> Any:
        if value is None:
            return self.struct_cls()
        if not isinstance(value, self.struct_cls):
            raise LaunchError(f"{owner}.{field} is a {self.struct_cls.__name__}; got {type(value).__name__}",
                              user_loc())
        return value._copy()      # assignment copies, as pyasc's ctypes structure does


class Struct:
    """Subclass with class attributes `name = Field(dtype=..., default=...)`; instantiate on the host with
    keyword values, pass to a kernel parameter annotated with the class."""

    struct_fields: ClassVar[dict[str, BaseField]] = {}
    __asc_struct__: ClassVar[bool] = True

    def __init_subclass__(cls, pack: int = 8, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.struct_fields = {k: v for k, v in vars(cls).items() if isinstance(v, BaseField)}
        if not cls.struct_fields:
            raise LaunchError(f"Struct {cls.__name__!r} must have at least one field", user_loc())
        for k in cls.struct_fields:
            delattr(cls, k)    # instance values, not the descriptors, answer attribute reads

    def __init__(self, **fields: Any) -> None:
        name = type(self).__name__
        values: dict[str, Any] = {}
        for k, v in fields.items():
            if k not in self.struct_fields:
                raise LaunchError(f"{name} does not have a field {k!r} (fields: {', '.join(self.struct_fields)})",
                                  user_loc())
            values[k] = self.struct_fields[k].convert(v, name, k)
        for k, f in self.struct_fields.items():
            if k in values:
                continue
            if f.default is _MISSING:
                raise LaunchError(f"{name} does not have a default value for {k!r}; pass {k}=...", user_loc())
            values[k] = f.convert(f.default, name, k)
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_frozen", False)

    def __getattr__(self, key: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if key in values:
            return values[key]
        raise AttributeError(f"{type(self).__name__} has no field {key!r}")

    def __setattr__(self, key: str, value: Any) -> None:
        if self._frozen:
            raise TraceError(f"{type(self).__name__}.{key}: a struct kernel parameter is read-only inside the kernel "
                             "(asc_trace specialises the kernel on its values)", user_loc(),
                             hint="compute the value into a local variable instead")
        if key not in self.struct_fields:
            raise LaunchError(f"{type(self).__name__} does not have a field {key!r}", user_loc())
        self._values[key] = self.struct_fields[key].convert(value, type(self).__name__, key)

    def _copy(self, frozen: bool = False) -> "Struct":
        new = object.__new__(type(self))
        vals = {k: (v._copy(frozen) if isinstance(v, Struct) else v) for k, v in self._values.items()}
        object.__setattr__(new, "_values", vals)
        object.__setattr__(new, "_frozen", frozen)
        return new

    def __asc_frozen__(self) -> "Struct":
        """The read-only snapshot a launch specialises the kernel on."""
        return self._copy(frozen=True)

    def _key(self) -> tuple:
        return (type(self).__qualname__,) + tuple((k, v._key() if isinstance(v, Struct) else v)
                                                   for k, v in self._values.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Struct) and type(other) is type(self) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"


__all__ = ["BaseField", "Field", "Struct", "StructField"]
