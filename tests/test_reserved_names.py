"""No identifier of the emitted Ascend C collides with what bisheng or the Ascend C headers define
(issue 19, defect 1): bisheng force-includes a header into every aicore compile that makes `block_idx`
and `block_num` macros, so `const int64_t block_idx = ...` does not compile on a real toolchain.

Every name the emitter makes up carries the reserved prefix (lower/cexpr.PREFIX), user names that
cannot be used as they are get it too, and the host builds see bisheng's predefined macros
(prelude/asc_trace_bisheng_view.h), so the cpp backend and the header check fail as bisheng would."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

import asc_trace as asc
import suite_kernels
from asc_trace.lower.cexpr import BISHENG_MACROS, PREFIX, RESERVED, c_ident
from asc_trace.toolchain.header_check import Kernel, check_kernels
from asc_trace.toolchain.real_api import flags, headers_if_configured

needs_headers = pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured")

# What the emitted text names that is not its own: C++ and the fixed-width types, the API namespace and
# its macros (GM_ADDR, the kernel-type macros), bisheng's pipe_t enumerators, the qualifiers, the prelude's
# macros and float constants.
NOT_OURS = frozenset("""extern const static_cast reinterpret_cast uint8_t uint16_t uint32_t uint64_t int8_t int16_t
int32_t int64_t float bool half bfloat16_t void if else while for true false break return AscendC GM_ADDR
KERNEL_TASK_TYPE_DEFAULT KERNEL_TYPE_AIV_ONLY __global__ __aicore__ __gm__ NAN INFINITY ULL LL ASC_CHECK_RANGE
ASC_CHECK_EVAL PIPE_S PIPE_V PIPE_MTE2 PIPE_MTE3 PIPE_ALL
SoftMaxTiling RmsNormTiling""".split())      # the last: the vendor's global tiling structs (asc.adv)


def _code(source: str) -> str:
    """The source without comments, string literals (their words are not identifiers) and the fixed
    preprocessor lines of the emitted head."""
    source = re.sub(r'"(?:\\.|[^"\\])*"', '""', source)
    source = re.sub(r"^\s*#[^\n]*", "", source, flags=re.M)
    return re.sub(r"//[^\n]*", "", source)


def unqualified_identifiers(source: str) -> set[str]:
    """Identifiers the source declares or uses by their bare name: not after `::`, `.`, `<`-template
    API members (those are the API's, audited by test_api_symbols.py)."""
    code = _code(source)
    out = set()
    for m in re.finditer(r"(?<![\w:.])([A-Za-z_]\w*)", code):
        name = m.group(1)
        if code[m.end():m.end() + 2] == "::":      # a namespace or class qualifier (AscendC::)
            continue
        out.add(name)
    return out


def _own_names(k: Kernel) -> set[str]:
    sig = k.graph.signature.runtime
    return {c_ident(p.name) for p in sig} | {c_ident(k.graph.name)}


def test_every_name_the_emitter_makes_up_has_the_reserved_prefix():
    for k in suite_kernels.example_kernels() + suite_kernels.random_kernels():
        made_up = {n for n in unqualified_identifiers(k.source)
                   if n not in NOT_OURS and not n.startswith("ASC_TRACE_KIND_") and n not in _own_names(k)}
        assert all(n.startswith(PREFIX) for n in made_up), (k.name, sorted(n for n in made_up
                                                                             if not n.startswith(PREFIX)))
        assert not made_up & BISHENG_MACROS, k.name


@pytest.mark.parametrize("name", ["block_idx", "block_num", "l2_in_main", "CCE_TRUE", "asct_t0", "asc_x", "int",
                                  "__x", "_Tile", "likely", "ASCENDC_DUMP", "int32_t", "uint64_t", "bfloat16_t"])
def test_a_user_name_that_cannot_be_used_gets_the_prefix(name):
    assert c_ident(name) == f"{PREFIX}p_{name}"
    assert c_ident(f"{PREFIX}p_{name}") != c_ident(name)      # and two user names never meet


def test_parameters_named_like_bisheng_builtins_compile_and_run():
    @asc.jit
    def block_num(x: asc.GlobalAddress, block_idx: int, l2_in_main: float):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x + asc.get_block_idx() * 64, 64)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        asc.duplicate(t, l2_in_main + block_idx + asc.get_block_num(), 64)
        asc.data_copy(xg, t, 64)

    x = np.zeros(2 * 64, np.float32)
    asc.jit(block_num, backend="cpp")[2](x, 3, 0.5)
    np.testing.assert_array_equal(x, np.float32(5.5))
    src = asc.compile(block_num, (x, 3, 0.5), core_num=2).source
    assert f"void {PREFIX}p_block_num(GM_ADDR x, int64_t {PREFIX}p_block_idx, float {PREFIX}p_l2_in_main)" in src


def test_parameters_named_like_the_emitted_types_compile_and_run():
    @asc.jit
    def k(x: asc.GlobalAddress, int32_t: int, uint64_t: float):
        xg = asc.GlobalTensor()
        xg.set_global_buffer(x, 64)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        asc.duplicate(t, uint64_t + int32_t, 64)
        asc.data_copy(xg, t, 64)

    x = np.zeros(64, np.float32)
    asc.jit(k, backend="cpp")[1](x, 3, 0.5)
    np.testing.assert_array_equal(x, np.float32(3.5))


def test_the_cpp_backend_sees_bisheng_macros():
    """The host builds put bisheng's predefined macros in front of the kernel: a local named block_idx
    (what the lowering used to emit) is a compile error there too."""
    import vadd
    x = np.zeros(8 * 2048, np.float32)
    ck = asc.compile(vadd.vadd_kernel, (x, x, x, 2048))
    assert "const int64_t asct_block_idx = AscendC::GetBlockIdx();" in ck.source
    from asc_trace.lower.ascendc import host_view
    viewed = host_view(ck.source)
    assert viewed.index('#include "asc_trace_bisheng_view.h"') > viewed.index('#include "kernel_operator.h"')
    old = ck.source.replace(f"{PREFIX}block_idx", "block_idx")
    proc = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-x", "c++", "-", *(f"-I{d}" for d in _include()),
                           "-I", str(_prelude())], input=host_view(old), text=True, capture_output=True)
    assert proc.returncode != 0 and "get_block_idx" in proc.stderr


def _include():
    from asc_trace.runtime.cpp import model_include_dirs
    return model_include_dirs()


def _prelude():
    from asc_trace.lower.ascendc import PRELUDE_DIR
    return PRELUDE_DIR


@needs_headers
def test_the_header_check_rejects_what_bisheng_would():
    """The old `block_idx` local, checked as bisheng sees it, fails at the user's line."""
    k = suite_kernels.example_kernels()[0]
    old = k.source.replace(f"{PREFIX}block_idx", "block_idx")
    errors = check_kernels([k, Kernel("old", old, k.graph)])
    assert len(errors) == 1 and "get_block_idx" in str(errors[0])


@needs_headers
def test_no_header_uses_the_prefix_and_every_lowercase_api_macro_is_reserved():
    """Preprocessed as the header check compiles them, the headers declare nothing starting with the
    reserved prefix, and every lower-case macro they define (which a user's parameter name could
    hit) is one c_ident renames."""
    tree = headers_if_configured()
    probe = '#include "kernel_operator.h"\n'
    text = subprocess.run(["g++", *flags(tree), "-E", "-dD", "-x", "c++", "-"], input=probe, text=True,
                          capture_output=True, check=True).stdout
    assert not re.search(rf"\b{PREFIX}\w*|\bASCT_\w*", text)
    root = str(tree.root)
    where, macros = "", set()
    for line in text.splitlines():
        m = re.match(r'^# \d+ "([^"]+)"', line)
        if m:
            where = m.group(1)
            continue
        m = re.match(r"^#define ([a-z]\w*)", line)
        if m and root in where:           # defined by the Ascend C headers themselves
            macros.add(m.group(1))
    assert macros <= RESERVED, sorted(macros - RESERVED)
