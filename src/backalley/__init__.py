"""backalley: the reference rules engine for the card game Back Alley.

An immutable match state and a pure ``apply(state, action) -> state``: the input
is never changed, illegal actions are refused with a reason, and nothing
happens that the rules do not say. The rules are stated, with their sources, in
``docs/rules.md``.

>>> from backalley import Rules, apply, legal_actions, new_match
>>> state = new_match(Rules(schedule="short"), seed=2026)
>>> state = apply(state, legal_actions(state)[0])   # the seeded deal
>>> state.hand_size, state.phase.value
(7, 'bid')
"""

import importlib
from collections.abc import Mapping
from importlib.machinery import EXTENSION_SUFFIXES
from typing import TYPE_CHECKING, Any

from .core.actions import Action, Bid, Deal, Play
from .core.bidding import Contract, Overbid
from .core.cards import Card, Pair, Rank, Seat, Suit
from .core.dealing import DealSetup, Swap, seeded_deck
from .core.errors import IllegalAction, Reason
from .core.rules import SCHEDULES, Rules, TiePolicy
from .core.scoring import score
from .core.tricks import Trick
from .engine import match as _match
from .engine import view as _view
from .engine.display import register_svg
from .engine.match import apply, legal_actions, new_match, seeded_deal
from .engine.state import DealResult, DealState, MatchState, Outcome, Phase, Termination
from .engine.view import SeatView

if TYPE_CHECKING:
    from .engine.sampling import sample_state
    from .engine.validate import InvalidState, Invariant, validate
    from .solver import Solution, SolveError, solve

# Imported when first used (PEP 562): a program that plays matches, the protocol
# server and the fuzzer's engines among them, does not pay for the solver, the
# sampler or the validator at start-up.
_LAZY: dict[str, str] = {
    "sample_state": ".engine.sampling",
    "InvalidState": ".engine.validate",
    "Invariant": ".engine.validate",
    "validate": ".engine.validate",
    "Solution": ".solver",
    "SolveError": ".solver",
    "solve": ".solver",
}


def __getattr__(name: str) -> Any:
    """A public name imported when first used (``_LAZY``), then kept as a global."""
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'backalley' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "SCHEDULES",
    "Action",
    "Bid",
    "Card",
    "Contract",
    "Deal",
    "DealResult",
    "DealSetup",
    "DealState",
    "IllegalAction",
    "InvalidState",
    "Invariant",
    "MatchState",
    "Outcome",
    "Overbid",
    "Pair",
    "Phase",
    "Play",
    "Rank",
    "Reason",
    "Rules",
    "Seat",
    "Solution",
    "SolveError",
    "Suit",
    "Swap",
    "Termination",
    "TiePolicy",
    "Trick",
    "apply",
    "legal_actions",
    "new_match",
    "sample_state",
    "score",
    "seeded_deal",
    "seeded_deck",
    "solve",
    "validate",
]

__version__ = "0.1.0"

__compiled__: bool = (_match.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))
"""True when the rules core and the engine run compiled by mypyc (``BACKALLEY_COMPILE=1``).

The compiled build and the pure-Python one are built from the same source and
pass the same tests; ``backalley --version`` names the build that is running.
"""


# The states draw themselves in notebooks through the engine's display hook; the
# pictures sit above the engine, so they are registered from here and imported only
# when a picture is asked for (importing the package stays light).
def _deal_svg(deal: DealState) -> str:
    from .pictures.svg import deal_svg  # noqa: PLC0415 -- imported when first drawn

    return deal_svg(deal)


def _state_svg(state: MatchState) -> str:
    from .pictures.svg import state_svg  # noqa: PLC0415 -- imported when first drawn

    return state_svg(state)


register_svg(DealState, _deal_svg)
register_svg(MatchState, _state_svg)


def __dir__() -> list[str]:
    """The public names and the dunders: what ``dir(backalley)`` shows.

    The module also holds its helpers and the subpackages Python binds on import
    (``core``, ``engine``); they are reached by their import paths, not listed here.
    """
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


# A seat view writes and reads its JSON through the engine's hook; the codec sits
# above the engine, so it is registered from here and imported when first used.
def _view_to_json(seen: SeatView) -> dict[str, Any]:
    from .formats.serialize import to_json  # noqa: PLC0415 -- imported when first used

    written: dict[str, Any] = to_json(seen)
    return written


def _view_from_json(data: Mapping[str, Any]) -> SeatView:
    from .formats.serialize import from_json  # noqa: PLC0415 -- imported when first used

    read: SeatView = from_json("seat_view", data)
    return read


_view.register_json(_view_to_json, _view_from_json)
