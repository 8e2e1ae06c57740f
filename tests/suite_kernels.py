"""The emitted Ascend C of the suite's kernels, for the checks that judge the emitted text as a whole
(the header check against each CANN generation, the reserved-name and API-symbol audits): every example
as its module runs it, every op-registry case, and a fixed (derandomized) batch of the random programs
of program_gen.py. Each set is compiled once per test process."""
from __future__ import annotations

import importlib
from functools import lru_cache

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import asc_trace as asc
from asc_trace.toolchain.header_check import Kernel

EXAMPLES = ("axpy", "leaky_relu", "softmax", "rmsnorm", "vadd_tail", "softmax_rows", "tile_range", "tail_core",
            "halving", "cann_elementwise:sigmoid", "cann_elementwise:gelu", "cann_elementwise:maximum",
            "adv_softmax", "adv_rmsnorm", "adv_quant", "adv_math")
RANDOM_PROGRAMS = 24        # random programs checked per run (derandomized: the same ones every run)


@lru_cache(maxsize=1)
def example_kernels() -> tuple[Kernel, ...]:
    """Every @asc.jit kernel of examples/, compiled with the arguments its module runs it with."""
    import vadd
    import vadd_noflags
    import vadd_tque
    x = np.zeros(8 * 2048, np.float32)
    out = []
    for k, args in ((vadd.vadd_kernel, (x, x, x, 2048)), (vadd_tque.vadd_kernel, (x, x, x, 2048, 128)),
                    (vadd_noflags.vadd_noflags, (x, x, x, 2048, 256))):
        ck = asc.compile(k, args)
        out.append(Kernel(ck.name, ck.source, ck.graph))
    for name in EXAMPLES:
        launched = []
        real = asc.jit

        def spy(kernel=None, **options):           # the kernels run() launches, with their arguments
            if kernel is None:                     # `@asc.jit(...)` decorating at import: not a launch
                return real(**options)
            launched.append(real(kernel, **options))
            return launched[-1]
        asc.jit = spy
        try:
            module, _, case = name.partition(":")
            run = importlib.import_module(module).run
            run(case, n=8 * 1024 + 256, cores=8) if case else run("sim")
        finally:
            asc.jit = real
        out += [Kernel(ck.name, ck.source, ck.graph) for fn in launched for _deps, ck in fn._cache.values()]
    return tuple(out)


@lru_cache(maxsize=1)
def registry_kernels() -> tuple[Kernel, ...]:
    """Every op-registry case of backend_cases.py (every op, dtype and form)."""
    import backend_cases as B
    return tuple(Kernel(c.id, ck.source, ck.graph) for c in B.cases()
                 for ck in (asc.compile(c.kernel, c.make_args(), core_num=c.cores),))


@lru_cache(maxsize=1)
def random_kernels() -> tuple[Kernel, ...]:
    """RANDOM_PROGRAMS distinct programs of program_gen.py, the same ones on every run, with one launch's
    arguments each (the emitted source does not depend on the runtime arguments' values). Programs whose
    constants the tracer refuses (a negative count, a shift of -8: program_gen draws edge values on
    purpose) are passed over; any other exception propagates."""
    from program_gen import input_data, make_kernel, programs
    batches: list = []

    # Hypothesis' first example is the minimal one (every program the same); the examples after it are
    # random, and derandomize makes them the same on every run.
    @settings(max_examples=3, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(programs(), min_size=RANDOM_PROGRAMS, max_size=RANDOM_PROGRAMS))
    def draw(progs):
        batches.append(progs)
    draw()
    out: list = []
    seen: set = set()
    for prog in (p for batch in batches[1:] for p in batch):
        if len(out) == RANDOM_PROGRAMS:
            break
        if prog in seen:
            continue
        seen.add(prog)
        x, z = input_data(prog.dtype, 2, 0)
        try:
            ck = asc.compile(make_kernel(prog), (x, z, 1, 2, 3, 0.5), core_num=2)
        except asc.AscTraceError:
            continue
        out.append(Kernel(f"random_{len(out)}", ck.source, ck.graph))
    return tuple(out)


# Kernels that use what the examples, the registry cases and the random programs do not: a user TPipe
# with flags of its own (their ids reserved from it), a TBuf slice, a reinterpreted tensor, printf and
# dump_tensor, a PIPE_ALL / MTE3 barrier, and a kernel placing raw LocalTensors beside TQue buffers.
@asc.jit(auto_sync=False)
def own_pipe_debug(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 2048)
    t = buf.get(asc.float32, 256)
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    asc.data_copy(t, xg, 256)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(t, t, 2.0, 256)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    bits = t.reinterpret_cast(asc.int32)
    asc.adds(bits, bits, 0, 256)
    asc.set_flag(asc.HardEvent.V_S, 1)
    asc.wait_flag(asc.HardEvent.V_S, 1)
    asc.printf("n=%d first=%f\n", n, t.get_value(0))
    asc.dump_tensor(t, 1, 8)
    asc.dump_tensor(t, 2, 8, asc.ShapeInfo(asc.array(asc.uint32, [2, 4])))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, t, 256)
    asc.pipe_barrier(asc.PipeID.PIPE_MTE3)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def raw_odd_length(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """A raw LocalTensor whose length is not whole 32-byte blocks (20 floats): emitted with SetSize(20), so the
    real API bounds it by its real size (api_symbols.txt lists .SetSize for this)."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 20)
    asc.data_copy(t, xg, 16)
    asc.adds(t, t, 1.0, 20)
    asc.data_copy(zg, t, 16)


@asc.jit
def raw_beside_queue(x: asc.GlobalAddress, z: asc.GlobalAddress):
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(que, 1, 1024)
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    a = que.alloc_tensor(asc.float32)
    asc.data_copy(a, xg, 256)
    que.enque(a)
    b = que.deque(asc.float32)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 256)
    asc.adds(out, b, 1.0, 256)
    asc.data_copy(zg, out, 256)
    que.free_tensor(b)


# A cube kernel with every cube op, flag-free (auto_sync derives the cube pipes' flags): K tile loop with
# ping-pong L1 / L0 buffers, a bias through the bias table, Fixpipe with ReLU.
@asc.jit
def cube_bias_relu(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                   k_tiles: int):
    ga, gb, gbias, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    gbias.set_global_buffer(bias)
    gc.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 2 * 32 * 32)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 4096, 2 * 32 * 32)
    bias1 = asc.LocalTensor(asc.float32, asc.TPosition.C1, 8192, 32)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 2 * 32 * 32)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 2 * 32 * 32)
    bt = asc.LocalTensor(asc.float32, asc.TPosition.C2, 0, 32)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 32 * 32)
    asc.data_copy(bias1, gbias, 32)
    asc.data_copy(bt, bias1, asc.DataCopyParams(1, 2, 0, 0))
    asc.init_const_value(a2, asc.InitConstValueParams(1, 4, 0, 0.0))
    for kk in range(k_tiles):
        buf = kk % 2
        asc.init_const_value(a1[buf * 1024:], asc.InitConstValueParams(1, 64, 0, 0.0))
        asc.data_copy(a1[buf * 1024:], ga[kk * 32:], asc.Nd2NzParams(1, 32, 32, 0, 32 * k_tiles, 32, 1, 0))
        asc.data_copy(b1[buf * 1024:], gb[kk * 32 * 32:], asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
        for i in asc.static_range(2):
            asc.load_data(a2[buf * 1024 + i * 512:], a1[buf * 1024 + i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, False, 0))
            asc.load_data(b2[buf * 1024 + i * 512:], b1[buf * 1024 + i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, True, 0))
        asc.mmad(c1, a2[buf * 1024:], b2[buf * 1024:], bt,
                 asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=True, cmatrix_init_val=False))
    asc.load_data(a2, a1, asc.LoadData3DParamsV2((0, 0, 0, 0), 1, 32, 32, 32, 32, 0, 0))
    asc.mmad(c1, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=3, cmatrix_source=False, cmatrix_init_val=False))
    asc.fixpipe(gc, c1, asc.FixpipeParamsV220(32, 32, 32, 32, asc.QuantModes.F322F16, relu_en=True))
    t1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 12288, 32 * 32)      # the result kept in L1 (Nz)
    asc.fixpipe(t1, c1, asc.FixpipeParamsV220(32, 32, 32, 32, asc.QuantModes.F322F16), asc.FixpipeConfig.cfg_nz)


# A mixed cube + vector kernel (KERNEL_TYPE_MIX_AIC_1_2), flag-free: the cube core's 32 x 32 tile goes through
# a GM workspace to the two vector cores, 16 rows each; auto_sync derives the cross-core flags.
@asc.jit
def mix_matmul_adds(a: asc.GlobalAddress, b: asc.GlobalAddress, ws: asc.GlobalAddress, c: asc.GlobalAddress,
                    tiles: int):
    ga, gb, gws, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    gws.set_global_buffer(ws)
    gc.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 32 * 32)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 4096, 32 * 32)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 32 * 32)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 32 * 32)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 32 * 32)
    x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 16 * 32)
    half = asc.get_sub_block_idx() * 16 * 32
    for t in range(tiles):
        asc.data_copy(a1, ga[t * 1024:], asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
        asc.data_copy(b1, gb, asc.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
        for i in asc.static_range(2):
            asc.load_data(a2[i * 512:], a1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, False, 0))
            asc.load_data(b2[i * 512:], b1[i * 256:], asc.LoadData2DParams(0, 2, 2, 0, 0, True, 0))
        asc.mmad(c1, a2, b2, asc.MmadParams(32, 32, 32, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True))
        asc.fixpipe(gws, c1, asc.FixpipeParamsV220(32, 32, 32, 32, asc.QuantModes.NoQuant))
        asc.data_copy(x, gws[half:], 16 * 32)
        asc.adds(x, x, 1.0, 16 * 32)
        asc.data_copy(gc[t * 1024 + half:], x, 16 * 32)


MIXED = ("raw_beside_queue", "cube_bias_relu", "mix_matmul_adds")   # the raw LocalTensor constructor: CANN 8.5+ only


@lru_cache(maxsize=1)
def extra_kernels() -> tuple[Kernel, ...]:
    x, z = np.arange(256, dtype=np.float32), np.zeros(256, np.float32)
    out = []
    h = np.zeros(2048, np.float16)
    w, o = np.zeros(1024, np.float32), np.zeros(2048, np.float32)
    for k, args in ((own_pipe_debug, (x, z, 3)), (raw_beside_queue, (x, z)), (raw_odd_length, (x, z)), (cube_bias_relu, (h, h, x, h, 2)),
                    (mix_matmul_adds, (h, h, w, o, 2))):
        ck = asc.compile(k, args)
        out.append(Kernel(ck.name, ck.source, ck.graph))
    return tuple(out)


@lru_cache(maxsize=1)
def adv_kernels() -> tuple[Kernel, ...]:
    """Every asc.adv call in each of its forms (tests/adv_kernels.py)."""
    import adv_kernels as A
    return tuple(Kernel(ck.name, ck.source, ck.graph) for ck in A.suite())


@lru_cache(maxsize=1)
def vec_more_kernels() -> tuple[Kernel, ...]:
    """pyasc's further vector ops that cpu_debug cannot run (tests/vec_more_kernels.py header_suite)."""
    import vec_more_kernels as V
    return tuple(Kernel(ck.name + f"_{i}", ck.source, ck.graph) for i, ck in enumerate(V.header_suite()))


@lru_cache(maxsize=1)
def parity_kernels() -> tuple[Kernel, ...]:
    """The pyasc-parity ops of issue #21 (tests/parity_kernels.py)."""
    import parity_kernels as P
    return tuple(Kernel(ck.name + f"_{i}", ck.source, ck.graph) for i, ck in enumerate(P.suite()))


@lru_cache(maxsize=1)
def block_sync_kernels() -> tuple[Kernel, ...]:
    """sync_all / ib_set / ib_wait in each form (tests/block_sync_kernels.py)."""
    import block_sync_kernels as B
    return tuple(Kernel(ck.name + f"_{i}", ck.source, ck.graph) for i, ck in enumerate(B.suite()))


@lru_cache(maxsize=1)
def adv_variant_kernels() -> tuple[Kernel, ...]:
    """SoftMax's variants and the further norms of asc.adv (tests/adv_variant_kernels.py, issue #22)."""
    import adv_variant_kernels as A
    return tuple(Kernel(ck.name + f"_{i}", ck.source, ck.graph) for i, ck in enumerate(A.suite()))


def all_kernels() -> tuple[Kernel, ...]:
    from suite_framework import framework_kernels
    return (example_kernels() + registry_kernels() + random_kernels() + extra_kernels() + adv_kernels()
            + vec_more_kernels() + framework_kernels() + parity_kernels() + block_sync_kernels()
            + adv_variant_kernels())
