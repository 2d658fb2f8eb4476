"""Compact text renderings of cards, hands, tricks and states, for terminals and messages.

Suits are drawn with their symbols and trumps are named in words, so that colour
is never the only clue. Hands list suits in a fixed order (spades, hearts,
diamonds, clubs, trumps marked with ``*``) and jokers by name.

>>> from backalley.core.cards import Card, Suit
>>> hand_text([Card.H5, Card.HK, Card.S9, Card.C2, Card.BIG], Suit.HEARTS)
'♠ 9  *♥ K 5  ♣ 2  BIG'
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.cards import Card, Suit
from ..core.flow import thrown_in
from ..core.tricks import Trick
from ..engine.state import DealState, MatchState
from .prose import deal_heading

__all__ = ["deal_text", "hand_text", "state_text", "trick_text"]

_SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)


def hand_text(cards: Iterable[Card], trump: Suit | None = None) -> str:
    """A hand on one line: suits high card first, the trump suit marked ``*``, jokers last."""
    held = sorted(cards, reverse=True)
    groups = []
    for suit in _SUIT_ORDER:
        ranks = [card.code[:-1] for card in held if card.suit is suit]
        if ranks:
            mark = "*" if suit is trump else ""
            groups.append(f"{mark}{suit.symbol} {' '.join(ranks)}")
    groups.extend(card.name for card in held if card.is_joker)
    return "  ".join(groups) if groups else "(no cards)"


def trick_text(trick: Trick) -> str:
    """A trick as seat and card pairs, with the winner once it is complete."""
    plays = "  ".join(f"{seat} {card.symbol}" for seat, card in trick.plays)
    if trick.winner is not None:
        return f"{plays}  -> {trick.winner} wins"
    return plays or f"{trick.leader} to lead"


def deal_text(deal: DealState, *, show_hands: bool = True) -> str:
    """The deal in progress: dealer, trump, bids, contracts, tricks and (optionally) the hands."""
    setup = deal.setup
    lines = [deal_heading(setup)]
    if deal.bids:
        lines.append("Bids: " + ", ".join(str(bid) for bid in deal.bids))
    contracts = deal.contracts
    ns, ew = deal.tricks_won
    if thrown_in(deal.bids):
        lines.append("All four passed: thrown in, no score")
    elif contracts is not None:
        lines.append(f"Targets: NS {contracts[0]} (won {ns}), EW {contracts[1]} (won {ew})")
    elif setup.tiebreak:
        lines.append(f"Tricks: NS {ns}, EW {ew}")
    if deal.tricks:
        lines.append(f"Last trick: {trick_text(deal.tricks[-1])}")
    current = deal.current_trick
    if current is not None and current.cards:
        lines.append(f"This trick: {trick_text(current)}")
    if show_hands:
        lines.extend(
            f"  {seat}: {hand_text(deal.hand(seat), setup.trump)}"
            for seat in (setup.dealer.after(k) for k in range(1, 5))
        )
    return "\n".join(lines)


def state_text(state: MatchState, *, show_hands: bool = True) -> str:
    """A match at one moment: totals, the deal in progress and whose turn it is."""
    ns, ew = state.totals
    counted = min(state.counted_deals + (state.deal is not None), state.rules.deals)
    head = f"Deal {counted} of {state.rules.deals}; totals NS {ns}, EW {ew}"
    lines = [head]
    if state.deal is not None:
        lines.append(deal_text(state.deal, show_hands=show_hands))
    if state.outcome is not None:
        winner = state.outcome.winner
        lines.append("Match over: " + ("a draw" if winner is None else f"{winner} win"))
    elif state.to_move is None:
        lines.append("Next: the deal")
    else:
        lines.append(f"{state.to_move.name.title()} to {state.phase.value}")
    return "\n".join(lines)
