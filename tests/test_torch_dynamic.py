"""Issue 25: launch ints computed from sizes under torch dynamic shapes (SymInts) work when they are known
at launch, and are a LaunchError that says "wrap it in int()" when they are not."""
import pytest

torch = pytest.importorskip("torch")

import asc_trace as asc  # noqa: E402
from asc_trace.errors import LaunchError  # noqa: E402
from test_torch_op import scale_tiled_kernel  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
PER_CORE = 256


@asc.torch_op("asc_test_i25::scale_by_cores", mutates_args=())
def scale_by_cores(x: torch.Tensor, alpha: float) -> torch.Tensor:
    z = torch.empty_like(x)
    cores = x.numel() // PER_CORE                 # the usual host code: the core count from the size
    scale_tiled_kernel[cores](x, z, PER_CORE, alpha, 64)
    return z


def test_a_core_count_from_the_shape_under_dynamic_compile():
    f = torch.compile(lambda t: scale_by_cores(t, 2.0) + 1, fullgraph=True, backend="aot_eager", dynamic=True)
    for n in (1024, 2048, 3072):                  # a new shape each time: the same graph, SymInt sizes
        x = torch.arange(n, dtype=torch.float32)
        assert torch.equal(f(x), x * 2 + 1)


def test_opcheck_of_an_op_whose_core_count_comes_from_the_shape():
    torch.library.opcheck(torch.ops.asc_test_i25.scale_by_cores.default,
                          (torch.arange(2048, dtype=torch.float32), 0.5))


def test_a_symint_with_no_value_at_launch_says_wrap_it_in_int():
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    unbacked = ShapeEnv().create_unbacked_symint()       # what .item() gives under torch.compile
    x = torch.ones(PER_CORE, dtype=torch.float32)
    with pytest.raises(LaunchError, match=r"SymInt .* wrap it in int\(\)") as info:
        scale_tiled_kernel[unbacked](x, torch.empty_like(x), PER_CORE, 1.0, 64)
    assert info.value.loc.file == __file__
    with pytest.raises(LaunchError, match=r"argument 2 is a SymInt .* wrap it in int\(\)"):
        scale_tiled_kernel[1](x, torch.empty_like(x), unbacked, 1.0, 64)


def test_a_fake_run_refuses_a_core_count_out_of_range():
    f = torch.compile(lambda t: scale_by_cores(t, 2.0), fullgraph=True, backend="aot_eager", dynamic=True)
    with pytest.raises(Exception, match="core_num must be an int from 1 to 65535"):
        f(torch.ones(100, dtype=torch.float32))     # 100 // 256 = 0 cores


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_a_meta_input_with_a_real_output_is_refused(backend):
    """A meta tensor has no data: beside a real output the launch would leave that output's old bytes
    (an adversary's call ran and wrote nothing); only an all-fake launch is a shape check."""
    z = torch.full((512,), 7.0)
    with pytest.raises(LaunchError, match="'x' is a meta / fake tensor"):
        asc.jit(scale_tiled_kernel, backend=backend)[1](torch.empty(512, device="meta"), z, 512, 2.0, 256)
    assert torch.equal(z, torch.full((512,), 7.0))
    asc.jit(scale_tiled_kernel, backend=backend)[1](torch.empty(512, device="meta"),
                                                    torch.empty(512, device="meta"), 512, 2.0, 256)
