"""The census's child process: runs rewritten pyasc files with every kernel launch intercepted, and
writes one JSON line per launch, test, import and script to a file.

    python runner.py <root> <manifest.json> <records.jsonl>

A launch of a `unit` kernel is traced, scheduled and lowered to Ascend C, never run (pyasc's own unit
tests only compile). A launch of a `reference` kernel is traced and lowered the same way, then run
for real on the process's backend (set_platform's Model: the simulator), and the script's own result
check decides whether it passed. Test modules run under pytest (their parametrisations and fixtures
as pyasc writes them, with the census's conftest for pyasc's fixtures); tutorials run as __main__.
"""
from __future__ import annotations

import importlib.util
import json
import os
import runpy
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "glue"))
sys.path.insert(0, str(HERE.parent))

import pytest  # noqa: E402

import asc_trace.jit_function as jit_function  # noqa: E402
from asc_trace.runtime.args import bind_args  # noqa: E402
from pyasc_compat.census_state import State  # noqa: E402
from pyasc_compat.classify import classify  # noqa: E402


def emit(record: dict[str, Any]) -> None:
    State.out.write(json.dumps(record, sort_keys=True) + "\n")
    State.out.flush()


def _rel(filename: str) -> str | None:
    try:
        return Path(filename).resolve().relative_to(State.root).as_posix()
    except ValueError:
        return None


_original_launch = jit_function.JitFunction.launch


def census_launch(self: Any, core_num: int, stream: Any, args: tuple, kwargs: dict, loc: Any) -> None:
    """Trace and lower the kernel (and, for a reference kernel, run it), recording the outcome."""
    State.launches += 1
    code = self.fn.__code__
    rel = _rel(code.co_filename)
    group = State.groups.get(rel or "", "other")
    rec: dict[str, Any] = {"event": "launch", "file": rel, "line": code.co_firstlineno, "kernel": self.fn.__qualname__,
                           "test": State.current, "group": group, "core_num": core_num}
    t0 = time.perf_counter()
    stage = "trace"
    try:
        bound = bind_args(self.name, self.specs, args, kwargs, loc, device_ok=True)
        ck = self.compiled(bound.signature)
        stage = "lower"
        _ = ck.source
        if group == "reference":
            stage = "run"
            _original_launch(self, core_num, stream, args, kwargs, loc)
    except Exception as exc:  # noqa: BLE001 - every refusal is the census's data
        rec.update(ok=False, stage=stage, seconds=round(time.perf_counter() - t0, 4),
                   error=classify(exc, State.root, State.methods))
        emit(rec)
        if group == "reference":
            raise
        return
    rec.update(ok=True, stage="done", seconds=round(time.perf_counter() - t0, 4))
    emit(rec)


class CensusPlugin:
    """Records each test's outcome, with the classified exception when it failed."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: Any) -> None:
        State.current = item.nodeid
        State.launches = 0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        outcome = yield
        report = outcome.get_result()
        if report.when == "call" or report.failed or report.skipped:
            rec: dict[str, Any] = {"event": "test", "nodeid": item.nodeid, "file": _rel(str(item.path)),
                                   "when": report.when, "outcome": report.outcome, "test": item.originalname,
                                   "seconds": round(report.duration, 4)}
            if call.excinfo is not None and report.failed:
                rec["error"] = classify(call.excinfo.value, State.root, State.methods)
            if report.skipped and call.excinfo is not None:
                rec["skip_reason"] = str(call.excinfo.value)[:200]
            emit(rec)


def import_check(rel: str) -> bool:
    """Import a test module on its own first: an import that fails refuses every kernel of the file,
    and pytest would only report it as text."""
    path = State.root / rel
    spec = importlib.util.spec_from_file_location(f"census_import_{abs(hash(rel))}", path)
    module = importlib.util.module_from_spec(spec)
    State.current = rel
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - pytest.skip at module level is a BaseException
        rec = {"event": "import", "file": rel, "ok": False}
        if type(exc).__name__ == "Skipped":
            rec["skip_reason"] = str(exc)[:200]
        else:
            rec["error"] = classify(exc, State.root, State.methods)
        emit(rec)
        return False
    emit({"event": "import", "file": rel, "ok": True})
    return True


def run_script(rel: str) -> None:
    path = State.root / rel
    State.current = rel
    State.launches = 0
    argv, cwd = sys.argv, os.getcwd()
    sys.argv = [str(path)]
    os.chdir(path.parent)
    sys.path.insert(0, str(path.parent))
    t0 = time.perf_counter()
    rec: dict[str, Any] = {"event": "script", "file": rel}
    try:
        runpy.run_path(str(path), run_name="__main__")
        rec.update(outcome="passed")
    except SystemExit as exc:
        rec.update(outcome="passed" if exc.code in (None, 0) else "failed", exit=str(exc.code))
    except BaseException as exc:  # noqa: BLE001
        rec.update(outcome="failed", error=classify(exc, State.root, State.methods))
    finally:
        sys.argv = argv
        os.chdir(cwd)
        sys.path.remove(str(path.parent))
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    emit(rec)


def main(argv: list[str]) -> int:
    State.root = Path(argv[1]).resolve()
    manifest = json.loads(Path(argv[2]).read_text())
    State.groups = {f["rel"]: f["group"] for f in manifest["files"]}
    State.methods = manifest.get("methods", {})
    jit_function.JitFunction.launch = census_launch
    with open(argv[3], "w") as out:
        State.out = out
        tests = [f["rel"] for f in manifest["files"] if f["kind"] == "pytest" and import_check(f["rel"])]
        if tests:
            args = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", "--rootdir", str(State.root),
                    "-o", "python_files=test_*.py", "--no-header", "-rN", "-W", "ignore",
                    *[str(State.root / t) for t in tests]]
            try:
                pytest.main(args, plugins=[CensusPlugin()])
            except Exception:  # noqa: BLE001 - report, but keep the records written so far
                traceback.print_exc()
        for f in manifest["files"]:
            if f["kind"] == "script":
                run_script(f["rel"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
