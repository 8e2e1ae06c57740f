"""The documentation stays true: no dead links, every public name documented, the generated API
reference current, the README short, and the getting-started code runs."""
from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import asc_trace as asc

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]{2,}|`", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    found = {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}
    return found | set(re.findall(r'<a id="([^"]+)"></a>', text))


def _links(page: Path) -> list[str]:
    """Link targets outside code blocks and code spans (a signature's `[...](...)` is no link)."""
    text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", page.read_text()))
    return LINK.findall(text)


def _python_blocks(page: Path) -> list[tuple[int, str]]:
    """(first line number, code) of each python block: the code is compiled at its real lines of the
    page, so the tracer's source lookup (linecache) reads the kernel's own lines."""
    text = page.read_text()
    return [(text.count("\n", 0, m.start(2)) + 1, m.group(2)) for m in FENCE.finditer(text) if m.group(1) == "python"]


def _run_blocks(page: Path) -> str:
    out = io.StringIO()
    namespace: dict = {"__name__": page.stem}
    with contextlib.redirect_stdout(out):
        for first, code in _python_blocks(page):
            exec(compile("\n" * (first - 1) + code, str(page), "exec"), namespace)
    return out.getvalue()


def test_slug_follows_githubs_rule() -> None:
    assert _slug("The vendor's compiler as a second judge") == "the-vendors-compiler-as-a-second-judge"
    assert _slug("printf and dump_tensor on the device") == "printf-and-dump_tensor-on-the-device"
    assert _slug("The timing model: leave-one-out validation") == "the-timing-model-leave-one-out-validation"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_dead_relative_links(page: Path) -> None:
    dead = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target):          # http:, https:, mailto: are not checked offline
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            dead.append(f"{target}: no file {dest}")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            dead.append(f"{target}: no heading or anchor #{anchor} in {dest.name}")
    assert not dead, f"dead links in {page.name}:\n" + "\n".join(dead)


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# Title\n\n[a](missing.md) [b](#title) [c](#nowhere) `[d](code.md)`\n")
    assert _links(page) == ["missing.md", "#title", "#nowhere"]
    assert "nowhere" not in _anchors(page) and "title" in _anchors(page)


def test_every_public_name_is_in_the_api_reference() -> None:
    text = (DOCS / "api-reference.md").read_text()
    headed = set(re.findall(r"^### asc\.(\w+)$", text, re.M))
    in_tables = set(re.findall(r"`asc\.(\w+)`", text))
    missing = [n for n in [*asc.__all__, "range"] if n not in headed | in_tables]
    assert not missing, f"public names without an entry in docs/api-reference.md: {missing}"


def test_api_reference_is_current() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_api_docs.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr + "\nrun: python tools/gen_api_docs.py"


def test_readme_is_short_and_starts_with_the_setup_commands() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250; move detail into docs/)"
    head = "\n".join(lines[:5])
    assert "make demo" in head and "make test" in head
    # CI runs the README's test command (.ci/run): keep the two in step.
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_getting_started_code_runs_on_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASC_TRACE_BACKEND", "sim")
    assert len(_python_blocks(DOCS / "getting-started.md")) >= 2
    printed = _run_blocks(DOCS / "getting-started.md")
    assert "RaceError" in printed               # the auto_sync=False block reaches its race
    assert "auto_sync" in printed               # the scheduled graph's summary line


def test_readme_tour_runs_on_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASC_TRACE_BACKEND", "sim")
    assert _python_blocks(ROOT / "README.md"), "the README's tour has no python block"
    printed = _run_blocks(ROOT / "README.md")
    assert "set_flag" in printed and "total:" in printed


# The members DESIGN.md's public API contract names (tests and users rely on them).
CONTRACT_MEMBERS = {
    "GlobalTensor": ["set_global_buffer"],
    "TPipe": ["init_buffer"],
    "TQue": ["alloc_tensor", "enque", "deque", "free_tensor", "allocTensor", "enQue", "deQue", "freeTensor"],
    "TBuf": ["get"],
    "DataType": ["sizeof"],
    "Profile": ["cycles", "time_us", "pipe_busy", "summary", "save_chrome_trace"],
    "CompiledKernel": ["graph", "source"],
    "KernelGraph": ["nx"],
    "Autotuner": ["best_config", "timings"],
}


def _section(text: str, name: str) -> str:
    match = re.search(rf"^### asc\.{name}\n(.*?)(?=^#{{2,3}} )", text, re.S | re.M)
    return match.group(1) if match else ""


@pytest.mark.parametrize("cls", sorted(CONTRACT_MEMBERS))
def test_contract_members_are_documented(cls: str) -> None:
    section = _section((DOCS / "api-reference.md").read_text(), cls)
    assert section, f"no entry for asc.{cls}"
    missing = [m for m in CONTRACT_MEMBERS[cls]
               if not re.search(rf"`\.?{m}\b|^- {m}:|\.{m}\b", section, re.M)]
    assert not missing, f"asc.{cls}: members of the public contract not in its entry: {missing}"
