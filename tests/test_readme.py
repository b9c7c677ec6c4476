"""The README's tour, executed: every transcript in it is run and must print what the README shows.

Convention (README.md's fenced blocks):
- a line `$ COMMAND` is a shell command, run with bash in a copy of the checkout's tracked files
  (so `examples/...` and `scripts/...` are there) with this environment's `opensysml-kernel` on
  PATH; the lines after it, up to the next `$ ` line or the closing fence, are what it prints
  (stdout and stderr together). `echo $?` sees the exit status of the command before it.
- `$ opensysml-kernel repl FILE...` followed by `sysml> ` lines, or a block that opens with
  `sysml> `, is a REPL session: the text after `sysml> ` (and after `  ...  ` on continuation lines)
  is typed, and the other lines are what the REPL prints.
- a line `...` stands for any lines (none included); `...` inside a line for any text (times).
Blocks of notebook cells (`%` lines without a prompt) are the notebooks' own, run by nbval; the
set-up block's `bash scripts/test.sh` is what CI runs, so it is not run again from inside the tests.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from opensysml_kernel.repl import BANNER, Repl

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PROMPT = "sysml> "
CONTINUATION = "  ...  "
MARK = "\x1eREADME-COMMAND-ENDS\x1e"


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Transcript:
    line: int
    kind: str  # "shell" or "repl"
    steps: tuple[Step, ...]
    files: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"README.md:{self.line}"


def _blocks(text: str) -> list[tuple[int, list[str]]]:
    blocks: list[tuple[int, list[str]]] = []
    lines = text.splitlines()
    start: int | None = None
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            if start is None:
                start = number
            else:
                blocks.append((start + 1, lines[start:number - 1]))
                start = None
    return blocks


def _repl_steps(lines: list[str]) -> tuple[Step, ...]:
    """Each entry typed at the prompt (with its continuation lines) and what follows it."""
    steps: list[tuple[list[str], list[str]]] = []
    for line in lines:
        if line.startswith(PROMPT):
            steps.append(([line[len(PROMPT):]], []))
        elif line.startswith(CONTINUATION) and steps and not steps[-1][1]:
            steps[-1][0].append(line[len(CONTINUATION):])
        elif steps:
            steps[-1][1].append(line)
        else:
            steps.append(([], [line]))  # the banner, before any prompt
    return tuple(Step("\n".join(typed), tuple(shown)) for typed, shown in steps)


def transcripts(text: str) -> list[Transcript]:
    found: list[Transcript] = []
    for line, block in _blocks(text):
        if block and block[0].startswith(PROMPT):
            found.append(Transcript(line, "repl", _repl_steps(block)))
            continue
        if not any(b.startswith("$ ") for b in block):
            continue
        first = next(i for i, b in enumerate(block) if b.startswith("$ "))
        assert first == 0, f"README.md:{line}: text before the first `$` line of a shell block"
        command = shlex.split(block[0][2:])
        if command[:2] == ["opensysml-kernel", "repl"]:
            assert not any(b.startswith("$ ") for b in block[1:]), f"README.md:{line}: a REPL block has one `$`"
            found.append(Transcript(line, "repl", _repl_steps(block[1:]), tuple(command[2:])))
            continue
        steps: list[Step] = []
        for b in block:
            if b.startswith("$ "):
                steps.append(Step(b[2:], ()))
            else:
                steps[-1] = Step(steps[-1].command, (*steps[-1].expected, b))
        found.append(Transcript(line, "shell", tuple(steps)))
    return found


def _pattern(line: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in line.rstrip().split("...")) + r"\Z")


def matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """Whether the printed lines are the expected ones, `...` lines standing for any run of lines."""
    actual = [a.rstrip() for a in actual]
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head.strip() == "...":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and bool(_pattern(head).match(actual[0])) and matches(rest, actual[1:])


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.update(HOME=str(home), PYTHONUNBUFFERED="1", OPENSYSML_KERNEL_DETERMINISTIC="1", COLUMNS="200",
               PATH=os.pathsep.join((str(Path(sys.executable).parent), env.get("PATH", ""))))
    return env


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tracked files of the checkout (and the examples as they are now), without .venv or caches."""
    copy = tmp_path_factory.mktemp("readme") / "opensysml-kernel"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=False)
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 else []
    if not names:  # not a git checkout (an sdist): what the README needs
        names = [str(p.relative_to(ROOT)) for d in ("examples", "scripts", "notebooks") for p in (ROOT / d).rglob("*")
                 if p.is_file()]
    for name in names:
        source = ROOT / name
        if source.is_file():
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(source.stat().st_mode)
    return copy


README_TRANSCRIPTS = transcripts(README.read_text(encoding="utf-8"))


def test_the_readme_has_a_tour_to_run() -> None:
    kinds = [t.kind for t in README_TRANSCRIPTS]
    assert kinds.count("shell") >= 3 and kinds.count("repl") >= 1
    for transcript in README_TRANSCRIPTS:
        for step in transcript.steps:
            for word in re.findall(r"\b(?:examples|scripts)/[\w./-]+", step.command):
                assert (ROOT / word).exists(), f"{transcript.name}: {step.command!r} names {word}, not shipped"


def _run_shell(transcript: Transcript, where: Path, home: Path) -> list[list[str]]:
    script = ["set +e"]
    for step in transcript.steps:
        script += [f"{step.command} 2>&1", "__status=$?", f"printf '%s\\n' '{MARK}'", "(exit $__status)"]
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=where, env=_environment(home),
                          capture_output=True, text=True, timeout=240, check=False)
    printed = done.stdout.split(MARK + "\n")
    assert len(printed) == len(transcript.steps) + 1, done.stdout + done.stderr
    return [chunk.splitlines() for chunk in printed[:-1]]


def _run_repl(transcript: Transcript, where: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The whole session's printed lines (the prompts and the typed text are not printed)."""
    monkeypatch.chdir(where)
    for name, value in _environment(home).items():
        monkeypatch.setenv(name, value)
    buffer = io.StringIO()
    repl = Repl(console=Console(file=buffer, width=200, color_system=None, highlight=False))
    if transcript.files:
        repl.session.load(list(transcript.files))
    with create_pipe_input() as pipe:
        for step in transcript.steps:
            if step.command:
                pipe.send_text(step.command.replace("\n", "\r") + "\r")
        pipe.send_text("\x04")
        repl.loop(repl.prompt_session(input=pipe, output=DummyOutput()))
    printed = buffer.getvalue().splitlines()
    shown = [line for step in transcript.steps for line in step.expected]
    if printed[:1] == [BANNER] and shown[:1] != [BANNER]:
        printed = printed[1:]  # a block that opens at the prompt does not show the banner
    return printed


@pytest.mark.parametrize("transcript", README_TRANSCRIPTS, ids=lambda t: t.name)
def test_readme_transcript(transcript: Transcript, checkout: Path, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    if transcript.kind == "shell":
        for step, printed in zip(transcript.steps, _run_shell(transcript, checkout, tmp_path), strict=True):
            assert matches(step.expected, printed), (
                f"{transcript.name}: `$ {step.command}` printed\n" + "\n".join(printed)
                + "\nwhere the README shows\n" + "\n".join(step.expected))
        return
    printed = _run_repl(transcript, checkout, tmp_path, monkeypatch)
    expected = tuple(line for step in transcript.steps for line in step.expected)
    assert matches(expected, printed), (
        f"{transcript.name}: the REPL printed\n" + "\n".join(printed)
        + "\nwhere the README shows\n" + "\n".join(expected))


def test_matching_lines_and_ellipses() -> None:
    assert matches(("a", "...", "d"), ["a", "b", "c", "d"])
    assert matches(("a", "...", "d"), ["a", "d"])
    assert matches(("checked in ... s",), ["checked in 0.21 s"])
    assert not matches(("a",), ["b"])
    assert not matches(("a",), ["a", "an extra line"])
    assert not matches(("a", "b"), ["a"])
    assert not matches(("1 ... 3",), ["1 2 4"])


def test_transcripts_are_read_as_the_convention_says() -> None:
    text = "\n".join([
        "```", "$ opensysml-kernel run m.sysml --action A", "✓ done", "$ echo $?", "0", "```",
        "```", "sysml> package p {", "  ...      action a;", "  ...  }", "declared action p::a", "```",
        "```", "%engine check", "```",
    ])
    shell, repl = transcripts(text)
    assert shell.steps == (Step("opensysml-kernel run m.sysml --action A", ("✓ done",)), Step("echo $?", ("0",)))
    assert repl.kind == "repl"
    assert repl.steps == (Step("package p {\n    action a;\n}", ("declared action p::a",)),)
