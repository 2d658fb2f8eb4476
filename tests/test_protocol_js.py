"""The JavaScript adapter of docs/protocol.md, run as written with Node.js, under the fuzzer.

The example's ``engine`` is ``tests/js/serve_engine.js``, which answers each call through
``backalley serve``: so the test checks the documented loop (reading, pipelining, the
order of replies, ``bye``, error replies), not an engine. Skipped without ``node``, unless
``BACKALLEY_REQUIRE_NODE=1`` (CI sets it, having installed Node.js).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from backalley.cli import main

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None and os.environ.get("BACKALLEY_REQUIRE_NODE") != "1",
    reason="needs Node.js (the system's nodejs package)",
)


def _adapter(tmp_path: Path) -> Path:
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    [example] = re.findall(r"```javascript\n(.*?)```", page, re.S)
    engine = json.dumps(str(ROOT / "tests" / "js" / "serve_engine.js"))
    script = tmp_path / "adapter.js"
    script.write_text(f"const engine = require({engine});\n{example}", encoding="utf-8")
    return script


@pytest.fixture
def adapter(tmp_path, monkeypatch):
    assert NODE is not None, "BACKALLEY_REQUIRE_NODE=1 but there is no node"
    serve = f"{shlex.quote(sys.executable)} -m backalley.protocol"
    monkeypatch.setenv("BACKALLEY_SERVE", serve)
    return f"{shlex.quote(NODE)} {shlex.quote(str(_adapter(tmp_path)))}"


def test_the_javascript_adapter_shows_no_difference(adapter, capsys):
    assert main(["fuzz", "--engine", adapter, "--matches", "8", "--seed", "5"]) == 0
    assert "no difference in 8 matches" in capsys.readouterr().out


def test_the_javascript_adapter_answers_errors_and_bye(adapter):
    requests = [
        {"type": "hello", "protocol": "backalley-protocol", "versions": [1]},
        {"type": "new_match", "rules": {"schedule": [1], "tie": "draw", "first_dealer": "N"}},
        {"type": "apply", "action": "N seven"},
        {"type": "fly"},
        {"type": "legal"},
        {"type": "bye"},
        {"type": "legal"},
    ]
    done = subprocess.run(
        shlex.split(adapter),
        input="".join(json.dumps(request) + "\n" for request in requests).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["type"] for reply in replies] == [
        "hello",
        "facts",
        "error",
        "error",
        "legal",
        "bye",
    ]
    assert replies[2]["code"] == "bad_action"
