"""JSON for every value of the library: ``to_json(value)`` and ``from_json(kind, data)``.

The codec itself is :mod:`backalley.formats.codec`; this module is where these
names have always been imported from.

>>> from backalley import Contract
>>> to_json(Contract(0, 2)), from_json("action", "w board")
({'target': 0, 'multiplier': 2}, Bid(W, board))
"""

from .codec import KINDS, SerializeError, from_json, snapshot, to_json

__all__ = ["KINDS", "SerializeError", "from_json", "snapshot", "to_json"]
