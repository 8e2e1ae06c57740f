"""pyasc's front end on the seed kernels (AST -> MLIR -> passes -> C++), timed the way
benchmarks/frontend.py times asc_trace: cold (first lowering in the process), warm (a fresh
JITFunction each time). Prints one JSON line. Needs pyasc (pip install pyasc==1.1.1); the build
tools are never run, so PYASC_COMPILER / PYASC_LINKER only need to name an existing program."""
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("PYASC_COMPILER", "true")
os.environ.setdefault("PYASC_LINKER", "true")
sys.path.insert(0, str(Path(__file__).resolve().parent))

t_import = time.perf_counter()
from asc.codegen.function_visitor import CodegenOptions  # noqa: E402
from asc.codegen.specialization import PlainArgType, PointerArgType, Specialization  # noqa: E402
from asc.language.core.dtype import KnownTypes as KT  # noqa: E402
from asc.runtime.compiler import CompileOptions, Compiler  # noqa: E402
from asc.runtime.jit import JITFunction  # noqa: E402

import _seed_kernels_pyasc as K  # noqa: E402

t_import = time.perf_counter() - t_import


def lower(kernel, constexprs):
    jf = JITFunction(kernel.fn)
    args = {"x": PointerArgType(KT.float32), "y": PointerArgType(KT.float32), "z": PointerArgType(KT.float32),
            "block_length": PlainArgType(KT.int_)}
    mod = jf._run_codegen(Specialization(args, constexprs), CodegenOptions())
    Compiler(CompileOptions()).run_passes(mod)
    return Compiler.run_translation(mod)


def main() -> None:
    out = {"import_s": t_import}
    for name, kernel, consts in (("manual", K.vadd_kernel, {}), ("tque", K.vadd_tque, {"tile_length": 128})):
        t0 = time.perf_counter()
        src = lower(kernel, consts)
        out[f"{name}_cold_s"] = time.perf_counter() - t0
        assert "AscendC::" in src
        times = []
        for _ in range(15):
            t0 = time.perf_counter()
            lower(kernel, consts)
            times.append(time.perf_counter() - t0)
        out[f"{name}_warm_s"] = sorted(times)[len(times) // 2]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
