"""An outsider's (x36) flag-free kernels against NumPy on every backend (#18), and the misuse they tried
(#25). The kernels are in tests/outsider_x36_kernels.py; each case's written arguments are compared
byte for byte with its NumPy reference."""
from __future__ import annotations

import numpy as np
import pytest

from helpers import every_backend
from outsider_x36_kernels import CASES, run_case


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("name", sorted(CASES))
def test_flag_free_kernel_matches_numpy(name: str, backend: str) -> None:
    for index, (got, want) in run_case(name, backend).items():
        assert np.array_equal(got, want), f"{name} on {backend}: argument {index} differs from NumPy"


@pytest.mark.parametrize("backend", every_backend())
@pytest.mark.parametrize("name", sorted(__import__("outsider_x36_state").KERNELS))
def test_outside_state_changed_by_a_kernel_is_refused_at_its_line(name: str, backend: str) -> None:
    """A helper's mutable default, a class attribute, a function attribute, a bound method's object, a
    partial's argument, a lambda default in a dict, an array.array: the same TraceError at the line on every
    backend, where before eager and sim gave different bytes (sim [1, 2, 3], eager [2, 4, 6] over 3 launches)."""
    import importlib
    import sys

    import asc_trace as asc
    from helpers import assert_points_at
    sys.modules.pop("outsider_x36_state", None)      # fresh state: the module's objects as written
    state = importlib.import_module("outsider_x36_state")
    kernel, marker = state.KERNELS[name]
    x, z = np.ones(64, np.float32), np.zeros(64, np.float32)
    args = (x, z, 3) if name == "default_in_loop" else (x, z)
    with pytest.raises(asc.TraceError) as err:
        asc.jit(kernel, backend=backend)[1](*args)
    assert_points_at(err.value, f"x36: {marker}", state.__file__)


# ---- #25: misuse of the host API and the command line -------------------------------------------------

def _scale_profile():
    import asc_trace as asc
    from outsider_x36_kernels import CASES
    case = CASES["step_three"]
    args, cores = case.make(0)
    return asc.profile(case.kernel, *args, core_num=cores)


@pytest.mark.parametrize("path", ["/tmp/x36\0trace.json", "/tmp/" + "a" * 300 + ".json"])
def test_save_chrome_trace_to_an_impossible_name_is_a_path_error(path: str) -> None:
    """A NUL byte (was a raw ValueError from pathlib) or a name longer than the file system takes (a raw
    OSError ENAMETOOLONG) is a PathError like the other unwritable paths."""
    import asc_trace as asc
    prof = _scale_profile()
    with pytest.raises(asc.PathError, match="save_chrome_trace"):
        prof.save_chrome_trace(path)  # x36: nul path


def test_cli_chrome_trace_name_too_long_is_a_command_line_mistake(tmp_path) -> None:
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run([sys.executable, "-m", "asc_trace", "inspect", os.path.join(root, "examples", "vadd.py") +
                          "::vadd_kernel", "--chrome-trace", str(tmp_path / ("a" * 300 + ".json"))],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert "--chrome-trace" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_autotuned_kernel_launched_with_a_core_count_is_a_launch_error() -> None:
    """`tuned[8](...)`, the plain kernel's launch form, was a raw TypeError ('Autotuner' object is not
    subscriptable); the configs choose the core count, and the error says to call it directly."""
    import asc_trace as asc
    from helpers import assert_points_at
    from outsider_x36_kernels import runtime_step
    tuned = asc.autotune(configs=[asc.Config(core_num=1)])(runtime_step)
    with pytest.raises(asc.LaunchError, match="call it directly") as err:
        tuned[8]  # x36: tuned subscript
    assert_points_at(err.value, "x36: tuned subscript")


@pytest.mark.parametrize("backend", every_backend())
def test_vector_kernel_with_an_unused_co1_tensor(backend: str) -> None:
    """sim, eager and cpp run it; cpu_debug, which has no cube, refuses it as a cube kernel (NotProvidedError,
    as for every cube kernel) instead of a UBOverflowError at a negative UB address."""
    import asc_trace as asc
    from outsider_x36_kernels import vector_with_co1_tensor
    x, z = np.arange(128, dtype=np.float32), np.zeros(128, np.float32)    # one AI core: two vector cores
    k = asc.jit(vector_with_co1_tensor, backend=backend)
    if backend == "cpu_debug":
        with pytest.raises(asc.NotProvidedError, match="cube"):
            k[1](x, z)
        return
    k[1](x, z)
    assert np.array_equal(z, x + 1)


@pytest.mark.parametrize("backend", every_backend())
def test_raw_local_tensor_at_runtime_address_over_tque_bytes(backend: str) -> None:
    """x36 finding (#18): a raw LocalTensor at a runtime address may be the bytes of a TQue buffer in use; the
    scheduler orders it against every owned buffer it may overlap (graph/raw_alias.py), so the flag-free kernel
    gives duplicate's 5 plus 1 instead of a RaceError."""
    import asc_trace as asc
    from outsider_x36_kernels import raw_over_tque
    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    asc.jit(raw_over_tque, backend=backend)[1](x, z, 0)
    assert np.array_equal(z, np.full(64, 6, np.float32))


def test_cache_entry_whose_meta_json_is_a_fifo_is_incomplete_not_a_hang(tmp_path) -> None:
    """A FIFO named meta.json (mkfifo in the cache): opening it for reading waits for a writer, so every cpp
    launch of that kernel and `asc-trace cache list` hung for ever; now the entry is incomplete (rebuilt)."""
    import os
    import threading

    from asc_trace.toolchain.cache import entries
    key = "ab" * 32
    d = tmp_path / key[:2] / key
    d.mkdir(parents=True)
    (d / "kernel.so").write_bytes(b"x")
    fifo = d / "meta.json"
    os.mkfifo(fifo)
    got: list = []
    reader = threading.Thread(target=lambda: got.append(entries(tmp_path, verify=True)), daemon=True)
    reader.start()
    reader.join(timeout=20)
    if reader.is_alive():       # let the blocked open() return, so the thread ends, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
        pytest.fail("listing the cache waited on a FIFO named meta.json")
    (entry,) = got[0]
    assert entry.complete is False
