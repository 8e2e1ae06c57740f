"""The pyasc census tools (tools/pyasc_census.py, tools/pyasc_surface.py): the import rewrite, the
classification of refusals, the owners, the signature comparison, and the committed surface list.

The census runs here on a small pyasc-style checkout written by this test (our own kernels in pyasc's
layout), not on pyasc's files."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

import asc_trace as asc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from pyasc_compat import owners  # noqa: E402
from pyasc_compat.kernels import scan  # noqa: E402
from pyasc_compat.sources import rewrite  # noqa: E402
from pyasc_compat.status import check_overload, status  # noqa: E402
from pyasc_compat.surface import markdown  # noqa: E402


def test_the_rewrite_changes_imports_only_line_for_line():
    src = textwrap.dedent('''\
        import asc
        import asc.runtime.config as config
        import asc.lib.runtime as rt
        from asc.runtime import config as cfg
        from asc.runtime.jit import MockTensor
        from asc.language.core.struct import Struct
        import asc.lib.runtime
        import asc_other
        x = asc.add  # import asc stays in comments
        BACKENDS = [
            config.Backend.NPU,
        ]
        ''')
    out = rewrite(src, "reference").splitlines()
    assert len(out) == len(src.splitlines())
    assert out[:7] == ["import asc_trace as asc", "import asc_trace.runtime.config as config",
                       "import asc_trace.lib.runtime as rt", "from asc_trace.runtime import config as cfg",
                       "from pyasc_census_glue import MockTensor", "from asc_trace.language.core.struct import Struct",
                       "import asc_trace.lib.runtime, asc_trace as asc"]
    assert out[7] == "import asc_other" and out[8] == src.splitlines()[8]
    assert out[10].strip() == "config.Backend.Model,"                      # reference tests run on Model
    assert "config.Backend.NPU" in rewrite(src, "unit")                    # unit files keep theirs


def test_owners():
    assert owners.owner("add") == owners.VECTOR == owners.owner("LocalTensor.get_length")
    assert owners.owner("adv.softmax") == owners.ADV == owners.owner("adv")
    for name in ("adv.Matmul", "mmad", "TPosition.A1", "lib.host.MatmulApiTiling", "Nd2NzParams", "asc.fixpipe"):
        assert owners.owner(name) == owners.CUBE, name
    assert owners.owner("TPosition.VECIN") == owners.VECTOR
    assert owners.family({"add", "adv.exp"}) == owners.ADV
    assert owners.family({"add"}, {"matmul_cube_only"}) == owners.CUBE


def test_scan_finds_kernels_their_names_keywords_and_launches():
    src = textwrap.dedent('''\
        import asc

        @asc.jit
        def helper(t):
            asc.exp(t, t, count=8)

        @asc.jit(always_compile=True)
        def kern(x: asc.GlobalAddress):
            t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
            helper(t)
            n = t.get_length()

        def test_it():
            kern[1](None)
        ''')
    ks = {k.name: k for k in scan(src)}
    assert set(ks) == {"helper", "kern"} and ks["kern"].launched and not ks["helper"].launched
    assert ks["kern"].line == 7 and ks["kern"].options == {"always_compile": "True"}
    assert ks["kern"].names["TPosition.VECIN"] == 1 and ks["kern"].names[".get_length"] == 1
    assert ks["helper"].keywords["exp"]["count"] == 1 and "helper" in ks["kern"].calls


def _add_forms():
    p = lambda n, d=None: {"name": n, "kind": "positional_or_keyword", "annotation": "", "default": d}  # noqa: E731
    count = {"params": [p("dst"), p("src0"), p("src1"), p("count"), p("is_set_mask", "True")], "returns": "None"}
    mask = {"params": [p("dst"), p("src0"), p("src1"), p("mask"), p("repeat_times"), p("repeat_params"),
                       p("is_set_mask", "True")], "returns": "None"}
    return count, mask


def test_check_overload_names_what_differs():
    import inspect
    count, mask = _add_forms()
    assert check_overload(inspect.signature(asc.add), count) == []
    assert check_overload(inspect.signature(asc.add), mask) == []      # pyasc's keywords are taken

    def positional_only_mask_form(dst, src0, src1, count, *rest, is_set_mask=True):
        pass
    sig = inspect.signature(positional_only_mask_form)
    assert check_overload(sig, count) == []
    problems = check_overload(sig, mask)
    assert "keywords not taken: mask, repeat_times, repeat_params" in problems
    assert any("positional argument 4 is 'count' here, 'mask' in pyasc" in p for p in problems)

    def ours(dst, src0, src1, count, is_set_mask=False):
        pass
    assert check_overload(inspect.signature(ours), count) == ["default is_set_mask=False here, True in pyasc"]
    entry = {"path": "asc.add", "kind": "function", "overloads": [count, mask]}
    assert status(entry)["status"] == "present"
    bad_default = {"params": count["params"][:4] + [{**count["params"][4], "default": "False"}], "returns": "None"}
    assert status({**entry, "overloads": [count, bad_default]})["status"] == "different"
    assert status({**entry, "path": "asc.no_such_op"})["status"] == "missing"


# -- the census on a small pyasc-style checkout ------------------------------------------------------

UNIT = '''
import asc
from asc.runtime import config
from asc.runtime.jit import MockTensor


def setup_function():
    config.set_platform(config.Backend.Model, check=False)


def test_ok(mock_launcher_run):
    @asc.jit
    def kernel_ok(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        t = asc.LocalTensor(dtype=asc.float32, pos=asc.TPosition.VECIN, addr=0, tile_size=64)
        asc.data_copy(t, g, count=64)
        asc.add(t, t, t, count=64)
        asc.data_copy(g, t, count=64)

    kernel_ok[1](MockTensor(asc.float32))
    assert mock_launcher_run.call_count == 1


def test_missing_name(mock_launcher_run):
    @asc.jit
    def kernel_bilinear():
        t = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=256)
        asc.bilinear_interpolation(t, t, t, t)

    kernel_bilinear[1]()


def test_missing_method(mock_launcher_run):
    @asc.jit
    def kernel_length():
        t = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=128)
        n = t.get_buffer_handle()

    kernel_length[1]()


def test_signature(mock_launcher_run):
    @asc.jit
    def kernel_mask():
        t = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=128)
        asc.add(t, t, t, mask=128, repeat_times=1, repeat_params=asc.BinaryRepeatParams())   # taken now
        asc.get_block_num(0)       # a call whose arguments asc_trace does not take

    kernel_mask[1]()


def test_refused(mock_launcher_run):
    @asc.jit
    def kernel_calc_que():
        q = asc.TQue(asc.TPosition.VECIN, 1.5)     # a depth that is not an int

    kernel_calc_que[1]()


def test_adv(mock_launcher_run):
    @asc.jit
    def kernel_softmax():
        t = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=128)
        asc.adv.softmax(t, t, t, t, None)

    kernel_softmax[1]()


def test_cube(mock_launcher_run):
    @asc.jit
    def kernel_l1():
        a = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.A1, addr=0, tile_size=256)
        asc.mmad(a, a, a, asc.MmadParams())

    kernel_l1[1]()


def test_twice(mock_launcher_run):
    @asc.jit
    def kernel_shadowed():
        pass

    kernel_shadowed[1]()


def test_twice(mock_launcher_run):
    @asc.jit
    def kernel_kept():
        t = asc.LocalTensor(dtype=asc.float32, pos=asc.TPosition.VECOUT, addr=0, tile_size=64)
        asc.duplicate(t, 1.0, count=64)

    kernel_kept[1]()


def test_filecheck(filecheck):
    @asc.jit
    def kernel_checked():
        t = asc.LocalTensor(dtype=asc.float32, pos=asc.TPosition.VECOUT, addr=0, tile_size=64)
        asc.duplicate(t, 2.0, count=64)

    filecheck(kernel_checked)()
'''

REFERENCE = '''
import numpy as np
import pytest

import asc
import asc.runtime.config as config
import asc.lib.runtime as rt


@asc.jit(kernel_type=config.KernelType.AIV_ONLY)
def double_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    zg.set_global_buffer(z + asc.get_block_idx() * n, n)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(t, xg, n)
    asc.muls(t, t, 2.0, n)
    asc.data_copy(zg, t, n)


BACKENDS = [
    config.Backend.NPU,
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [64, 128])
def test_double(backend, n):
    config.set_platform(backend)
    x = np.arange(4 * n, dtype=np.float32)
    z = np.zeros_like(x)
    double_kernel[4, rt.current_stream()](x, z, n)
    np.testing.assert_array_equal(z, 2 * x)
'''

TUTORIAL = '''
import numpy as np
import asc
import asc.runtime.config as config


@asc.jit
def fill(z: asc.GlobalAddress):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z, 64)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
    asc.duplicate(t, 3.0, 64)
    asc.data_copy(zg, t, 64)


if __name__ == "__main__":
    config.set_platform(config.Backend.Model)
    z = np.zeros(64, np.float32)
    fill[1](z)
    assert (z == 3).all()
'''


@pytest.fixture(scope="module")
def census(tmp_path_factory):
    from pyasc_census import run
    root = tmp_path_factory.mktemp("pyasc")
    for rel, text in (("python/test/unit/language/basic/test_small.py", UNIT),
                      ("python/test/kernels/test_double.py", REFERENCE),
                      ("python/tutorials/01_fill/fill.py", TUTORIAL)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return run(root, {"unit", "reference"}, None, 600.0, False)


def _kernel(result, name):
    return next(k for k in result["kernels"] if k["kernel"].endswith(name))


@pytest.mark.parametrize("kernel,category,name,issue", [
    ("kernel_bilinear", "missing-name", "bilinear_interpolation", 21),
    ("kernel_length", "missing-method", "LocalTensor.get_buffer_handle", 21),
    ("kernel_mask", "signature", "get_block_num", 21),
    ("kernel_calc_que", "refused", "TQue", 21),
    ("kernel_softmax", "refused", "adv.softmax", 22),      # asc.adv exists; softmax refuses these operands
    ("kernel_l1", "refused", "mmad", 23),       # A1 tensors exist now; mmad refuses A1 operands
])
def test_the_census_classifies_each_refusal(census, kernel, category, name, issue):
    k = _kernel(census, kernel)
    assert k["status"] == "refused"
    assert (k["error"]["category"], k["error"]["name"], k["error"]["issue"]) == (category, name, issue)
    assert k["error"]["where"].startswith("python/test/unit/language/basic/test_small.py:")


def test_the_census_counts_what_pyasc_runs(census):
    for name in ("kernel_ok", "kernel_kept", "kernel_checked"):
        assert _kernel(census, name)["status"] == "ok", name
    assert _kernel(census, "kernel_shadowed")["status"] == "not-run"     # its test is defined twice
    unit = census["summary"]["unit"]
    assert (unit["kernels"], unit["ok"], unit["refused"]) == (9, 3, 6)
    assert _kernel(census, "kernel_l1")["family"] == 23 and _kernel(census, "kernel_softmax")["family"] == 22
    assert census["names"]["TPosition"]["unit"]["kernels"] == 9
    assert census["names"]["add"]["keywords"]["mask"] == 1


def test_the_census_runs_reference_kernels_and_their_checks(census):
    ref = census["summary"]["reference"]
    assert (ref["kernels"], ref["ok"], ref["files_passing"]) == (2, 2, 2)
    outcomes = [t["outcome"] for t in census["tests"]["python/test/kernels/test_double.py"]]
    assert outcomes == ["passed", "passed"]                              # NPU-only BACKENDS ran on Model
    assert census["scripts"]["python/tutorials/01_fill/fill.py"]["outcome"] == "passed"


# -- the committed surface list --------------------------------------------------------------------

SURFACE = ROOT / "docs" / "pyasc-surface.json"


def _entry(record):
    """The introspection entry a surface record came from (what status() reads)."""
    return {"path": "asc." + record["name"], "kind": record["kind"], "overloads": record["overloads"],
            "members": [{"name": m} for m in record["members"]],
            "methods": [{"name": m["name"], "kind": m["kind"], "overloads": m["overloads"]}
                        for m in record["methods"]]}


def test_every_name_the_surface_list_calls_present_is_present():
    data = json.loads(SURFACE.read_text())
    present = [r for r in data["names"] if r["status"] == "present" and r["kind"] != "value"]
    assert len(present) >= 40
    for r in present:
        assert status(_entry(r)) == {"status": "present", "notes": [], "methods": {
            m["name"]: {"status": "present", "notes": []} for m in r["methods"]}}, r["name"]


def test_the_surface_markdown_is_the_rendering_of_its_json():
    data = json.loads(SURFACE.read_text())
    assert (ROOT / "docs" / "pyasc-surface.md").read_text() == markdown(data["names"], data["meta"])
    names = {r["name"] for r in data["names"]}
    assert {"add", "LocalTensor", "TQue", "adv.softmax", "adv.Matmul", "runtime.config.set_platform",
            "lib.runtime.current_stream", "mmad"} <= names
    by = {r["name"]: r for r in data["names"]}
    assert by["add"]["ascendc"] == "Add" and by["bitwise_and"]["ascendc"] == "And"
    assert (by["adv.softmax"]["issue"], by["adv.Matmul"]["issue"], by["mmad"]["issue"]) == (22, 23, 23)
