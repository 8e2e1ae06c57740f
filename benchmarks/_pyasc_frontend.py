"""pyasc's front end on the seed kernels (AST -> MLIR -> passes -> C++), timed the way
benchmarks/frontend.py times asc_trace (CPU time of the process): cold (first lowering in the process), warm (a fresh
JITFunction each time). Prints one JSON line. Needs pyasc (pip install pyasc==1.1.1); the build
tools are never run, so PYASC_COMPILER / PYASC_LINKER only need to name an existing program."""
import ast
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("PYASC_COMPILER", "true")
os.environ.setdefault("PYASC_LINKER", "true")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

t_import = time.process_time()
from asc.codegen.function_visitor import CodegenOptions  # noqa: E402
from asc.codegen.specialization import PlainArgType, PointerArgType, Specialization  # noqa: E402
from asc.language.core.dtype import KnownTypes as KT  # noqa: E402
from asc.runtime.compiler import CompileOptions, Compiler  # noqa: E402
from asc.runtime.jit import JITFunction  # noqa: E402

t_import = time.process_time() - t_import


def load_example_kernel(name: str):
    """The example's kernels, their source text unchanged, under pyasc: the module-level constants and
    the @asc.jit functions after `import asc` (the examples' host code uses asc_trace's runtime, which
    pyasc does not have). Written to a real file because pyasc reads the kernel's source with inspect."""
    src = (EXAMPLES / f"{name}.py").read_text()
    lines = src.splitlines()
    chunks = ["import asc"]
    for node in ast.parse(src).body:
        decorators = getattr(node, "decorator_list", [])
        is_kernel = isinstance(node, ast.FunctionDef) and any(ast.unparse(d).split("(")[0] == "asc.jit"
                                                               for d in decorators)
        if isinstance(node, ast.Assign) or is_kernel:
            start = min([node.lineno] + [d.lineno for d in decorators]) - 1
            chunks.append("\n".join(lines[start:node.end_lineno]))
    src = "\n\n\n".join(chunks) + "\n"
    out = Path(tempfile.mkdtemp(prefix="pyasc_seed_")) / f"pyasc_{name}.py"
    out.write_text(src)
    spec = importlib.util.spec_from_file_location(out.stem, out)
    module = importlib.util.module_from_spec(spec)
    sys.modules[out.stem] = module
    spec.loader.exec_module(module)
    return module.vadd_kernel


def lower(kernel, constexprs):
    jf = JITFunction(kernel.fn)
    args = {"x": PointerArgType(KT.float32), "y": PointerArgType(KT.float32), "z": PointerArgType(KT.float32),
            "block_length": PlainArgType(KT.int_)}
    mod = jf._run_codegen(Specialization(args, constexprs), CodegenOptions())
    Compiler(CompileOptions()).run_passes(mod)
    return Compiler.run_translation(mod)


def main() -> None:
    out = {"import_s": t_import}
    for name, kernel, consts in (("manual", load_example_kernel("vadd"), {}),
                                 ("tque", load_example_kernel("vadd_tque"), {"tile_length": 128})):
        t0 = time.process_time()
        src = lower(kernel, consts)
        out[f"{name}_cold_s"] = time.process_time() - t0
        assert "AscendC::" in src
        times = []
        for _ in range(15):
            t0 = time.process_time()
            lower(kernel, consts)
            times.append(time.process_time() - t0)
        out[f"{name}_warm_s"] = sorted(times)[len(times) // 2]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
