"""Game records: a match or a deal as a documented JSON value, the PGN of Back Alley.

A record names the rules, the match seed and, deal by deal, the deck it was
dealt from, the bids and the cards played, in order. It may also carry what the
program that wrote it claims the scores were, which
:func:`backalley.formats.checking.check` recomputes. The format is described in
``docs/records.md`` and by the JSON Schema ``schemas/record.schema.json``
shipped in this package.

A record that stops early (mid-deal, mid-trick, between deals) is valid: it
describes a position, not a finished match. Replaying and checking records is
:mod:`backalley.formats.checking`.

>>> from backalley import Rules, new_match, apply, legal_actions
>>> state = new_match(Rules(schedule=[1]), seed=7)
>>> while not state.is_over:
...     state = apply(state, legal_actions(state)[-1])
>>> record = record_from_state(state)
>>> record.deals[0].bids, [card.code for card in record.deals[0].plays]
(('board', 'board', 'board', 'board'), ['4H', 'JS', 'AD', '3H'])
>>> from backalley.formats.checking import replay
>>> replay(loads(dumps(record))) == state
True
"""

from __future__ import annotations

from ..core.cards import Card
from ..core.dealing import seeded_deck
from ..core.rules import Rules
from ..engine.state import MatchState

# The record's data and its JSON live in the codec; they are re-exported here, where
# they have always been imported from.
from .codec._base import RecordError
from .codec.record import (
    CALL_PATTERN,
    FORMAT,
    MAX_RECORD_BYTES,
    VERSION,
    ClaimedResult,
    Record,
    RecordDeal,
    dumps,
    loads,
    parse_record,
    record_to_json,
)
from .codec.values import rules_from_json, rules_to_json

__all__ = [
    "CALL_PATTERN",
    "FORMAT",
    "MAX_RECORD_BYTES",
    "VERSION",
    "ClaimedResult",
    "Record",
    "RecordDeal",
    "RecordError",
    "deal_record",
    "dumps",
    "loads",
    "parse_record",
    "record_from_state",
    "record_to_json",
    "rules_from_json",
    "rules_to_json",
]


def record_from_state(
    state: MatchState,
    *,
    decks: str = "auto",
    claims: bool = True,
    tags: dict[str, str] | None = None,
) -> Record:
    """The record of everything played to reach ``state`` (finished or not).

    ``decks`` is ``"auto"`` (write ``"seed"`` for a deck the seed prescribes,
    else the cards), ``"explicit"`` (always the cards) or ``"seed"`` (refuse a
    deck the seed does not give). With ``claims`` the record carries the scores,
    totals and result the library computes.
    """
    if decks not in ("auto", "explicit", "seed"):
        raise ValueError(f"decks is 'auto', 'explicit' or 'seed', not {decks!r}")
    finished = [(result.deal, result.scores) for result in state.history]
    in_progress = [] if state.deal is None else [(state.deal, None)]
    deals = []
    for deal_state, scores in (*finished, *in_progress):
        setup = deal_state.setup
        deck: tuple[Card, ...] | None = setup.deck
        if decks != "explicit" and setup.deck == seeded_deck(state.seed, setup.number):
            deck = None
        elif decks == "seed":
            raise ValueError(f"deal {setup.number + 1} was not dealt from the seed's deck")
        plays = [card for trick in deal_state.tricks for card in trick.cards]
        current = deal_state.current_trick
        if current is not None:
            plays.extend(current.cards)
        deals.append(
            RecordDeal(
                deck,
                tuple(bid.call for bid in deal_state.bids),
                tuple(plays),
                scores if claims else None,
            )
        )
    result = None
    if claims and state.outcome is not None:
        result = ClaimedResult(state.outcome.termination, state.outcome.winner)
    return Record(
        state.rules,
        state.seed,
        tuple(deals),
        state.totals if claims else None,
        result,
        tuple((tags or {}).items()),
    )


def deal_record(state: MatchState, number: int) -> Record:
    """A finished deal of a match on its own, as the record of a one-deal match.

    The rules keep the tie policy, with the deal's hand size as the whole schedule
    and its dealer as the first dealer; the deck is written card by card (the
    seed would give another deck at deal number 0) and the deal's score is
    claimed. A tiebreak deal has no bidding, which a one-deal match cannot
    reproduce, so it is refused.
    """
    if not 0 <= number < len(state.history):
        raise ValueError(f"the match has {len(state.history)} finished deals; no deal {number}")
    result = state.history[number]
    deal_state = result.deal
    setup = deal_state.setup
    if setup.tiebreak:
        raise ValueError("a tiebreak deal has no bidding and cannot stand alone as a match")
    plays = tuple(card for trick in deal_state.tricks for card in trick.cards)
    rules = Rules(schedule=[setup.hand_size], tie=state.rules.tie, first_dealer=setup.dealer)
    calls = tuple(bid.call for bid in deal_state.bids)
    return Record(
        rules,
        state.seed,
        (RecordDeal(setup.deck, calls, plays, result.scores),),
        tags=(("deal", f"deal {number + 1} of a match with seed {state.seed}"),),
    )
