"""asc.jit options: every option is validated (type and range) with an error naming the option and
what it accepts, and help(asc.jit) lists each option with its meaning and default."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.options import OPTIONS


def _k(x: asc.GlobalAddress):
    pass


@pytest.mark.parametrize("name,value,accepted", [
    ("kernel_type", "garbage", "'vector'"),
    ("opt_level", "fast", "0 to 3"),
    ("opt_level", 7, "0 to 3"),
    ("opt_level", True, "0 to 3"),
    ("auto_sync", "no", "True or False"),
    ("auto_sync", 1, "True or False"),
    ("always_compile", "yes", "True or False"),
    ("multi_buffer", "x", "'auto', 'off'"),
    ("multi_buffer", -1, "from 1 to 16"),
    ("multi_buffer", 2.5, "from 1 to 16"),
    ("multi_buffer", 0, "from 1 to 16"),
    ("backend", "gpu", "'sim', 'eager', 'cpp'"),
    ("backend", 3, "'sim', 'eager', 'cpp'"),
    ("platform", "Ascend910C", "'Ascend910B2'"),
])
def test_bad_option_values_are_refused_naming_the_option(name, value, accepted):
    for make in (lambda: asc.jit(_k, **{name: value}), lambda: asc.jit(**{name: value})(_k),
                 lambda: asc.jit(asc.jit(_k), **{name: value}),
                 lambda: asc.compile(_k, (np.zeros(8, np.float32),), **{name: value})):
        with pytest.raises(asc.OptionError) as ei:
            make()
        assert f"{name}={value!r}" in str(ei.value) and accepted in str(ei.value)
        assert isinstance(ei.value, asc.TraceError) and isinstance(ei.value, ValueError)


def test_unknown_option_lists_the_known_ones():
    with pytest.raises(asc.OptionError, match="unknown asc.jit option 'auto_synk'") as ei:
        asc.jit(_k, auto_synk=False)
    assert all(o.name in str(ei.value) for o in OPTIONS)


@pytest.mark.parametrize("name,value,stored", [
    ("backend", "CPP", "cpp"), ("multi_buffer", 3, 3), ("multi_buffer", "OFF", "off"), ("multi_buffer", False, False),
    ("opt_level", np.int64(1), 1), ("auto_sync", np.bool_(False), False), ("kernel_type", "aiv", "aiv"),
])
def test_good_option_values_are_accepted_and_normalised(name, value, stored):
    assert asc.jit(_k, **{name: value}).options[name] == stored


def test_help_lists_every_option_with_its_meaning_and_default():
    doc = asc.jit.__doc__
    for o in OPTIONS:
        assert f"{o.name} (default {o.default!r}): " in doc, o.name
        assert o.meaning in doc


def test_a_kernels_options_are_one_frozen_typed_record():
    import dataclasses

    from asc_trace.kernel_options import KernelOptions
    k = asc.jit(_k, auto_sync=False, multi_buffer=3)
    assert isinstance(k.options, KernelOptions)
    assert k.options.auto_sync is False and k.options.multi_buffer == 3 and k.options["opt_level"] == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        k.options.auto_sync = True
    # the table's defaults are the record's: each default is written once
    assert {o.name: o.default for o in OPTIONS} == dict(KernelOptions())
