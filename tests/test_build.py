"""The two builds of one source: pure Python (the default) and compiled by mypyc.

``BACKALLEY_COMPILE=1 pip install .`` compiles the modules that pyproject.toml names
under ``[tool.hatch.build.targets.wheel.hooks.custom]``. CI runs this whole suite a
second time against that installed wheel, with ``BACKALLEY_EXPECT_COMPILED=1`` so the
run fails unless it really tests the compiled package (``tests/conftest.py``). These
tests check that the flag tells the truth, that exactly the configured modules are
compiled, and that the compiled engine agrees with the source, step by step.
"""

import ast
import base64
import doctest
import fnmatch
import importlib
import json
import os
import pickle
import pkgutil
import random
import subprocess
import sys
import tomllib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import backalley
from backalley import Rules, apply, legal_actions, new_match
from backalley._extras import MissingExtra
from backalley.cli import main
from backalley.engine.bounds import playing

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src"


def _is_compiled(module_name: str) -> bool:
    module = sys.modules[module_name]
    return (module.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))


def _configured_modules() -> set[str]:
    """The modules that pyproject.toml asks mypyc to compile, from the source tree."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    hook = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]
    names = set()
    for path in SOURCE.rglob("*.py"):
        relative = path.relative_to(ROOT).as_posix()
        included = any(fnmatch.fnmatch(relative, pattern) for pattern in hook["include"])
        # A pattern without a slash names a file anywhere, as in .gitignore.
        excluded = any(
            fnmatch.fnmatch(relative if "/" in pattern else path.name, pattern)
            for pattern in hook["exclude"]
        )
        if included and not excluded:
            names.add(".".join(path.relative_to(SOURCE).with_suffix("").parts))
    return names


def test_the_configuration_names_the_hot_path():
    """The trick rules, the bidding rules, the match flow and apply are compiled."""
    configured = _configured_modules()
    for name in ("core.tricks", "core.bidding", "core.flow", "engine.match", "engine._fast"):
        assert f"backalley.{name}" in configured


def test_exactly_the_configured_modules_are_compiled():
    """Compiled: every configured module is an extension module; pure: none is."""
    configured = _configured_modules()
    for name in configured:
        __import__(name)
    compiled = {name for name in configured if _is_compiled(name)}
    assert backalley.__compiled__ is bool(compiled)
    assert compiled == (configured if backalley.__compiled__ else set())
    # The package roots and the upper layers stay interpreted in both builds.
    for name in ("backalley", "backalley.formats.codec", "backalley.cli"):
        __import__(name)
        assert not _is_compiled(name)


def test_the_expected_build_is_under_test():
    """With BACKALLEY_EXPECT_COMPILED set, the build it names is the one imported."""
    expected = os.environ.get("BACKALLEY_EXPECT_COMPILED")
    if expected is None:
        pytest.skip("BACKALLEY_EXPECT_COMPILED is not set: any build may be under test")
    assert backalley.__compiled__ is (expected == "1")
    if backalley.__compiled__:
        # An installed wheel, not this checkout's source.
        assert not Path(backalley.__file__).resolve().is_relative_to(SOURCE)


def test_version_names_the_build(capsys):
    """``backalley --version`` says which build is running."""
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"backalley {backalley.__version__} (")
    assert ("compiled by mypyc" in out) is backalley.__compiled__
    assert ("pure Python" in out) is (not backalley.__compiled__)


# --- the compiled engine against the source, step by step ------------------------

# Plays random matches and writes down, at every step, the state's repr and its
# questions, the legal actions, and the refusal (reason and sentence) of every other
# action of the player to move; then the pickled final states. Run once here and once
# in a fresh interpreter on this checkout's source (pure Python).
TRACE = r"""
import base64, pickle, random
from backalley import Bid, Play, Rules, apply, legal_actions, new_match, IllegalAction
from backalley.core.actions import PLAYS, shared_bid
from backalley.engine.bounds import playing

def trace(games):
    lines, finals = [], []
    for schedule, tie, seed in games:
        rng = random.Random(seed)
        state = new_match(Rules(schedule=schedule, tie=tie), seed=seed)
        while playing(state):
            legal = legal_actions(state)
            lines.append(repr(state) + " " + repr((state.phase, state.to_move, state.totals,
                         state.tricks_won, state.contracts, state.current_trick, state.stock)))
            lines.append(" ".join(map(str, legal)))
            seat = state.to_move
            if seat is not None:
                tries = (*PLAYS[seat], *(shared_bid(seat, n) for n in range(14)),
                         shared_bid(seat, 0, board=True), PLAYS[(seat + 1) % 4][rng.randrange(54)])
                for action in tries:
                    if action in legal:
                        continue
                    try:
                        apply(state, action)
                    except IllegalAction as refusal:
                        lines.append(f"{action} {refusal.reason.value} {refusal}")
                    else:
                        lines.append(f"{action} ACCEPTED")
            state = apply(state, rng.choice(legal))
        lines.append(repr(state.outcome))
        finals.append(state)
    return lines, base64.b64encode(pickle.dumps(finals)).decode()
"""

GAMES = [
    ("short", "draw", 1),
    ("short", "tiebreak-deal", 2),
    ([3, 2, 1], "tiebreak-deal", 3),
    ("standard", "draw", 4),
]


def _trace_here() -> tuple[list[str], str]:
    scope: dict[str, object] = {}
    exec(TRACE, scope)
    return scope["trace"](GAMES)  # type: ignore[operator,no-any-return]


COMPILED_ONLY = pytest.mark.skipif(
    not backalley.__compiled__, reason="compares the compiled build with the source"
)


@COMPILED_ONLY
def test_compiled_engine_agrees_with_the_source_at_every_step():
    """Every state, legal set and refusal of the compiled engine equals the source's."""
    program = (
        "import json, sys, backalley\n"
        "assert not backalley.__compiled__, backalley.__file__\n"
        f"{TRACE}\n"
        f"print(json.dumps(trace({GAMES!r})))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    env.pop("BACKALLEY_EXPECT_COMPILED", None)
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=100,
    )
    assert done.returncode == 0, done.stderr
    pure_lines, pure_finals = json.loads(done.stdout)
    lines, finals = _trace_here()
    assert len(lines) == len(pure_lines)
    for step, (mine, theirs) in enumerate(zip(lines, pure_lines, strict=True)):
        assert mine == theirs, f"line {step}"
    # States pickled by one build load in the other and compare equal, hash alike.
    theirs_loaded = pickle.loads(base64.b64decode(pure_finals))
    mine_loaded = pickle.loads(base64.b64decode(finals))
    assert theirs_loaded == mine_loaded
    assert [hash(state) for state in theirs_loaded] == [hash(state) for state in mine_loaded]


def test_states_and_actions_pickle_to_equal_values():
    """Every state of a match and every action pickles and loads to an equal value."""
    rng = random.Random(5)
    state = new_match(Rules(schedule="short"), seed=5)
    while playing(state):
        loaded = pickle.loads(pickle.dumps(state))
        assert loaded == state
        assert hash(loaded) == hash(state)
        assert repr(loaded) == repr(state)
        action = rng.choice(legal_actions(state))
        assert pickle.loads(pickle.dumps(action)) == action
        state = apply(state, action)
    assert pickle.loads(pickle.dumps(state)) == state


def _docstring_examples(name: str) -> list[doctest.DocTest]:
    """The ``>>>`` examples of every docstring in a module's source, run in its namespace.

    None for a module whose optional extra (OpenSpiel, PettingZoo, ...) is not installed.
    """
    try:
        module = importlib.import_module(name)
    except MissingExtra:
        return []
    except ImportError as missing:
        if (missing.name or "backalley").partition(".")[0] == "backalley":
            raise
        return []
    # A compiled module keeps its source beside it, as ``<name>.py``.
    file = Path(module.__file__ or "")
    is_package = file.stem == "__init__" or hasattr(module, "__path__")
    path = file if is_package else file.parent / f"{name.rpartition('.')[2]}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parser = doctest.DocTestParser()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=False)
            if text and ">>>" in text:
                where = getattr(node, "name", name)
                test = parser.get_doctest(
                    text,
                    dict(vars(module)),
                    f"{name}.{where}",
                    str(path),
                    getattr(node, "lineno", 0),
                )
                found.append(test)
    return found


@COMPILED_ONLY
# The docstrings show the library's bounds (engine.bounds says 200), as its users see them.
@pytest.mark.library_bounds
def test_docstring_examples_against_the_compiled_build():
    """Every module's docstring examples pass on the compiled build.

    The default run collects them from ``src/`` (pytest's ``--doctest-modules``); this
    run tests the installed package instead, and pytest reads a module's docstrings
    from the module object, which a compiled module does not keep: so they are read
    here from the source that the wheel keeps beside each module.
    """
    names = [
        info.name
        for info in pkgutil.walk_packages(backalley.__path__, "backalley.")
        if not info.name.endswith("__main__")
    ]
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = {}
    for name in ["backalley", *names]:
        for test in _docstring_examples(name):
            result = runner.run(test)
            examples[name] = examples.get(name, 0) + result.attempted
            assert result.failed == 0, test.name
    # The compiled modules' examples ran too, not only the interpreted ones'.
    assert examples.get("backalley.engine.match", 0) > 0
    assert examples.get("backalley.core.tricks", 0) > 0
