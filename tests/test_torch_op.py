"""asc.torch_op: kernels as PyTorch custom ops, called eagerly, through torch.ops, under
torch.compile(fullgraph=True) and on fake / meta tensors, with autograd, and the errors.
Skipped as a whole without torch (an optional dependency)."""
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import asc_trace as asc  # noqa: E402
from asc_trace.runtime.sim import SimRuntime  # noqa: E402
from asc_trace.torch_library.launch import OpCall, backend_for, op_running  # noqa: E402
from helpers import assert_points_at  # noqa: E402

TILE = 64
# torch's own opcheck / compile internals warn about torch.jit; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")


# -- kernels written for these tests ------------------------------------------------------------------

@asc.jit
def scale_tiled_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, alpha: float, tile: asc.ConstExpr[int]):
    """z = alpha * x, n elements per core, `tile` at a time, no flags (the scheduler adds them)."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    zg.set_global_buffer(z + asc.get_block_idx() * n, n)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    for i in range(n // tile):
        asc.data_copy(t, xg[i * tile:], tile)
        asc.muls(t, t, alpha, tile)
        asc.data_copy(zg[i * tile:], t, tile)


@asc.jit
def scale_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, alpha: float):
    scale_tiled_kernel(x, z, n, alpha, TILE)     # a kernel calling a kernel: inlined by tracing


@asc.jit
def add_sub_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, s: asc.GlobalAddress, d: asc.GlobalAddress,
                   n: asc.ConstExpr[int]):
    """Two outputs on one core: s = x + y, d = x - y (n a compile-time constant)."""
    g = [asc.GlobalTensor() for _ in range(4)]
    for gt, addr in zip(g, (x, y, s, d)):
        gt.set_global_buffer(addr, n)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, n * x.dtype.sizeof(), n)
    asc.data_copy(a, g[0], n)
    asc.data_copy(b, g[1], n)
    asc.add(a, a, b, n)              # a = x + y
    asc.data_copy(g[2], a, n)
    asc.muls(b, b, 2.0, n)
    asc.sub(a, a, b, n)              # x + y - 2y = x - y
    asc.data_copy(g[3], a, n)


@asc.jit
def row_max_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, rows_per_core: int, cols: asc.ConstExpr[int]):
    """The maximum of each row into out[row * 8] (8 float32 = the 32 bytes one copy moves)."""
    r0 = asc.get_block_idx() * rows_per_core
    xg, og = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + r0 * cols, rows_per_core * cols)
    og.set_global_buffer(out + r0 * 8, rows_per_core * 8)
    row = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, cols)
    tmp = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, cols * 4, cols)
    acc = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, cols * 8, 8)
    for r in range(rows_per_core):
        asc.data_copy(row, xg[r * cols:], cols)
        asc.reduce_max(acc, row, tmp, cols)
        asc.data_copy(og[r * 8:], acc, 8)


@asc.jit
def relu_inplace_kernel(x: asc.GlobalAddress, n: int):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x + asc.get_block_idx() * n, n)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    for i in range(n // TILE):
        asc.data_copy(t, xg[i * TILE:], TILE)
        asc.relu(t, t, TILE)
        asc.data_copy(xg[i * TILE:], t, TILE)


# -- the ops ------------------------------------------------------------------------------------------

@asc.torch_op("asc_test::scale", mutates_args=())
def scale(x: torch.Tensor, alpha: float) -> torch.Tensor:
    z = torch.empty_like(x)
    scale_kernel[4](x, z, x.numel() // 4, alpha)
    return z


@asc.torch_op("asc_test::add_sub", mutates_args=())
def add_sub(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    s, d = torch.empty_like(x), torch.empty_like(x)
    add_sub_kernel[1](x, y, s, d, x.numel())
    return s, d


@asc.torch_op("asc_test::row_max", mutates_args=())
def row_max(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = x.new_empty(rows, 8)
    row_max_kernel[2](x, out, rows // 2, cols)
    return out[:, 0].clone()


@asc.torch_op("asc_test::relu_", mutates_args=("x",))
def relu_(x: torch.Tensor) -> None:
    relu_inplace_kernel[2](x, x.numel() // 2)


def _scale_backward(ctx, grad):
    return scale(grad.contiguous(), ctx.alpha), None


def _scale_setup(ctx, inputs, output):
    ctx.alpha = inputs[1]


scale.register_autograd(_scale_backward, setup_context=_scale_setup)


def _randn(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


@pytest.fixture
def sim_runs(monkeypatch):
    """How many times the simulator really ran a kernel."""
    runs = []
    real = SimRuntime.launch

    def counting(self, art, job):
        runs.append(job.name)
        return real(self, art, job)
    monkeypatch.setattr(SimRuntime, "launch", counting)
    return runs


# -- eager calls ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_eager_call_and_torch_ops_agree_with_torch(dtype):
    x = _randn(4 * 256, dtype=dtype)
    want = x * torch.tensor(1.5, dtype=dtype)
    assert torch.equal(scale(x, 1.5), want)
    assert torch.equal(torch.ops.asc_test.scale(x, 1.5), want)
    assert torch.equal(torch.ops.asc_test.scale.default(x, 1.5), want)


def test_two_outputs_and_a_constexpr_from_the_shape():
    x, y = _randn(128, seed=1), _randn(128, seed=2)
    s, d = torch.ops.asc_test.add_sub(x, y)
    assert torch.equal(s, x + y)
    torch.testing.assert_close(d, x - y, rtol=0, atol=1e-6)   # (x + y) - 2y rounds once more than x - y


def test_an_output_of_another_shape():
    x = _randn(6, 64, seed=3)
    assert torch.equal(row_max(x), x.max(dim=1).values)


def test_in_place_op_declared_in_mutates_args():
    x = _randn(2 * 128, seed=4)
    want = torch.relu(x)
    assert relu_(x) is None
    assert torch.equal(x, want)


# -- fake tensors: shapes without running anything -------------------------------------------------------

def test_meta_tensors_give_shapes_and_run_no_kernel(sim_runs):
    s, d = add_sub(torch.empty(128, device="meta"), torch.empty(128, device="meta"))
    assert s.device.type == "meta" and s.shape == (128,) and d.shape == (128,)
    out = row_max(torch.empty(6, 64, device="meta"))
    assert out.shape == (6,) and out.device.type == "meta"
    assert sim_runs == []


def test_fake_tensor_mode_gives_shapes_and_dtypes(sim_runs):
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.empty(10, 64, dtype=torch.float32)
        out = torch.ops.asc_test.row_max(x)
        half = torch.ops.asc_test.scale(torch.empty(4 * 64, dtype=torch.float16), 2.0)
    assert out.shape == (10,) and out.dtype == torch.float32
    assert half.shape == (256,) and half.dtype == torch.float16
    assert sim_runs == []


def test_fake_run_still_checks_the_launch_arguments():
    @asc.torch_op("asc_test::bad_args", mutates_args=())
    def bad_args(x: torch.Tensor) -> torch.Tensor:
        z = torch.empty_like(x)
        scale_kernel[4](x, z, x.numel() // 4)  # MARK-missing-alpha
        return z

    with pytest.raises(asc.LaunchError, match="missing: alpha") as ei:
        bad_args(torch.empty(256, device="meta"))
    assert_points_at(ei.value, "MARK-missing-alpha")
    with pytest.raises(asc.LaunchError, match="dtype torch.float64"):
        scale(torch.empty(256, dtype=torch.float64, device="meta"), 1.0)


# -- torch.compile -------------------------------------------------------------------------------------------

def test_compile_fullgraph_runs_each_kernel_once_per_call(sim_runs):
    torch._dynamo.reset()

    def model(x, y):
        s, d = add_sub(x, y)
        return scale(s * d, 0.5) + 1.0

    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    x, y = _randn(256, seed=5), _randn(256, seed=6)
    got = compiled(x, y)
    torch.testing.assert_close(got, model(x, y), rtol=0, atol=0)
    # one real launch per kernel per call (the compiled call and the eager reference): tracing ran none
    assert sim_runs.count("add_sub_kernel") == 2 and sim_runs.count("scale_kernel") == 2


def test_compile_with_dynamic_shapes():
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: scale(x, 3.0) - x, fullgraph=True, backend="aot_eager", dynamic=True)
    for n in (4 * 64, 4 * 192, 4 * 320):
        x = _randn(n, seed=n)
        assert torch.equal(compiled(x), x * 3.0 - x)
    out = torch.compile(lambda x: row_max(x) * 2, fullgraph=True, backend="aot_eager", dynamic=True)
    for rows in (4, 8):
        x = _randn(rows, 64, seed=rows)
        assert torch.equal(out(x), x.max(dim=1).values * 2)


def test_compile_an_in_place_op():
    torch._dynamo.reset()

    def f(x):
        y = x * 2
        relu_(y)
        return y + 1

    x = _randn(256, seed=7)
    assert torch.equal(torch.compile(f, fullgraph=True, backend="aot_eager")(x), torch.relu(x * 2) + 1)


def test_compile_with_inductor():
    torch._dynamo.reset()
    x, y = _randn(128, seed=8), _randn(128, seed=9)
    # in-process compilation: no pool of compile workers started on a 2-core machine for one opaque op
    with torch._inductor.config.patch(compile_threads=1):
        s, d = torch.compile(lambda a, b: add_sub(a, b), fullgraph=True)(x, y)
    assert torch.equal(s, x + y)


def test_a_compiled_kernel_inside_an_op():
    torch._dynamo.reset()
    ck = asc.compile(scale_kernel, (torch.zeros(256), torch.zeros(256), 64, 1.0), core_num=4)

    @asc.torch_op("asc_test::scale_ck", mutates_args=())
    def scale_ck(x: torch.Tensor) -> torch.Tensor:
        z = torch.empty_like(x)
        ck(x, z, x.numel() // 4, 3.0)
        return z

    x = _randn(256, seed=19)
    assert torch.equal(torch.compile(lambda t: scale_ck(t) + 1, fullgraph=True, backend="aot_eager")(x), x * 3 + 1)
    assert scale_ck(torch.empty(256, device="meta")).shape == (256,)


def test_an_autotuned_kernel_inside_an_op(sim_runs):
    torch._dynamo.reset()
    configs = [asc.Config(core_num=2, tile=64), asc.Config(core_num=2, tile=128)]
    tuned = asc.autotune(scale_tiled_kernel, configs=configs, key=["n"], cache_results=False)

    @asc.torch_op("asc_test::scale_tuned", mutates_args=())
    def scale_tuned(x: torch.Tensor, alpha: float) -> torch.Tensor:
        z = torch.empty_like(x)
        tuned(x, z, x.numel() // 2, alpha)
        return z

    assert scale_tuned(torch.empty(512, device="meta"), 2.0).shape == (512,)
    assert sim_runs == [] and tuned.cache == {}                        # nothing timed or run on fake data
    x = _randn(512, seed=23)
    assert torch.equal(torch.compile(lambda t: scale_tuned(t, 0.5) * 2, fullgraph=True, backend="aot_eager")(x),
                       x * 0.5 * 2)
    assert tuned.best_config is not None and sim_runs == ["scale_tiled_kernel"]


def test_torch_export_keeps_the_op():
    class Model(torch.nn.Module):
        def forward(self, x):
            return scale(x, 2.0) + 1

    ep = torch.export.export(Model(), (_randn(256, seed=20),))
    assert "torch.ops.asc_test.scale.default" in ep.graph_module.code
    x = _randn(256, seed=21)
    assert torch.equal(ep.module()(x), x * 2 + 1)


def test_opcheck_schema_fake_and_autograd_registration():
    x = _randn(4 * 64, seed=10)
    for op, args in ((scale, (x, 2.0)), (add_sub, (x[:128].clone(), x[128:].clone())),
                     (row_max, (_randn(4, 64, seed=11),)), (relu_, (x.clone(),))):
        torch.library.opcheck(op, args)


# -- autograd ----------------------------------------------------------------------------------------------

def test_backward_built_from_another_kernel_op():
    x = _randn(4 * 64, seed=12).requires_grad_()
    y = scale(x, 1.5)
    y.backward(torch.arange(256, dtype=torch.float32))
    assert torch.equal(x.grad, torch.arange(256, dtype=torch.float32) * 1.5)


def test_backward_under_compile():
    torch._dynamo.reset()
    x = _randn(4 * 64, seed=13).requires_grad_()
    loss = torch.compile(lambda t: (scale(t, -2.0) ** 2).sum(), fullgraph=True, backend="aot_eager")(x)
    loss.backward()
    torch.testing.assert_close(x.grad, 8.0 * x.detach(), rtol=0, atol=0)


# -- the NPU path (written from the torch-npu documentation; no NPU here) ---------------------------------------

def test_auto_backend_follows_the_tensors_device_inside_an_op():
    assert backend_for("auto") == "auto"                  # outside an op: unchanged
    for device, want in (("cpu", "sim"), ("npu", "npu")):
        with op_running(OpCall("asc_test::x", device, (), frozenset())):
            assert backend_for("auto") == want
            assert backend_for("cpp") == "cpp"            # an explicit backend is kept


# -- errors -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_writing_an_undeclared_input_is_refused_before_it_runs(backend):
    kernel = asc.jit(relu_inplace_kernel, backend=backend)

    @asc.torch_op(f"asc_test::sneaky_relu_{backend}", mutates_args=())
    def sneaky_relu(x: torch.Tensor) -> torch.Tensor:
        kernel[2](x, x.numel() // 2)  # MARK-undeclared
        return x.clone()

    x = _randn(256, seed=14)
    before = x.clone()
    with pytest.raises(asc.LaunchError, match=f"input 'x' of torch op asc_test::sneaky_relu_{backend}") as ei:
        sneaky_relu(x)
    assert_points_at(ei.value, "MARK-undeclared")
    assert "mutates_args" in str(ei.value)
    assert torch.equal(x, before)


def test_writing_a_view_of_an_undeclared_input_is_refused():
    @asc.torch_op("asc_test::half_scale", mutates_args=())
    def half_scale(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        scale_kernel[4](x, x[128:], 32, 2.0)     # writes the second half of its own input
        return out

    with pytest.raises(asc.LaunchError, match="input 'x'"):
        half_scale(_randn(256, seed=15))


def test_mutates_args_unknown_allows_every_write():
    @asc.torch_op("asc_test::relu_unknown", mutates_args="unknown")
    def relu_unknown(x: torch.Tensor) -> None:
        relu_inplace_kernel[2](x, x.numel() // 2)

    x = _randn(256, seed=18)
    want = torch.relu(x)
    relu_unknown(x)
    assert torch.equal(x, want)


def test_an_explicit_schema_for_an_unannotated_function():
    def twice(x, alpha):
        z = torch.empty_like(x)
        scale_kernel[4](x, z, x.numel() // 4, alpha * 2)
        return z

    op = asc.torch_op("asc_test::twice", twice, mutates_args=(), schema="(Tensor x, float alpha) -> Tensor")
    x = _randn(256, seed=22)
    assert torch.equal(torch.ops.asc_test.twice(x, 1.5), x * 3.0)
    assert op(torch.empty(256, device="meta"), 1.0).device.type == "meta"


def test_non_contiguous_inputs_are_refused_on_real_and_fake_tensors():
    for device in ("cpu", "meta"):
        with pytest.raises(asc.LaunchError, match="argument 'x' is not contiguous"):
            scale(torch.zeros(16, 16, device=device).t(), 2.0)


def test_reading_inputs_and_writing_other_inputs_declared_mutable_is_fine():
    @asc.torch_op("asc_test::scale_into", mutates_args=("out",))
    def scale_into(x: torch.Tensor, out: torch.Tensor) -> None:
        scale_kernel[4](x, out, x.numel() // 4, 2.0)

    x, out = _randn(256, seed=16), torch.zeros(256)
    scale_into(x, out)
    assert torch.equal(out, x * 2)


@pytest.mark.parametrize("name, match", [
    ("noscope", "not of the form 'namespace::op_name'"),
    ("a::b::c", "not of the form"),
    ("1lib::op", "not of the form"),
    ("lib::", "not of the form"),
])
def test_bad_names(name, match):
    with pytest.raises(asc.TorchOpError, match=match) as ei:
        @asc.torch_op(name, mutates_args=())  # MARK-bad-name
        def f(x: torch.Tensor) -> torch.Tensor:
            return x.clone()
    assert_points_at(ei.value, "MARK-bad-name")


def test_decorating_the_kernel_itself_is_refused():
    with pytest.raises(asc.TorchOpError, match="not the @asc.jit kernel scale_kernel"):
        asc.torch_op("asc_test::k", scale_kernel, mutates_args=())


def test_missing_annotations_and_bad_mutates_args():
    def no_ann(x, alpha: float) -> torch.Tensor:
        return x

    with pytest.raises(asc.TorchOpError, match="cannot make a schema") as ei:
        asc.torch_op("asc_test::no_ann", no_ann, mutates_args=())
    assert "annotate every parameter" in str(ei.value)
    with pytest.raises(asc.TorchOpError, match="is a string"):
        asc.torch_op("asc_test::m", lambda x: x, mutates_args="x")
    with pytest.raises(asc.TorchOpError, match="not found"):
        @asc.torch_op("asc_test::m2", mutates_args=("y",))
        def m2(x: torch.Tensor) -> None:
            pass


def test_a_fake_run_that_reads_values_says_why():
    @asc.torch_op("asc_test::reads_values", mutates_args=())
    def reads_values(x: torch.Tensor) -> torch.Tensor:
        z = torch.empty_like(x)
        scale_kernel[4](x, z, x.numel() // 4, float(x.abs().max().item()))
        return z

    x = _randn(256, seed=17)
    assert torch.equal(reads_values(x), x * float(x.abs().max()))     # real tensors: fine
    with pytest.raises(Exception) as ei:
        reads_values(torch.empty(256, device="meta"))
    assert "must not read tensor values" in "\n".join(getattr(ei.value, "__notes__", []))


def test_without_torch_the_decorator_says_so():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import asc_trace as asc\n"
            "try:\n"
            "    asc.torch_op('a::b', mutates_args=())(lambda x: x)\n"
            "except asc.TorchOpError as e:\n"
            "    print(e.msg)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "needs PyTorch, which is not installed" in out.stdout


def test_numpy_launches_are_untouched_by_the_torch_hooks():
    x = np.arange(4 * 64, dtype=np.float32)
    z = np.zeros_like(x)
    scale_kernel[4](x, z, 64, 2.0)
    assert np.array_equal(z, x * 2)
