"""``python -m backalley.protocol``: serve the engine protocol on standard input and output."""

import sys

from .server import serve

sys.exit(serve(sys.stdin.buffer, sys.stdout.buffer))
