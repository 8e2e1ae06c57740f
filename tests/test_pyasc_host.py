"""pyasc's host modules and jit options: a pyasc host script runs with only its imports changed
(`asc_trace.runtime.config`, `asc_trace.lib.runtime`, `kernel_type=KernelType...`, `insert_sync=`).
The scripts here are our own, written the way pyasc's tutorials write theirs."""
from __future__ import annotations

import runpy
import textwrap

import numpy as np
import pytest

import asc_trace as asc
import asc_trace.lib.runtime as rt
import asc_trace.runtime.config as config
from asc_trace.runtime import get_runtime


@pytest.fixture(autouse=True)
def _forget_set_platform():
    yield
    asc.config.set_process_target(None, None)


HOST_SCRIPT = '''
import numpy as np
import asc_trace as asc
import asc_trace.runtime.config as config
import asc_trace.lib.runtime as rt

TILE = 256


@asc.jit(kernel_type=config.KernelType.AIV_ONLY, insert_sync=True)
def scaled_add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block: int):
    off = asc.get_block_idx() * block
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + off, block)
    yg.set_global_buffer(y + off, block)
    zg.set_global_buffer(z + off, block)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, TILE * 4, TILE)
    for i in range(block // TILE):
        asc.data_copy(a, xg[i * TILE:], TILE)
        asc.data_copy(b, yg[i * TILE:], TILE)
        asc.muls(b, b, 3.0, TILE)
        asc.add(a, a, b, TILE)
        asc.data_copy(zg[i * TILE:], a, TILE)


def main(backend, platform=None):
    config.set_platform(backend, platform)
    rng = np.random.default_rng(7)
    x = rng.random(4 * 1024, dtype=np.float32)
    y = rng.random(4 * 1024, dtype=np.float32)
    z = np.zeros_like(x)
    scaled_add[4, rt.current_stream()](x, y, z, 1024)
    rt.synchronize()
    np.testing.assert_array_equal(z, x + y * np.float32(3.0))
    return z


if __name__ == "__main__":
    RESULT = main(config.Backend.Model)
'''


def _script(tmp_path):
    path = tmp_path / "pyasc_style_host.py"
    path.write_text(textwrap.dedent(HOST_SCRIPT))
    return path


def test_a_pyasc_style_host_script_runs_on_the_simulator(tmp_path, monkeypatch):
    monkeypatch.delenv("ASC_TRACE_BACKEND", raising=False)
    ns = runpy.run_path(str(_script(tmp_path)), run_name="__main__")
    assert ns["RESULT"].shape == (4096,)
    assert asc.config.backend_from_env() == "sim"
    assert get_runtime(asc.config.backend_from_env()).name == "sim"
    assert asc.runtime.config is config and asc.lib.runtime is rt     # reached through the package, as in pyasc


@pytest.mark.parametrize("backend", ["Model", config.Backend.Model])
def test_set_platform_model_selects_the_simulator_and_pyascs_default_soc(backend, monkeypatch):
    monkeypatch.delenv("ASC_TRACE_BACKEND", raising=False)
    config.set_platform(backend, check=False)
    assert asc.config.backend_from_env() == "sim"
    assert asc.config.process_platform() == "Ascend910B1"        # pyasc's Model default


def test_set_platform_soc_version_chooses_the_timing_preset(tmp_path, monkeypatch):
    ns = runpy.run_path(str(_script(tmp_path)))
    ns["main"](config.Backend.Model, config.Platform.Ascend910B4)
    x = np.ones(4 * 1024, np.float32)
    prof = asc.profile(ns["scaled_add"], x, x.copy(), np.zeros_like(x), 1024, core_num=4)
    assert prof.platform.name == "Ascend910B4"
    config.set_platform("Model", "Ascend910B3")                   # the value string works too
    prof = asc.profile(ns["scaled_add"], x, x.copy(), np.zeros_like(x), 1024, core_num=4)
    assert prof.platform.name == "Ascend910B3"
    # a kernel's own platform option wins over set_platform
    k = asc.jit(ns["scaled_add"], platform="Ascend910B2")
    assert asc.profile(k, x, x.copy(), np.zeros_like(x), 1024, core_num=4).platform.name == "Ascend910B2"


def test_the_environment_wins_over_set_platform(monkeypatch):
    monkeypatch.setenv("ASC_TRACE_BACKEND", "eager")
    config.set_platform(config.Backend.Model)
    assert asc.config.backend_from_env() == "eager"


@pytest.mark.parametrize("args,needle", [
    (("CAModel",), "Backend.Model, Backend.NPU"),
    ((config.Backend.Model, "Ascend310P"), "not one of pyasc's Platform values"),
    ((config.Backend.Model, config.Platform.Ascend910_9392), "no preset for Platform.Ascend910_9392"),
    ((config.Backend.Model, None, -1), "device_id must be a non-negative int"),
])
def test_set_platform_refuses_what_it_cannot_honour(args, needle):
    with pytest.raises(asc.OptionError) as ei:
        config.set_platform(*args)
    assert needle in str(ei.value) and "test_pyasc_host.py" in str(ei.value)
    assert asc.config.process_platform() is None                   # nothing half-set


def test_set_platform_npu_without_an_npu(monkeypatch):
    monkeypatch.setenv("ASC_TRACE_DISABLE_NPU", "1")
    from asc_trace.runtime.npu_detect import npu_usable
    npu_usable.cache_clear()
    try:
        with pytest.raises(asc.ToolchainError, match="no usable NPU"):
            config.set_platform(config.Backend.NPU)
        monkeypatch.delenv("ASC_TRACE_BACKEND", raising=False)
        config.set_platform(config.Backend.NPU, check=False)       # pyasc's check=False: chosen, fails at launch
        assert asc.config.backend_from_env() == "npu"
    finally:
        npu_usable.cache_clear()


def _flag_free(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 512)
    zg.set_global_buffer(z, 512)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    for i in range(2):
        asc.data_copy(t, xg[i * 256:], 256)
        asc.adds(t, t, 1.0, 256)
        asc.data_copy(zg[i * 256:], t, 256)


def test_kernel_type_takes_pyascs_enum(tmp_path):
    k = asc.jit(_flag_free, kernel_type=config.KernelType.AIV_ONLY)
    assert k.options["kernel_type"] == "KERNEL_TYPE_AIV_ONLY"
    x = np.arange(512, dtype=np.float32)
    z = np.zeros_like(x)
    k[1](x, z)
    np.testing.assert_array_equal(z, x + 1)
    # the NPU build takes the normalised value (against a fake CANN toolkit, as tests/test_npu.py does)
    from fake_cann import cann8
    from asc_trace.toolchain.bisheng import compile_commands, find_toolchain
    tc = find_toolchain({"ASCEND_HOME_PATH": str(cann8(tmp_path)), "PATH": ""})
    cmd = compile_commands(tc, tmp_path / "k.cce", tmp_path / "k.o", tmp_path / "k.elf", k.options)[0]
    assert "--cce-aicore-arch=dav-c220-vec" in cmd
    assert asc.jit(_flag_free, kernel_type=config.KernelType.MIX_AIC_1_2).options["kernel_type"] == \
        "KERNEL_TYPE_MIX_AIC_1_2"     # a mixed kernel's type (tests/test_mix.py)
    for kt in (config.KernelType.MIX_AIV_1_0, config.KernelType.MIX_AIC_1_1):
        with pytest.raises(asc.OptionError) as ei:
            asc.jit(_flag_free, kernel_type=kt)
        assert f"KernelType.{kt.name}" in str(ei.value) and "mixed" in str(ei.value)
        assert "test_pyasc_host.py" in str(ei.value)


def _syncs(ck) -> int:
    return sum(1 for line in str(ck.graph).splitlines() if "= set_flag" in line or "= pipe_barrier" in line)


def test_insert_sync_means_the_scheduler_synchronises():
    x = np.arange(512, dtype=np.float32)
    on = asc.compile(asc.jit(_flag_free, insert_sync=True, auto_sync=False), (x, np.zeros_like(x)))
    assert on.options["auto_sync"] is True and _syncs(on) > 0
    z = np.zeros_like(x)
    on(x, z, core_num=1)
    np.testing.assert_array_equal(z, x + 1)
    for insert in (None, False):                     # pyasc: None/False leave synchronisation to auto_sync
        off = asc.compile(asc.jit(_flag_free, insert_sync=insert, auto_sync=False), (x, z))
        assert off.options["auto_sync"] is False and _syncs(off) == 0
        with pytest.raises(asc.RaceError):
            off(x, np.zeros_like(x), core_num=1)
    assert asc.jit(_flag_free, insert_sync=False).options["auto_sync"] is True
    with pytest.raises(asc.OptionError, match="insert_sync='yes'"):
        asc.jit(_flag_free, insert_sync="yes")


@pytest.mark.parametrize("option", ["verify_sync", "debug", "bisheng_options"])
def test_pyascs_other_options_say_what_to_use_instead(option):
    with pytest.raises(asc.OptionError) as ei:
        asc.jit(_flag_free, **{option: True})
    assert f"pyasc's asc.jit option {option!r}" in str(ei.value) and "hint:" in str(ei.value)


def test_lib_runtime_streams_and_missing_device_runtime():
    s = rt.current_stream()
    assert isinstance(s, rt.HostStream) and rt.support.CoreType.VectorCore.value == "VectorCore"
    rt.synchronize(s)
    with pytest.raises(asc.NotProvidedError) as ei:
        rt.malloc(16)
    assert "low-level device runtime" in str(ei.value) and "test_pyasc_host.py" in str(ei.value)
    assert not hasattr(rt, "launch_kernel") and isinstance(ei.value, AttributeError)
    with pytest.raises(asc.NotProvidedError, match="no timeout"):
        rt.synchronize(s, timeout=10)
