"""Loop-carried Python state in kernels without source (exec, notebooks, strings): the bytecode answers
what the source would (proxies/python_bytecode.py), so every backend refuses the same kernels at the
same line, and a kernel that carries nothing still runs and equals NumPy."""
from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import TraceError
from asc_trace.proxies.python_bytecode import loop_carried_bytecode
from asc_trace.proxies.python_state import loop_carried
from asc_trace.toolchain.real_api import headers_if_configured

BACKENDS = ("sim", "eager", "cpp", pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured: set ASC_TRACE_ASCENDC_HOME")))

HEADER = '''
import asc_trace as asc
def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
'''

# (body, the line the refusal is about (1-based within HEADER + body), words of the message)
REFUSED = {
    "rebind_read_after": ('''    s = 1.0
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, 3.0, 64)
        asc.data_copy(zg[i * 64:], t, 64)
        s = 2.0 * i
    asc.muls(t, t, s, 64)
''', 9, "`s` is assigned inside this runtime loop"),
    "rebind_carried": ('''    s = 1.0
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, s, 64)
        asc.data_copy(zg[i * 64:], t, 64)
        s = s * 2.0
''', 9, "`s` is assigned inside this runtime loop"),
    "augassign": ('''    s = 1.0
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, s, 64)
        s *= 2.0
        asc.data_copy(zg[i * 64:], t, 64)
''', 9, "`s` is assigned inside this runtime loop"),
    "list_item": ('''    scale = [1.0]
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, scale[0], 64)
        asc.data_copy(zg[i * 64:], t, 64)
        scale[0] = scale[0] * 2.0
''', 9, "changes `scale[0]`"),
    "dict_update": ('''    d = {"s": 1.0}
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, d["s"], 64)
        asc.data_copy(zg[i * 64:], t, 64)
        d.update(s=d["s"] * 2.0)
''', 9, "changes `d"),
    "next_iterator": ('''    it = iter([1.0, 2.0, 3.0, 4.0, 5.0])
    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, next(it), 64)
        asc.data_copy(zg[i * 64:], t, 64)
''', 9, "changes `it`"),
    "tensor_ping_pong": ('''    a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 256, 64)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 512, 64)
    for i in range(n):
        asc.data_copy(a, xg[i * 64:], 64)
        asc.muls(b, a, 2.0, 64)
        asc.data_copy(zg[i * 64:], b, 64)
        a, b = b, a
''', 10, "rebound to another"),
}

ALLOWED = {
    # a name assigned in the body but only used inside the same iteration, after assigning it
    "local_per_iteration": ('''    for i in range(n):
        s = 2.0
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, s, 64)
        asc.data_copy(zg[i * 64:], t, 64)
''', lambda x: x * 2.0),
    # a comprehension in the body: its variable is its own
    "comprehension": ('''    for i in range(n):
        asc.data_copy(t, xg[i * 64:], 64)
        s = float(sum([j for j in range(4)]))
        asc.muls(t, t, s, 64)
        asc.data_copy(zg[i * 64:], t, 64)
''', lambda x: x * 6.0),
}


def _kernel(body: str, name: str, backend: str):
    ns: dict = {}
    exec(compile(HEADER + body, f"<no source {name}>", "exec"), ns)
    return asc.jit(ns["k"], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_without_source_at_the_users_line(name, backend):
    body, line, words = REFUSED[name]
    k = _kernel(body, name, backend)
    x = np.arange(4 * 64, dtype=np.float32)
    z = np.zeros_like(x)
    with pytest.raises(TraceError) as e:
        k[1, None](x, z, 4)
    assert words in e.value.msg
    assert e.value.loc is not None and e.value.loc.file == f"<no source {name}>" and e.value.loc.line == line
    assert not z.any()          # nothing ran


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_kernels_carrying_nothing_run_without_source(name, backend):
    body, want = ALLOWED[name]
    k = _kernel(body, name, backend)
    x = np.arange(4 * 64, dtype=np.float32)
    z = np.zeros_like(x)
    k[1, None](x, z, 4)
    np.testing.assert_array_equal(z, want(x))


# -- the bytecode's answer is the source's answer ---------------------------------------------------
FUNCTIONS = '''
def f1(n, x):
    s = 0
    for i in range(n):
        s = s + i
    return s

def f2(n, x):
    for i in range(n):
        t = i * 2
        u = t + 1
    return 0

def f3(n, x):
    a, b = 1, 2
    for i in range(n):
        a, b = b, a
    return 0

def f4(n, x):
    for i in range(n):
        v = 1
    w = v
    for j in range(n):
        w += j
        y = [k for k in range(3)]
        for m in range(j):
            q = m
            r = q + w
    return r

def f5(n, x):
    for i, (p, q) in enumerate(x):
        h = p
        f = lambda: h
    g = (lambda h: h)(1)
    return g

def f6(n, x):
    acc = 0.0
    for i in range(
            n):
        if i > 2:
            acc = acc * 2
        else:
            tmp = acc
    return tmp
'''


def _loops(src: str):
    tree = ast.parse(src)
    for fn in tree.body:
        for node in ast.walk(fn):
            if isinstance(node, ast.For):
                yield fn.name, node.iter.lineno


@pytest.mark.parametrize("after_loop", [True, False])
def test_bytecode_agrees_with_source(after_loop, tmp_path):
    path = tmp_path / "funcs.py"
    path.write_text(textwrap.dedent(FUNCTIONS))
    ns: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    checked = 0
    for name, line in _loops(path.read_text()):
        code = ns[name].__code__
        # (only the function's own variables matter: the check compares them in its frame; the source
        # version also names a comprehension's variable, which is not one)
        own = set(code.co_varnames) | set(code.co_cellvars)
        want = loop_carried(code, line, after_loop) & own
        got = loop_carried_bytecode(code, line, after_loop)
        assert got == want, (name, line, got, want)
        checked += 1
    assert checked == 8
    assert loop_carried(ns["f1"].__code__, 4) == {"s"}           # the comparison is not of empty sets
