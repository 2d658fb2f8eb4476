"""A feature whose extra is missing says so in one line, naming the extra to install."""

import importlib
import sys

import pytest

from backalley._extras import MissingExtra, require_extra


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("backalley.openspiel", "pyspiel", "openspiel"),
        ("backalley.pettingzoo", "pettingzoo", "pettingzoo"),
        ("backalley.pettingzoo", "gymnasium", "pettingzoo"),
        ("backalley.batch", "numpy", "batch"),
        ("backalley.batch", "jax", "batch"),
        ("backalley.players.learned", "numpy", "learned"),
    ],
)
def test_importing_an_adapter_without_its_framework_names_the_extra(
    monkeypatch, module, framework, extra
):
    # A None entry in sys.modules makes the framework look uninstalled.
    monkeypatch.setitem(sys.modules, framework, None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(MissingExtra) as missing:
        importlib.import_module(module)
    message = str(missing.value)
    assert message == (
        f"{module} needs the {extra!r} extra: pip install 'backalley[{extra}]' "
        f"(in a clone of the repository: pip install -e '.[{extra}]')"
    )
    assert "\n" not in message
    assert isinstance(missing.value, ImportError)
    assert missing.value.extra == extra


@pytest.mark.parametrize("framework", ["gymnasium", "pettingzoo"])
def test_the_vector_environment_without_gymnasium_names_the_pettingzoo_extra(
    monkeypatch, framework
):
    # It runs on the batch engine: with JAX there and Gymnasium not, the extra to name
    # is pettingzoo's.
    pytest.importorskip("jax")
    monkeypatch.setitem(sys.modules, framework, None)
    monkeypatch.delitem(sys.modules, "backalley.batch.vector", raising=False)
    with pytest.raises(MissingExtra) as missing:
        importlib.import_module("backalley.batch.vector")
    assert str(missing.value) == (
        "backalley.batch.vector needs the 'pettingzoo' extra: pip install 'backalley[pettingzoo]' "
        "(in a clone of the repository: pip install -e '.[pettingzoo]')"
    )


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("backalley.batch.pgx_env", "pgx", "pgx"),
        ("backalley.batch.sb3", "stable_baselines3", "rl"),
    ],
)
def test_a_batch_environment_without_its_framework_names_its_extra(
    monkeypatch, module, blocked, extra
):
    pytest.importorskip("jax")
    pytest.importorskip("gymnasium")
    monkeypatch.setitem(sys.modules, blocked, None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(MissingExtra) as missing:
        importlib.import_module(module)
    assert str(missing.value) == (
        f"{module} needs the {extra!r} extra: pip install 'backalley[{extra}]' "
        f"(in a clone of the repository: pip install -e '.[{extra}]')"
    )


def test_a_module_that_is_there_is_not_refused():
    require_extra("backalley.test", "test", ["json", "random"])


def test_the_install_commands_name_extras_the_project_declares():
    """Both commands of the message install a real extra: from the index and in a clone."""
    import tomllib  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    from backalley._extras import install_command  # noqa: PLC0415

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert project["project"]["name"] == "backalley"
    extras = project["project"]["optional-dependencies"]
    for extra in ("web", "batch", "cluster", "pettingzoo"):
        assert extra in extras
        command = install_command(extra)
        # From the index: the project's name; in a clone: the checkout itself, editable.
        assert f"pip install 'backalley[{extra}]'" in command
        assert f"pip install -e '.[{extra}]'" in command


def test_the_train_extra_brings_what_the_batch_pages_training_example_imports():
    """docs/batch.md's example imports jax, numpy and optax: the train extra has them all,
    and CI installs it through the extra, not by naming a package by hand."""
    import re  # noqa: PLC0415
    import tomllib  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    root = Path(__file__).parents[1]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]

    def brought(extra):
        names = set()
        for requirement in extras[extra]:
            name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)
            if name == "backalley":
                inner = re.search(r"\[(.*)\]", requirement).group(1)
                for other in inner.split(","):
                    names |= brought(other.strip())
            else:
                names.add(name.lower())
        return names

    page = (root / "docs" / "batch.md").read_text()
    imported = {
        name.split(".")[0]
        for name in re.findall(r"^>>> (?:import|from) ([\w.]+)", page, re.MULTILINE)
    }
    outside = {name for name in imported if name != "backalley"}
    assert {"optax", "jax"} <= outside
    assert outside <= brought("train")
    ci = (root / ".ci" / "run").read_text()
    assert "train" in re.search(r"pip install[^\n]*\[batch[^\n]*", ci).group(0)
    assert not re.search(r"pip install[^\n]*\boptax\b", ci)
