"""A random flag-free kernel (found by an adversary run) whose first-guess analysis does not settle within
its rounds: it used to be refused ("auto_sync did not converge"); the proof gate now orders what is left."""
import asc_trace as asc
T = 64
@asc.jit
def kern(x: asc.GlobalAddress, z: asc.GlobalAddress, p0: int, p1: int, p2: int, p3: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 8 * T); zg.set_global_buffer(z, 8 * T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, T)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, T)
    asc.duplicate(a, 0.0, T); asc.duplicate(b, 0.0, T); asc.duplicate(c, 0.0, T)
    def w0_0(k):
        a.set_value(55, b.get_value(33) + 1.0)
        return k + 1
    asc.while_loop(lambda k: k < p3 % 3, w0_0, 0)
    def f0_4t():
        def w1_0(k):
            asc.add(a, a, c, T)
            for i2 in range(p1):
                asc.muls(a, a, 2.0, T)
            return k + 1
        asc.while_loop(lambda k: k < p1 % 3, w1_0, 0)
        for i1 in range(p2 - 1, -1, -1):
            asc.add(c, a, c, T)
            for i2 in range(1, p0 + 1):
                b.set_value(18, a.get_value(1) + 1.0)
                asc.muls(b, b, 2.0, T)
            asc.adds(c, c, 1.0, T)
            asc.data_copy(zg[((i1) % 8) * T:], a, T)
        asc.adds(b, b, 1.0, T)
        asc.data_copy(c, xg[((0) % 8) * T:], T)
    def f0_4f():
        for i1 in range(p0 - 1, -1, -1):
            def f2_0t():
                asc.muls(b, b, 2.0, T)
            def f2_0f():
                pass
            asc.cond((i1 + p3) % 3 == 0, f2_0t, f2_0f)
            def f2_5t():
                asc.adds(b, b, 1.0, T)
                asc.muls(c, c, 2.0, T)
            def f2_5f():
                pass
            asc.cond((i1 + p3) % 3 == 0, f2_5t, f2_5f)
            def f2_11t():
                asc.data_copy(c, xg[((i1) % 8) * T:], T)
            def f2_11f():
                pass
            asc.cond((i1 + p3) % 3 == 0, f2_11t, f2_11f)
            def f2_16t():
                a.set_value(44, b.get_value(38) + 1.0)
                asc.muls(a, a, 2.0, T)
                asc.data_copy(b, xg[((i1) % 8) * T:], T)
            def f2_16f():
                pass
            asc.cond((i1 + p3) % 2 == 0, f2_16t, f2_16f)
        def w1_24(k):
            asc.data_copy(zg[((0) % 8) * T:], c, T)
            return k + 1
        asc.while_loop(lambda k: k < p2 % 3, w1_24, 0)
    asc.cond((p0 + p3) % 3 == 0, f0_4t, f0_4f)
    def w0_50(k):
        asc.data_copy(b, xg[((0) % 8) * T:], T)
        for i1 in range(1, p0 + 1):
            asc.data_copy(zg[((i1) % 8) * T:], b, T)
            asc.data_copy(zg[((i1) % 8) * T:], c, T)
        asc.data_copy(zg[((0) % 8) * T:], b, T)
        return k + 1
    asc.while_loop(lambda k: k < p2 % 3, w0_50, 0)
    for i0 in range(p1 - 1, -1, -1):
        def w1_0(k):
            asc.data_copy(a, xg[((i0) % 8) * T:], T)
            asc.data_copy(c, xg[((i0) % 8) * T:], T)
            asc.data_copy(zg[((i0) % 8) * T:], c, T)
            asc.data_copy(a, xg[((i0) % 8) * T:], T)
            return k + 1
        asc.while_loop(lambda k: k < p3 % 3, w1_0, 0)
