"""``python -m backalley``: the same as the ``backalley`` command."""

from .cli import main

raise SystemExit(main())
