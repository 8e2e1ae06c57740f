"""The emitted Ascend C uses only what the CANN generation it targets declares (issue 19, defect 2): the
raw `LocalTensor<T>(TPosition, addr, size)` constructor exists in asc-devkit (CANN 8.5+) but not in
CANN 8.1.RC1, whose launch path asc_trace keeps. lower/api_symbols.txt lists every symbol the emitter
uses with its declaration in each generation; these tests hold every emitted source of the suite to it
(always: no headers needed) and each listed line to the headers (where they are at hand: asc-devkit
next to the checkout, CANN 8.1.RC1 through ASC_TRACE_CANN81_HOME, see tests/cann81_local_copy.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import asc_trace as asc
import suite_framework
import suite_kernels
from asc_trace.lower.api_symbols import GENERATIONS, declares, emitted_symbols, listed, unlisted
from asc_trace.lower.ascendc import lower
from asc_trace.toolchain.real_api import headers_if_configured

CANN81 = os.environ.get("ASC_TRACE_CANN81_HOME")


def _trees() -> dict[str, Path | None]:
    devkit = headers_if_configured()
    return {"asc-devkit": devkit.root if devkit is not None and devkit.layout == "asc-devkit" else None,
            "cann-8.1": Path(CANN81) / "compiler" / "tikcpp" / "tikcfw" if CANN81 else None}


def test_every_emitted_source_uses_only_what_cann_8_5_declares():
    for k in suite_kernels.all_kernels():
        assert unlisted(k.source, "asc-devkit") == [], k.name


def test_every_emitted_source_uses_only_what_cann_8_1_declares():
    """What the host backends build (ck.source) is what a CANN 8.x build compiles, except for a kernel
    that places raw LocalTensors beside TPipe buffers: that one needs the raw constructor, and lowering it
    for CANN 8.x is refused at the user's line."""
    for k in suite_kernels.all_kernels():
        if k.name in suite_kernels.MIXED:
            with pytest.raises(asc.ToolchainError, match="LocalTensor\\(TPosition, addr, size\\)") as ei:
                lower(k.graph, generation=8)
            assert ei.value.loc is not None and ei.value.loc.short.startswith("suite_kernels.py:")
            assert "LocalTensor/3" in emitted_symbols(k.source)
            continue
        if k.name in suite_framework.NEWER_API:
            with pytest.raises(asc.ToolchainError, match="CANN 8.5 and later") as ei:
                lower(k.graph, generation=8)
            assert ei.value.loc is not None and ei.value.loc.short.startswith("suite_framework.py:")
            continue
        assert unlisted(k.source, "cann-8.1") == [], k.name
        assert lower(k.graph, generation=8) == k.source, k.name


def test_the_list_holds_nothing_the_emitter_does_not_use():
    used = set().union(*(emitted_symbols(k.source) for k in suite_kernels.all_kernels()))
    assert set(listed()) - used == set()


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_each_listed_line_declares_its_symbol(generation):
    root = _trees()[generation]
    if root is None:
        pytest.skip(f"no {generation} headers here (asc-devkit: ../shared/vendor/asc-devkit; CANN 8.1.RC1: "
                    "ASC_TRACE_CANN81_HOME)")
    col = GENERATIONS[generation]
    wrong = [(key, locs[col]) for key, locs in listed().items()
             if locs[col].path is not None and not declares(root, locs[col], key)]
    assert wrong == []
