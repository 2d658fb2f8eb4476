"""A griffe extension for the API pages: doctest examples in docstrings become code blocks.

The docstrings carry runnable ``>>>`` examples in plain reST-like text, which
Markdown would otherwise run together into a paragraph (and read ``[...]``
output as links). This wraps each run of doctest lines, with its output, in a
fenced ``pycon`` block when the documentation is built. Only ``mkdocs.yml``
uses it; it is not part of the package.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """The docstring text with every doctest example (prompt lines and output) fenced."""
    out: list[str] = []
    in_example = False
    for line in text.split("\n"):
        starts = line.lstrip().startswith(">>>")
        if starts and not in_example:
            out.append("```pycon")
            in_example = True
        elif in_example and not line.strip():
            out.append("```")
            in_example = False
        out.append(line)
    if in_example:
        out.append("```")
    return "\n".join(out)


def _fence_all(obj: griffe.Object) -> None:
    text = obj.docstring.value if obj.docstring is not None else ""
    if obj.docstring is not None and ">>>" in text and "```pycon" not in text:
        obj.docstring.value = fence_doctests(text)
    for member in obj.members.values():
        if not member.is_alias:
            _fence_all(member)  # type: ignore[arg-type]


class DoctestBlocks(griffe.Extension):
    """Fence the doctest examples of every docstring of a loaded package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Rewrite the docstrings of the package and everything in it."""
        del kwargs
        _fence_all(pkg)
