"""Every command and Python example in the docs runs as written, so the docs cannot go stale.

The fenced `bash` and `python` blocks of README.md, docs/ and benchmarks/README.md run in a fresh folder, one folder
per page and the page's blocks in order (a later block may read what an earlier one wrote): an `attnviz …` or
`python -m attnviz …` line through `attnviz.cli.main` in this process (exit code 0, and its `-o` output written), any
other shell line through bash, a Python block by `exec`. A block marked just above its fence with
`<!-- not-run: REASON -->` is not run, and every command in it must show that REASON (see `REASONS`), so that no
runnable command hides behind a marker.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from attnviz.cli import main
from tests.support import needs

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [REPO / "README.md", REPO / "benchmarks" / "README.md", *(REPO / "docs").rglob("*.md")],
    key=lambda path: path.relative_to(REPO).as_posix(),
)
SHELLS = ("bash", "sh", "shell", "console")
# Why a block is not run, and what each of its commands must then show (searched in the command, comments left out)
REASONS = {
    "server": (r"\bmake (app|serve)\b|\bstreamlit run\b", "it starts the app's server"),
    "install": (r"\bpip install\b|\bmake (test|test-fast|lint|screenshots)\b|\bapt-get\b", "it installs packages"),
    "training": (r"\btraining\.|\bsave_first_view\b", "it trains a model or rebuilds the corpus"),
    "benchmark": (r"\bbenchmarks/", "it measures for minutes"),
    "hub": (r"(--model(-b)?\s+|load_model\(\s*[\"'])[\w.-]+/[\w.-]+", "it downloads a model from the hub"),
    "npu": (r"npu|Ascend|ASCEND", "it needs an Ascend NPU"),
    "cluster": (r"--engine ray|--ray-address", "it starts or joins a Ray cluster"),
    "tests": (r"\bpytest\b", "it runs the tests"),
}
FENCE = re.compile(r"^(\s*)```\s*([\w-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*not-run:\s*([\w-]*)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    language: str  # "shell" or "python"
    code: str
    not_run: str | None  # the marker's reason, or None: the block runs

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    def commands(self) -> list[str]:
        """The shell lines, continuations joined, blank and comment-only lines left out."""
        joined = self.code.replace("\\\n", " ")
        return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def blocks_of(page: Path) -> list[Block]:
    """The shell and Python blocks of a Markdown page, each with the not-run marker just above its fence."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, at = [], 0
    while at < len(lines):
        opened = FENCE.match(lines[at])
        if not opened:
            at += 1
            continue
        indent, language = len(opened.group(1)), opened.group(2).lower()
        end = next(i for i in range(at + 1, len(lines)) if lines[i].strip() == "```")
        above = next((lines[i] for i in range(at - 1, -1, -1) if lines[i].strip()), "")
        marker = MARKER.match(above)
        kind = "shell" if language in SHELLS else "python" if language == "python" else None
        if kind:
            code = "\n".join(line[indent:] for line in lines[at + 1 : end])
            found.append(Block(page, at + 1, kind, code, marker.group(1) if marker else None))
        at = end + 1
    return found


def without_comment(command: str) -> str:
    """A shell line without its trailing `# …` comment."""
    return re.sub(r"\s+#\s.*$", "", command)


def reason_problems(block: Block) -> list[str]:
    """Why a not-run block's marker does not hold (empty when it does): an unknown reason, or a command that does
    not show it."""
    if block.not_run not in REASONS:
        return [f"{block.where}: unknown not-run reason {block.not_run!r}; use one of {', '.join(REASONS)}"]
    pattern, said = REASONS[block.not_run]
    if block.language == "python":
        return [] if re.search(pattern, block.code) else [f"{block.where}: marked {block.not_run} ({said}), but is not"]
    return [
        f"{block.where}: {command!r} is marked {block.not_run} ({said}), but does not show it"
        for command in block.commands()
        if not re.search(pattern, without_comment(command))
    ]


def attnviz_arguments(command: str) -> list[str] | None:
    """The arguments of an `attnviz …` or `python -m attnviz …` line (None for any other command)."""
    words = shlex.split(command, comments=True)
    if words[:1] == ["attnviz"]:
        return words[1:]
    if words[:3] == ["python", "-m", "attnviz"]:
        return words[3:]
    return None


def run_shell(block: Block, folder: Path, capsys) -> None:
    for command in block.commands():
        arguments = attnviz_arguments(command)
        if arguments is None:
            done = subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"{block.where}: {command}\n{done.stderr}"
            continue
        try:
            code = main(arguments)
        except SystemExit as exit_:  # argparse exits itself
            code = exit_.code
        said = capsys.readouterr()
        assert code == 0, f"{block.where}: {command}\nexit {code}\n{said.err[-2000:]}"
        for flag in ("-o", "--output"):
            if flag in arguments:
                written = folder / arguments[arguments.index(flag) + 1]
                assert written.exists(), f"{block.where}: {command} wrote no {written.name}"


def run_python(block: Block) -> None:
    exec(compile(block.code, block.where, "exec"), {"__name__": "__docs__"})  # the docs. own examples


PAGE_IDS = [page.relative_to(REPO).as_posix() for page in PAGES]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_command_and_example_of_the_page_runs(page, tmp_path, monkeypatch, capsys):
    blocks = blocks_of(page)
    problems = [problem for block in blocks if block.not_run for problem in reason_problems(block)]
    assert not problems, "\n".join(problems)
    runnable = [block for block in blocks if not block.not_run]
    if any("minilm" in block.code for block in runnable):
        needs.minilm()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # nothing the docs run may reach a model hub
    monkeypatch.chdir(tmp_path)
    for block in runnable:
        if block.language == "shell":
            run_shell(block, tmp_path, capsys)
        else:
            run_python(block)


def test_the_front_page_is_short_and_runs_its_example():
    """The README is a front page: at most ~6 KB, a picture near the top, the two commands, one Python example."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 6_500
    assert text.find("![") < text.find("## Start") < text.find("## In Python")
    blocks = blocks_of(REPO / "README.md")
    assert ["make app" in b.code for b in blocks if b.language == "shell"] == [True, False]
    assert [b.not_run for b in blocks if b.language == "shell"] == ["server", "install"]
    assert sum(b.language == "python" and not b.not_run for b in blocks) == 1


@pytest.mark.parametrize(
    "code, reason, wrong",
    [
        ("attnviz capture --model demo-zh-en --text x -o c.json", "hub", True),  # runnable: no hub model in it
        ("attnviz capture --model Qwen/Qwen2.5-7B --text x -o c.json", "hub", False),
        ("make app\nattnviz models", "server", True),  # one runnable line behind the marker is enough to refuse
        ("python -m pytest -m npu  # the NPU tests", "npu", False),
        ("attnviz devices  # on an npu", "npu", True),  # a comment does not show the reason
        ("make test", "because", True),  # an unknown reason
    ],
)
def test_a_not_run_marker_must_fit_every_command_of_its_block(code, reason, wrong):
    block = Block(REPO / "README.md", 1, "shell", code, reason)
    assert bool(reason_problems(block)) is wrong


def test_blocks_are_read_with_their_markers_and_indentation(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n<!-- not-run: server -->\n```bash\nmake app\n```\n\n1. Step:\n\n   ```bash\n   attnviz models\n"
        "   ```\n\n```python\nprint(1)\n```\n\n```text\nnot code\n```\n",
        encoding="utf-8",
    )
    found = blocks_of(page)
    assert [(b.language, b.code, b.not_run) for b in found] == [
        ("shell", "make app", "server"),
        ("shell", "attnviz models", None),
        ("python", "print(1)", None),
    ]
    assert attnviz_arguments('attnviz export --text "早上 好" -o a.png  # c') == [
        "export",
        "--text",
        "早上 好",
        "-o",
        "a.png",
    ]
    assert attnviz_arguments("python -m attnviz models") == ["models"] and attnviz_arguments("printf x") is None


LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = [
        line.lstrip("#").strip() for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("#")
    ]
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_relative_link_reaches_a_file_and_its_heading(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor}")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)
