import fnmatch
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The tests compare every backend against NumPy; the NPU is opted into explicitly.
os.environ.setdefault("ASC_TRACE_BACKEND", "sim")
os.environ.setdefault("ASC_TRACE_CHECK", "1")   # verify the graph after every pass
# the header check and the cpu_debug backend use the vendor's Ascend C headers next to the checkout
# (the one rule, shared with `asc-trace info`: toolchain/ascendc_headers.devkit_beside_checkout)
from asc_trace.toolchain.ascendc_headers import devkit_beside_checkout  # noqa: E402

def _devkit_beside_main_checkout():
    """From a git worktree (/work/wt/NAME), the asc-devkit beside the main checkout the worktree belongs to: the
    parent of `git rev-parse --git-common-dir` (that checkout's .git) instead of this tree's own folder."""
    import subprocess
    from pathlib import Path
    here = Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=here,
                             capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    kit = Path(out).parent.parent / "shared" / "vendor" / "asc-devkit"
    return kit if (kit / "include" / "kernel_operator.h").is_file() else None


_KIT = devkit_beside_checkout() or _devkit_beside_main_checkout()
if _KIT is not None:
    os.environ.setdefault("ASC_TRACE_ASCENDC_HOME", str(_KIT))
# Compiled host libraries go to one temporary folder per test session, never into the checkout. The
# controlling process makes it before the xdist workers start, and they inherit the variable, so
# the workers share it (the cache is safe across processes); an explicit ASC_TRACE_CACHE_DIR wins.
_OWN_CACHE = "ASC_TRACE_CACHE_DIR" not in os.environ
if _OWN_CACHE:
    os.environ["ASC_TRACE_CACHE_DIR"] = tempfile.mkdtemp(prefix="asc_trace_test_cache_")


def pytest_configure(config):
    # a run that leaves the slow tests out is the fast lane: its hypothesis tests draw fewer examples
    import lane
    lane.FAST = re.search(r"\bnot\s+slow\b", config.getoption("markexpr", "") or "") is not None


def pytest_addoption(parser):
    parser.addoption("--runtime", default="cpu", help="'npu' also runs the tests marked npu (needs an Ascend NPU)")
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden/* from the current output")


# The fast lane (`make test-fast`, `pytest -m "not slow and not toolchain and not fuzz"`) leaves out
# the tests listed here; `make test` runs them all. Patterns are fnmatch patterns on the node id
# (tests/test_x.py::test_name[params]) in which `[` and `]` stand for themselves (a parameter list, never
# a character class); the figures are wall times measured with --durations.
MARKED: dict[str, tuple[str, ...]] = {
    # generated programs and hypothesis searches (2-20 s each)
    "fuzz": (
        "tests/test_schedule_fuzz.py::*",
        "tests/test_schedule_first_guess.py::*",      # a generated program, also built by g++
        "tests/test_schedule_props.py::*",
        "tests/test_properties.py::*",
        "tests/test_timing_physics.py::test_bounds_hold_for_random_kernels_sizes_and_levels",
    ),
    # run a compiler: g++ on the emitted source (cpp, cpu_debug, the header check), pip building a
    # wheel, the fake bisheng, the vendor's MLIR compiler
    "toolchain": (
        "tests/test_packaging.py::*",
        "tests/test_cache.py::*",
        "tests/test_cpu_debug.py::*",
        "tests/test_header_check.py::*",
        "tests/test_vendor_ir.py::*",
        "tests/test_api_symbols.py::*",
        "tests/test_npu.py::*",
        "tests/test_examples.py::test_example_on_every_backend*",
        "tests/test_lowering.py::test_cpp_*",
        "tests/test_backend_parity.py::test_sim_eager_cpp_agree",
        "tests/test_control_flow.py::test_the_backends_agree_to_the_byte",
        "tests/test_ops_backends.py::*",
        "tests/test_backend_contract.py::*",
        "tests/test_timing_model.py::test_calibration_kernels_on_every_backend*",
        "tests/test_api_events.py::test_the_issues_kernel_runs_on_every_backend*",
        "tests/test_control_flow.py::test_only_the_taken_branch_prints",
        "tests/test_control_flow.py::test_carried_values_swap_through_temporaries",
        "tests/test_reserved_names.py::test_the_header_check_rejects_what_bisheng_would",
        "tests/test_reserved_names.py::test_no_header_uses_the_prefix_and_every_lowercase_api_macro_is_reserved",
        "tests/test_lowering.py::test_model_is_as_strict_as_bisheng*",
        "tests/*::*cpu_debug*",
        "tests/test_schedule_adversarial.py::test_adversarial_kernel_emitted_cpp_is_correct*",
        "tests/test_reserved_names.py::test_the_cpp_backend_sees_bisheng_macros",
        "tests/test_reserved_names.py::test_parameters_named_like_bisheng_builtins_compile_and_run",
        "tests/*::*header_check*",
        "tests/test_pyasc_unit_basic.py::*",      # each file's kernels go through the header check
        "tests/test_reserved_names.py::test_parameters_named_like_the_emitted_types_compile_and_run",
        # the cpp backend's g++ build inside the test (found with a logging g++ first on PATH, 2026-12-06)
        "tests/test_mix_cpp.py::test_cpp_*",
        "tests/test_cube_cpp.py::test_cpp_*",
        "tests/test_adv_cpp_activation.py::*",
        "tests/test_block_sync.py::test_cpp_model_finds_the_hang_itself*",
        "tests/test_atomic.py::test_stores_combine_with_gm",       # draws cpp among the backends
        "tests/test_api_misuse.py::test_a_numpy_matrix_argument_runs_the_same_on_every_backend*",
        "tests/test_api_misuse.py::test_a_local_tensor_address_outside_the_ub_is_an_overflow_on_every_backend*",
        "tests/test_api_misuse.py::test_a_memmap_output_is_written",
        "tests/test_api_misuse.py::test_a_numpy_integer_core_count_launches_like_an_int*",
        "tests/test_lowering.py::test_the_prelude_stands_alone_with_checks_on_or_compiled_out*",
    ),
    # over a second each on their own
    "slow": (
        "tests/test_backend_parity.py::test_sim_eager_agree",
        "tests/test_timing_physics.py::test_leave_one_out*",
        "tests/test_timing_physics.py::test_autotune_picks_double_buffering_on_a_large_streaming_kernel",
        "tests/test_timing_model.py::test_bound_by_names_what_bounds_the_time",
        "tests/test_timing_model.py::test_published_kernel_time_within_25_percent*",
        "tests/test_sim_fast_path.py::test_batched_loops_give_the_bytes_of_iteration_by_iteration",
        "tests/test_sim_fast_path.py::test_loops_whose_iterations_depend_on_each_other_stay_exact",
        "tests/test_timing_model.py::test_trace_and_png_show_the_scalar_unit",
        "tests/test_torch_op.py::test_backward_under_compile",
        "tests/test_torch_op.py::test_compile_*",
        "tests/test_torch_op.py::test_a_compiled_kernel_inside_an_op",
        "tests/test_torch_dynamic.py::test_opcheck_of_an_op_whose_core_count_comes_from_the_shape",
        "tests/test_reserved_names.py::test_every_name_the_emitter_makes_up_has_the_reserved_prefix",
        "tests/test_pipe_model.py::test_png_timeline",
        "tests/test_cli.py::test_python_dash_m_and_the_console_script",
        "tests/test_pyasc_census.py::*",
        "tests/test_schedule_adversarial.py::test_branch_chain_every_pair_of_far_apart_branches_is_ordered",
        "tests/test_schedule_proof.py::test_auto_sync_output_is_proved_race_free_and_equal_to_eager",
        "tests/test_lowering.py::test_runtime_loop_source_does_not_grow*",
        "tests/test_examples.py::test_autotune_example",
        "tests/test_torch_dynamic.py::test_a_core_count_from_the_shape_under_dynamic_compile",
        # compiles every example, every registry case and 24 random programs (test_api_symbols' kernels)
        "tests/test_op_registry.py::test_every_record_is_emitted_by_the_suite",
        # scheduling the 4-deep nest takes seconds; the other adversarial kernels stay in the fast lane
        "tests/test_schedule_adversarial.py::test_adversarial_kernel_runs_correct[*-deep4-*]",
        "tests/test_schedule_adversarial.py::test_the_schedule_is_proved[deep4]",
        # each runs pyasc's file in a fresh interpreter; the fast lane keeps test_vadd on sim
        "tests/test_pyasc_reference.py::test_pyasc_reference_file_passes[add_framework-sim]",
        "tests/test_pyasc_reference.py::test_pyasc_reference_file_passes[test_vadd_scalar-sim]",
        "tests/test_pyasc_reference.py::test_pyasc_reference_file_passes[test_softmax-sim]",
        "tests/test_mask_register.py::test_is_set_mask_false_uses_the_register",
        "tests/test_sim_replay.py::test_softmax_rows_replays_its_row_values_with_the_bytes_of_program_order",
        "tests/test_pyasc_reference.py::test_pyasc_reference_file_passes[test_vadd-sim1]",
        "tests/test_pyasc_reference.py::test_tiles_past_the_tensor_stay_refused",
        "tests/test_pyasc_reference.py::test_a_wrong_answer_fails_here",
        # measured 2026-12-06 (docs/development.md); the fast lane keeps the cases named after each
        # it keeps [2-0-4-1.0-0.0] (no rows), [5-2-5-1.0-0.02] (NaNs), [2-4-2--3.0-0.1] (a negative scale)
        "tests/test_sim_shortcuts.py::test_warm_launches_of_exp_rows_give_the_bytes_of_the_slow_path[8-1-8-1.0-0.0]",
        "tests/test_sim_shortcuts.py::test_warm_launches_of_exp_rows_give_the_bytes_of_the_slow_path[3-5-3-0.5-0.0]",
        "tests/test_sim_shortcuts.py::test_warm_launches_of_exp_rows_give_the_bytes_of_the_slow_path[4-3-0-1.0-0.0]",
        "tests/test_sim_shortcuts.py::test_warm_launches_of_exp_rows_give_the_bytes_of_the_slow_path[1-7-1-2.0-0.0]",
        "tests/test_sim_shortcuts.py::test_warm_launches_of_exp_rows_give_the_bytes_of_the_slow_path[8-2-2-40.0-0.0]",
        # it keeps [5-2-5-1.0-0.02] and [2-4-2--3.0-0.1]
        "tests/test_value_memo.py::test_warm_launches_taking_remembered_exps_give_the_bytes_of_the_slow_path[4-3-0-1.0-0.0]",
        "tests/test_value_memo.py::test_warm_launches_taking_remembered_exps_give_the_bytes_of_the_slow_path[3-5-3-0.5-0.0]",
        "tests/test_value_memo.py::test_warm_launches_taking_remembered_exps_give_the_bytes_of_the_slow_path[8-1-8-1.0-0.0]",
        # it keeps the malformed `args` and the table that is not a dict
        'tests/test_adv_findings.py::test_inspect_with_malformed_examples_exits_3[{"copy": {"args": ARGS, *',
        # two fresh interpreters; the in-process determinism tests of the file stay
        "tests/test_schedule_deterministic.py::test_same_kernel_same_source_in_two_fresh_processes",
        # a fresh interpreter, like the pyasc files above; test_vadd-sim0 stays
        "tests/test_pyasc_reference.py::test_softmax_without_a_temp_buffer_or_a_tpipe_is_refused_as_the_vendor_refuses_it",
    ),
}
# a parameter naming a backend that compiles the emitted source
_COMPILED_BACKEND = re.compile(r"[\[-](cpp|cpu_debug)\d*[\]-]")     # pytest numbers repeated ids: cpp0, cpp1
# a test whose name says it compiles (test_..._cpp_equals_sim, test_cpp_runs_..., ..._real_headers)
_COMPILING_NAME = re.compile(r"::[^\[]*(cpp|cpu_debug|real_headers)")


def pytest_sessionfinish(session, exitstatus):
    if _OWN_CACHE and not hasattr(session.config, "workerinput"):
        shutil.rmtree(os.environ["ASC_TRACE_CACHE_DIR"], ignore_errors=True)


def lane_markers(nodeid: str) -> list[str]:
    """The fast-lane markers the tables above give a test."""
    names = [name for name, patterns in MARKED.items()
             if any(fnmatch.fnmatchcase(nodeid, p.replace("[", "[[]")) for p in patterns)]
    if (_COMPILED_BACKEND.search(nodeid) or _COMPILING_NAME.search(nodeid)) and "toolchain" not in names:
        names.append("toolchain")
    return names


# a test skipped without the vendor's headers compiles against them with g++ when they are there (cpu_debug, the
# header checks): `toolchain`, so the fast lane is the same run on a machine with the headers as on one without
_NEEDS_HEADERS = ("Ascend C headers", "CANN 8.1")


def _needs_headers(item) -> bool:
    return any(any(k in str(m.kwargs.get("reason", "")) for k in _NEEDS_HEADERS) for m in item.iter_markers("skipif"))


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = lane_markers(item.nodeid)
        if "toolchain" not in names and _needs_headers(item):
            names.append("toolchain")
        for name in names:
            item.add_marker(getattr(pytest.mark, name))
    if config.getoption("--runtime") == "npu":
        return
    skip = pytest.mark.skip(reason="needs an Ascend NPU: run with --runtime=npu")
    for item in items:
        if "npu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")
