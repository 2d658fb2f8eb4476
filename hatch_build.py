"""The build hook behind ``BACKALLEY_COMPILE=1``: the same source, compiled by mypyc.

By default a wheel (and every editable install) is pure Python, and building it
needs no C compiler. With ``BACKALLEY_COMPILE=1`` in the environment, a
(non-editable) wheel build asks for hatch-mypyc and mypy and hands the modules
named in ``[tool.hatch.build.targets.wheel.hooks.custom]`` to hatch-mypyc's own
hook, which compiles them into extension modules that sit beside the pure-Python
rest of the package. See ``docs/performance.md``, "Compiled build".
"""

from __future__ import annotations

import os
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SWITCH = "BACKALLEY_COMPILE"
"""The environment variable that asks for the compiled build."""

COMPILER_REQUIREMENTS = ["hatch-mypyc>=0.16", "mypy>=1.18"]
"""What the build needs to compile; installed by the build frontend only when asked."""


def compile_requested() -> bool:
    """Whether the environment asks for the compiled build (``1``, ``true``, ``yes``)."""
    return os.environ.get(SWITCH, "").strip().lower() in {"1", "true", "yes"}


class CompiledBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Runs hatch-mypyc's hook on the configured modules when ``BACKALLEY_COMPILE=1``."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        """The compiler's requirements when compiling (mypy also type-checks with attrs)."""
        if not compile_requested():
            return []
        return [*COMPILER_REQUIREMENTS, *self.metadata.core.dependencies]

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Compile the configured modules into the wheel being built."""
        if self.target_name != "wheel" or not compile_requested():
            return
        if version == "editable":
            # An editable install runs the source it points at; extension modules built
            # beside that source would shadow every later edit of it.
            self.app.display_warning(
                f"{SWITCH}=1 is ignored for an editable install: build a wheel "
                "(pip install . or pip wheel .) for the compiled package"
            )
            return
        from hatch_mypyc.plugin import MypycBuildHook  # noqa: PLC0415 -- only when compiling

        config = {key: value for key, value in self.config.items() if key != "path"}
        self._compiler = MypycBuildHook(
            self.root,
            config,
            self.build_config,
            self.metadata,
            self.directory,
            self.target_name,
            self.app,
        )
        self._compiler.initialize(version, build_data)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the extension modules that the compiler left in the source tree.

        They are in the wheel now; left beside the source they would shadow it for
        anyone running the checkout itself (an editable install, ``python -m pytest``).
        """
        compiler = getattr(self, "_compiler", None)
        if compiler is not None:
            compiler.clean([version])
