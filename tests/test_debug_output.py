"""asc.printf and asc.dump_tensor print the same text on sim, eager and cpp, tagged with the core."""
import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at


@asc.jit
def talk(x: asc.GlobalAddress, n: int, f: float):
    i = asc.get_block_idx()
    asc.printf("core %d of %d\n", i, asc.get_block_num())
    asc.printf("escaped newline, pyasc style\\n")
    asc.printf("n=%i u=%u x=%x X=%X f=%f s=%s p=%p %%\n", n, n, 255 + i, 171, f, "ok", 4096)
    asc.printf("no newline at the end")
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 16)
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    asc.data_copy(t, g, 16)
    asc.dump_tensor(t, 1, 4)
    asc.dump_tensor(t, 2, 6, asc.ShapeInfo(asc.array(asc.uint32, [2, 4])))


EXPECTED_CORE0 = [
    "[block 0/2] core 0 of 2",
    "[block 0/2] escaped newline, pyasc style",
    "[block 0/2] n=-5 u=4294967291 x=ff X=AB f=0.250000 s=ok p=0x1000 %",
    "[block 0/2] no newline at the endDumpTensor: desc=1, addr=0, data_type=int32, position=UB, dump_size=4",
    "[block 0/2] [0, 1, 2, 3]",
    "[block 0/2] DumpTensor: desc=2, addr=0, data_type=int32, position=UB, dump_size=6",
    "[block 0/2] shape is [2, 4], dumpSize is 6, data is not enough.",
    "[block 0/2] [[0, 1, 2, 3],",
    "[block 0/2]  [4, 5, -, -]]",
]


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_same_text_on_every_backend(backend, capfd):
    x = np.arange(16, dtype=np.int32)
    asc.jit(talk, backend=backend)[2](x, -5, 0.25)
    lines = capfd.readouterr().out.splitlines()
    assert lines[:len(EXPECTED_CORE0)] == EXPECTED_CORE0
    assert lines[len(EXPECTED_CORE0)] == "[block 1/2] core 1 of 2"
    assert "[block 1/2] n=-5 u=4294967291 x=100 X=AB f=0.250000 s=ok p=0x1000 %" in lines


def test_source_escapes_the_format():
    x = np.arange(16, dtype=np.int32)
    src = asc.compile(talk, (x, -5, 0.25)).source
    assert 'AscendC::printf("core %d of %d\\n"' in src
    assert 'AscendC::printf("escaped newline, pyasc style\\n");' in src
    assert "0x%x" in src       # %p is printed as 0x%x on every backend


def test_format_must_match_arguments():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        asc.printf("%d and %d\n", n)  # MARK-printf-count

    @asc.jit
    def k2(x: asc.GlobalAddress, f: float):
        asc.printf("%d\n", f)  # MARK-printf-kind

    with pytest.raises(asc.TraceError, match="1 argument") as ei:
        k[1](np.zeros(8, np.int32), 1)
    assert_points_at(ei.value, "MARK-printf-count")
    with pytest.raises(asc.TraceError, match="%f") as ei:
        k2[1](np.zeros(8, np.int32), 1.0)
    assert_points_at(ei.value, "MARK-printf-kind")
