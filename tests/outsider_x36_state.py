"""Kernels that change Python state made outside them in forms the docs did not list (x36, #18): a
helper's mutable default, a class attribute, a function attribute, a bound method's object, a
functools.partial's argument, a lambda's default held in a dict, an array.array. Traced once on sim and
cpp but run again on every core by eager, each would give different bytes per backend: each must be a
TraceError at the line that changes it, on every backend."""
from __future__ import annotations

import array
import functools

import asc_trace as asc

T = 64


def _copy_scaled(x, z, alpha):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, T)
    zg.set_global_buffer(z, T)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    asc.data_copy(t, xg, T)
    asc.muls(t, t, alpha, T)
    asc.data_copy(zg, t, T)


def grow(acc=[]):  # noqa: B006 - the mutable default is the point
    acc.append(1)
    return float(len(acc))


@asc.jit
def k_default(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _copy_scaled(x, z, grow())  # x36: default


class Cfg:
    n = 1.0


@asc.jit
def k_class_attr(x: asc.GlobalAddress, z: asc.GlobalAddress):
    Cfg.n = Cfg.n * 2  # x36: class attr
    _copy_scaled(x, z, Cfg.n)


def counter():
    counter.calls = getattr(counter, "calls", 0) + 1  # x36: function attr
    return float(counter.calls)


@asc.jit
def k_function_attr(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _copy_scaled(x, z, counter())


class Doubler:
    def __init__(self):
        self.v = 1.0

    def step(self):
        self.v *= 2
        return self.v


NEXT = Doubler().step


@asc.jit
def k_bound_method(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _copy_scaled(x, z, NEXT())  # x36: bound method


def _twice(box):
    box[0] *= 2
    return box[0]


PART = functools.partial(_twice, [1.0])


@asc.jit
def k_partial(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _copy_scaled(x, z, PART())  # x36: partial


STATE = {"f": lambda c=[1.0]: (c.__setitem__(0, c[0] * 2), c[0])[1]}  # noqa: B006


@asc.jit
def k_lambda_default(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _copy_scaled(x, z, STATE["f"]())  # x36: lambda default


AR = array.array("d", [1.0])


@asc.jit
def k_array(x: asc.GlobalAddress, z: asc.GlobalAddress):
    AR[0] = AR[0] * 2  # x36: array
    _copy_scaled(x, z, AR[0])


def bump(acc=[]):  # noqa: B006
    acc.append(1)
    return 1.0


@asc.jit
def k_default_in_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, T)
    zg.set_global_buffer(z, T)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    asc.data_copy(t, xg, T)
    for i in range(n):  # x36: loop default
        asc.adds(t, t, bump(), T)
    asc.data_copy(zg, t, T)


KERNELS = {"default": (k_default, "default"), "class_attr": (k_class_attr, "class attr"),
           "function_attr": (k_function_attr, "function attr"), "bound_method": (k_bound_method, "bound method"),
           "partial": (k_partial, "partial"), "lambda_default": (k_lambda_default, "lambda default"),
           "array": (k_array, "array"), "default_in_loop": (k_default_in_loop, "loop default")}
