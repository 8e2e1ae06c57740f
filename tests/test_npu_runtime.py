"""The NPU launch without an NPU: which runtime library and launch path a toolkit gets, the calls made
through ctypes (against fake runtime libraries with the headers' signatures that record what they
receive: tests/fake_cann.py), the argument blob with and without the overflow-record pointer, and the
copy of CPU arrays and tensors to the device and back (with real torch on the CPU)."""
import ctypes

import numpy as np
import pytest

import asc_trace as asc
from fake_cann import ARCH, LIBS_81, LIBS_ACL, cann8, cann9
from asc_trace.graph.signature import Param
from asc_trace.toolchain.bisheng import find_toolchain
from asc_trace.runtime.args import as_storage
from asc_trace.runtime.npu import CannRuntime, arg_layout, copy_back, pack_args, stage_to_device
from asc_trace.runtime.npu_detect import launch_plan

P = lambda *kinds: tuple(Param(i, f"a{i}", k) for i, k in enumerate(kinds))  # noqa: E731
ELF = b"\x7fELF fake device binary"


def _toolchain(home):
    return find_toolchain({"ASCEND_HOME_PATH": str(home), "PATH": ""})


def _log(cann, name, ctype=ctypes.c_uint64):
    """A global the fake runtime library recorded (read from the very library the runtime loaded)."""
    return ctype.in_dll(ctypes.CDLL(str(cann.plan.library)), name).value


# -- argument blob -----------------------------------------------------------------------------------

def test_arg_packing_follows_the_bisheng_abi():
    layout, size = arg_layout(P("gm", "gm", "gm", "int"))
    assert [off for _, off, _ in layout] == [0, 8, 16, 24] and size == 32
    layout, size = arg_layout(P("float", "gm", "float"))
    assert [off for _, off, _ in layout] == [0, 8, 16] and size == 24
    layout, size = arg_layout(P("float", "float", "int"))
    assert [off for _, off, _ in layout] == [0, 4, 8] and size == 16
    blob = pack_args(P("gm", "float", "int"), [0x1122334455667788, 1.5, -2])
    assert len(blob) == 24
    assert int.from_bytes(blob[0:8], "little") == 0x1122334455667788
    assert np.frombuffer(blob[8:12], np.float32)[0] == 1.5
    assert int.from_bytes(blob[16:24], "little", signed=True) == -2


def test_arg_blob_with_and_without_the_overflow_pointer():
    # The vendor's host stub: `alignas(((alignof(void*) + 3) >> 2) << 2) void* __ascendc_overflow;` last.
    params = P("gm", "gm", "gm", "int")
    plain = pack_args(params, [1, 2, 3, 256])
    with_ptr = pack_args(params, [1, 2, 3, 256], overflow=0xABCDEF0123)
    assert len(plain) == 32 and len(with_ptr) == 40
    assert with_ptr[:32] == plain and int.from_bytes(with_ptr[32:], "little") == 0xABCDEF0123
    # after a trailing 4-byte float the pointer moves to the next 8-byte boundary
    assert len(pack_args(P("float"), [2.0])) == 8
    blob = pack_args(P("float"), [2.0], overflow=7)
    assert len(blob) == 16 and blob[4:8] == bytes(4) and int.from_bytes(blob[8:], "little") == 7


# -- which library, which path -------------------------------------------------------------------------

def test_launch_path_of_cann_8_1_is_rt_with_the_reason(tmp_path):
    lib64 = cann8(tmp_path) / "lib64"
    plan = launch_plan(lib64)
    assert plan.kind == "rt" and plan.library.name == "libruntime.so"
    assert plan.acl_library.name == "libascendcl.so"          # 8.1.RC1 has no libacl_rt.so
    assert "libascendcl.so has no aclrtBinaryLoadFromData" in plan.reason and "deprecated" in plan.reason


def test_launch_path_prefers_libacl_rt_then_libascendcl(tmp_path):
    plan = launch_plan(cann9(tmp_path / "9") / "lib64")
    assert (plan.kind, plan.library.name) == ("acl", "libacl_rt.so")
    # a toolkit whose ACL functions are only in the compatibility library still gets the ACL path
    only_ascendcl = {k: v for k, v in LIBS_ACL.items() if k != "libacl_rt.so"}
    plan = launch_plan(cann8(tmp_path / "85", release="8.5.0", libs=only_ascendcl) / "lib64")
    assert (plan.kind, plan.library.name) == ("acl", "libascendcl.so")
    # forcing rt on a toolkit that has both
    plan = launch_plan(cann9(tmp_path / "9r") / "lib64", force="rt")
    assert (plan.kind, plan.library.name) == ("rt", "libruntime.so") and "ASC_TRACE_NPU_LAUNCH=rt" in plan.reason


def test_launch_path_errors(tmp_path):
    lib64 = cann8(tmp_path / "81") / "lib64"
    with pytest.raises(asc.ToolchainError, match=r"aclrtBinaryLoadFromData is not in .*libascendcl\.so"):
        launch_plan(lib64, force="acl")
    with pytest.raises(asc.ToolchainError, match="expected 'acl' or 'rt'"):
        launch_plan(lib64, force="fast")
    bare = cann8(tmp_path / "bare", libs={"libascendcl.so": LIBS_81["libascendcl.so"]}) / "lib64"
    with pytest.raises(asc.ToolchainError, match="lacks aclrtBinaryLoadFromData, and there is no libruntime.so"):
        launch_plan(bare)
    junk = tmp_path / "junk" / "lib64"        # (a fresh path: the loader would reuse a library already open)
    junk.mkdir(parents=True)
    (junk / "libacl_rt.so").write_bytes(b"not a library")
    with pytest.raises(asc.ToolchainError, match=r"cannot load the CANN runtime library .*libacl_rt\.so"):
        launch_plan(junk)


@pytest.mark.parametrize("missing", ["rtDevBinaryRegister", "rtFunctionRegister", "rtKernelLaunch"])
def test_a_missing_rt_function_is_a_toolchain_error(tmp_path, missing):
    home = cann8(tmp_path, libs={**LIBS_81, "libruntime.so": ("ACL", missing)})
    with pytest.raises(asc.ToolchainError, match=rf"{missing} is not in .*/lib64/libruntime\.so"):
        CannRuntime(_toolchain(home))


def test_a_missing_acl_function_under_a_forced_acl_path(tmp_path):
    libs = {**LIBS_ACL, "libacl_rt.so": ("RT", "aclrtLaunchKernelWithHostArgs")}
    home = cann9(tmp_path, libs=libs)
    # unforced, the incomplete libacl_rt.so is passed over for the rt path...
    assert CannRuntime(_toolchain(home)).plan.kind == "rt"
    # ...forced, the error names the function and the library
    with pytest.raises(asc.ToolchainError, match=r"aclrtLaunchKernelWithHostArgs is not in .*libacl_rt\.so"):
        CannRuntime(_toolchain(home), force="acl")


# -- the calls ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("overflow", [None, 0x7000_0000_0000])
def test_acl_launch_sequence(tmp_path, overflow):
    cann = CannRuntime(_toolchain(cann9(tmp_path)))
    assert cann.use_acl and cann.plan.library.name == "libacl_rt.so"
    func = cann.function(ELF, "vadd_kernel", 0)
    assert cann.function(ELF, "vadd_kernel", 0) is func                  # registered once per (binary, device)
    assert _log(cann, "fake_loads", ctypes.c_int) == 1
    assert _log(cann, "fake_length") == len(ELF)
    assert ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(ctypes.CDLL(str(cann.plan.library)),
                                                                    "fake_elf_head")), 8) == ELF[:8]
    assert _log(cann, "fake_opt_type", ctypes.c_int32) == 2               # ACL_RT_BINARY_LOAD_OPT_MAGIC
    assert _log(cann, "fake_magic", ctypes.c_uint32) == 0x41415246        # ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE
    assert _log(cann, "fake_opt_num", ctypes.c_size_t) == 1
    blob = pack_args(P("gm", "gm", "gm", "int"), [0x1000, 0x2000, 0x3000, 2048], overflow)
    cann.launch(func, 8, 0xBEEF, blob)
    lib = ctypes.CDLL(str(cann.plan.library))
    assert _log(cann, "fake_blocks", ctypes.c_uint32) == 8
    assert _log(cann, "fake_stream", ctypes.c_void_p) == 0xBEEF
    assert _log(cann, "fake_blob_size", ctypes.c_size_t) == len(blob) == (40 if overflow else 32)
    assert ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(lib, "fake_blob")), len(blob)) == blob
    assert _log(cann, "fake_cfg", ctypes.c_void_p) is None and _log(cann, "fake_ph", ctypes.c_void_p) is None
    assert _log(cann, "fake_ph_num", ctypes.c_size_t) == 0
    name = ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(lib, "fake_name")))
    assert name == b"vadd_kernel"


def test_rt_launch_sequence(tmp_path):
    cann = CannRuntime(_toolchain(cann8(tmp_path)))
    assert not cann.use_acl
    func = cann.function(ELF, "vadd_kernel", 0)
    lib = ctypes.CDLL(str(cann.plan.library))
    assert _log(cann, "fake_magic", ctypes.c_uint32) == 0x41415246        # RT_DEV_BINARY_MAGIC_ELF_AIVEC
    assert _log(cann, "fake_bin_version", ctypes.c_uint32) == 0 and _log(cann, "fake_length") == len(ELF)
    assert ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(lib, "fake_stub_name"))) == b"vadd_kernel_1"
    assert ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(lib, "fake_name"))) == b"vadd_kernel"
    blob = pack_args(P("gm", "float", "int"), [0x1000, 0.5, 7])
    cann.launch(func, 40, 0xCAFE, blob)            # the fake refuses a stub other than the registered one
    assert _log(cann, "fake_launches", ctypes.c_int) == 1 and _log(cann, "fake_blocks", ctypes.c_uint32) == 40
    assert _log(cann, "fake_stream", ctypes.c_void_p) == 0xCAFE
    assert ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(lib, "fake_blob")), len(blob)) == blob
    # another binary gets another stub and stub name, so one kernel name from two binaries cannot collide
    cann.function(ELF + b"2", "vadd_kernel", 0)
    assert ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(lib, "fake_stub_name"))) == b"vadd_kernel_2"


@pytest.mark.parametrize("layout", [cann8, cann9])
def test_a_failed_launch_reports_the_runtime_error(tmp_path, layout):
    cann = CannRuntime(_toolchain(layout(tmp_path)))
    func = cann.function(ELF, "k", 0)
    ctypes.c_int.in_dll(ctypes.CDLL(str(cann.plan.library)), "fake_fail_rc").value = 507015
    what = "aclrtLaunchKernelWithHostArgs" if cann.use_acl else "rtKernelLaunch"
    with pytest.raises(asc.LaunchError, match=rf"{what} failed with error 507015: EZ9999: fake kernel exception"):
        cann.launch(func, 1, 0, bytes(8))


# -- host data to the device and back --------------------------------------------------------------------

def test_cpu_bfloat16_tensor_goes_to_the_device_and_back():
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.5, -2.0, 3.25, 0.0], dtype=torch.bfloat16)
    with pytest.raises(TypeError):     # what the copy-back used to do
        x.numpy()
    host, dt = as_storage(x, "x", None)
    assert dt is asc.bfloat16
    staged = stage_to_device(host, "cpu")            # "cpu" stands in for "npu:0": a separate copy either way
    assert staged.dtype == torch.uint8 and staged.numel() == 8
    staged.copy_((x * 2).view(torch.uint8))          # what the kernel would have written
    assert torch.equal(x, torch.tensor([1.5, -2.0, 3.25, 0.0], dtype=torch.bfloat16))
    copy_back(host, staged)
    assert torch.equal(x, torch.tensor([3.0, -4.0, 6.5, 0.0], dtype=torch.bfloat16))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, np.uint16, np.int64])
def test_numpy_arrays_go_to_the_device_and_back(dtype):
    torch = pytest.importorskip("torch")
    a = np.arange(6, dtype=dtype)
    host, _ = as_storage(a, "a", None)
    staged = stage_to_device(host, "cpu")
    staged.copy_(torch.from_numpy((a[::-1] + 1).copy().view(np.uint8)))
    copy_back(host, staged)
    np.testing.assert_array_equal(a, np.arange(6, dtype=dtype)[::-1] + 1)
