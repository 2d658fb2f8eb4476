"""The compact position: a match in progress as one small immutable tuple of ints.

Everything the rules need to go on from a moment of a match, and nothing else:
the hands as 54-bit card masks, the trick in progress, the bids as codes, the
leader, whether trumps are broken, the tricks each pair has taken, the cards of
the completed tricks, the deal counts, the totals and the outcome. One function
changes it per kind of action (:func:`deal`, :func:`bid`, :func:`play`); the
legality functions read it (:func:`legal_bids`, :func:`allowed`); and
:func:`to_move` asks ``flow.seat_to_move``, the one answer to whose turn it is.

The rules themselves stay in their homes: who bids and plays next in
``core.flow``, the allowed cards in ``core.tricks`` (and ``core.jokers``), the
trick winner in ``core.tricks.winning_card``, contracts and the opening lead in
``core.bidding``, points in ``core.scoring``. This module only applies them to
plain ints, so that a position costs one tuple per action
(``docs/architecture.md``, "The compact position", says why a tuple, with figures).

A position's fields, by index (the names below are the indices):

| index | what it holds |
|---|---|
| `PHASE` | `DEAL`, `BID`, `PLAY` or `OVER` |
| `DEALER` | the dealer of the deal in progress, or of the last deal between deals |
| `SIZE` | the hand size of that deal (and so its number of tricks) |
| `TRUMPS` | its trump mask: the trump suit and both jokers; 0 without trumps |
| `TIEBREAK` | whether it is a tiebreak deal (no bidding) |
| `HANDS` | the four hands as card masks, indexed by seat |
| `TRICK` | the cards of the trick in progress, in play order |
| `LEADER` | the seat leading the trick in progress; -1 while bidding |
| `BIDS` | the bids said, in circuit order, as codes (`bidding.BOARD` for Board) |
| `BROKEN` | whether a trump or joker was played to a completed trick of the deal |
| `WON_NS`, `WON_EW` | completed tricks taken by each pair in the deal |
| `PLAYED` | the cards of the deal's completed tricks, four a trick, in play order |
| `NUMBER` | finished deals of the match, every deal counted (the next deal's number) |
| `COUNTED` | finished deals that count towards the schedule (MATCH-4) |
| `TOTAL_NS`, `TOTAL_EW` | the running totals |
| `OUTCOME` | `GOING_ON`, or how the match ended (`SCORE_NS` ... `TIEBREAK_EW`) |
| `RULES` | the match's `Rules` |

After the last card of a deal (or the fourth pass) the deal's fields stay as they
were until the next :func:`deal`, so the finished deal can still be read (its
tricks per pair, its bids); ``PHASE`` says DEAL (or OVER) and ``NUMBER`` has moved on.

None of these functions checks its input: ``engine.match.apply`` checks an action
(whose turn, the bid in range, the card held and allowed) before it calls them.

>>> from backalley.core.dealing import deal_hands, seeded_deck
>>> from backalley.core.rules import Rules
>>> pos = start(Rules(schedule=[2]))
>>> number, dealer, size, tiebreak = next_deal(pos)
>>> setup = deal_hands(seeded_deck(7, number), dealer=dealer, hand_size=size)
>>> pos = deal(pos, setup.hands, setup.trumps)
>>> to_move(pos), legal_bids(pos)
(1, (0, 1, 13))
>>> for code in (1, 0, 0, 0):
...     pos = bid(pos, code)
>>> pos[PHASE] == PLAY, to_move(pos)
(True, 1)
"""

from __future__ import annotations

from typing import Any, Final

from .bidding import BOARD, contract_terms, opening_seat
from .errors import Reason
from .flow import (
    CLOCKWISE,
    dealer_of_deal,
    hand_size_of_deal,
    in_tiebreak,
    seat_to_move,
    thrown_in_codes,
)
from .rules import Rules, TiePolicy
from .scoring import score_terms
from .tricks import FOLLOWERS, allowed_plays, winning_card

__all__ = [
    "BID",
    "BIDS",
    "BROKEN",
    "COUNTED",
    "DEAL",
    "DEALER",
    "DRAW",
    "GOING_ON",
    "HANDS",
    "LEADER",
    "NUMBER",
    "OUTCOME",
    "OVER",
    "PHASE",
    "PLAY",
    "PLAYED",
    "RULES",
    "SCORE_EW",
    "SCORE_NS",
    "SIZE",
    "TIEBREAK",
    "TIEBREAK_EW",
    "TIEBREAK_NS",
    "TOTAL_EW",
    "TOTAL_NS",
    "TRICK",
    "TRUMPS",
    "WON_EW",
    "WON_NS",
    "Hands",
    "Position",
    "allowed",
    "allowed_and_reason",
    "allowed_of",
    "bid",
    "boards",
    "contracts_of",
    "deal",
    "deal_scores",
    "dealt",
    "legal_bids",
    "next_deal",
    "play",
    "play_by",
    "play_if_allowed",
    "player_if_allowed",
    "start",
    "to_move",
    "trick_winner",
    "tricks_won",
]

Hands = tuple[int, ...]
"""The four hands as card masks, indexed by seat.

Always four, but typed as a tuple of any length for the compiled build: mypyc keeps a
tuple of fixed length as a C struct of unboxed ints, and reading one hand of it by a
seat known only at run time (``hands[seat]``) builds a new tuple of four new ints to
index; a tuple of any length stays the object it is (``docs/performance.md``,
"Fourth round").
"""

Position = tuple[
    int,  # PHASE
    int,  # DEALER
    int,  # SIZE
    int,  # TRUMPS
    bool,  # TIEBREAK
    Hands,  # HANDS
    tuple[int, ...],  # TRICK
    int,  # LEADER
    tuple[int, ...],  # BIDS
    bool,  # BROKEN
    int,  # WON_NS
    int,  # WON_EW
    tuple[int, ...],  # PLAYED
    int,  # NUMBER
    int,  # COUNTED
    int,  # TOTAL_NS
    int,  # TOTAL_EW
    int,  # OUTCOME
    Rules,  # RULES
]
"""The type of a position: see the table in the module's docstring."""

PHASE: Final = 0
DEALER: Final = 1
SIZE: Final = 2
TRUMPS: Final = 3
TIEBREAK: Final = 4
HANDS: Final = 5
TRICK: Final = 6
LEADER: Final = 7
BIDS: Final = 8
BROKEN: Final = 9
WON_NS: Final = 10
WON_EW: Final = 11
PLAYED: Final = 12
NUMBER: Final = 13
COUNTED: Final = 14
TOTAL_NS: Final = 15
TOTAL_EW: Final = 16
OUTCOME: Final = 17
RULES: Final = 18

DEAL: Final = 0
"""Phase: a chance step, the next deal is to be dealt."""
BID: Final = 1
"""Phase: the circuit of bids is under way."""
PLAY: Final = 2
"""Phase: the cards are being played."""
OVER: Final = 3
"""Phase: the match has ended."""

GOING_ON: Final = -1
"""Outcome: the match goes on."""
SCORE_NS: Final = 0
"""Outcome: North-South had the higher total after the schedule (END-1)."""
SCORE_EW: Final = 1
"""Outcome: East-West had the higher total after the schedule (END-1)."""
DRAW: Final = 2
"""Outcome: equal totals under the ``draw`` tie policy (END-2)."""
TIEBREAK_NS: Final = 3
"""Outcome: North-South took more tricks in a tiebreak deal (END-3)."""
TIEBREAK_EW: Final = 4
"""Outcome: East-West took more tricks in a tiebreak deal (END-3)."""

_NO_HANDS: Final[Hands] = (0, 0, 0, 0)
_NO_TRICK: Final[tuple[int, ...]] = ()

_AROUND: Final = tuple(int(seat) for seat in CLOCKWISE)
"""``flow.CLOCKWISE`` as plain ints: ``_AROUND[seat + steps]``, the seat ``steps`` places on."""

_LEGAL_BIDS: Final = tuple((*range(size), BOARD) for size in range(14))
"""``_LEGAL_BIDS[hand size]``: Pass, 1 .. hand size - 1, Board, as codes (BID-2)."""


def start(rules: Rules) -> Position:
    """The position of a match about to be dealt its first deal."""
    return (DEAL, 0, 0, 0, False, _NO_HANDS, (), -1, (), False, 0, 0, (), 0, 0, 0, 0, -1, rules)


def to_move(pos: Position) -> int:
    """The seat to bid or play, or -1 at a chance step and after the match.

    ``flow.seat_to_move``, the one answer to whose turn it is (BID-1, PLAY-1), asked
    with the position's dealer, bids, leader and trick, as a plain int.
    """
    phase = pos[0]  # PHASE
    if phase in (PLAY, BID):
        # DEALER, BIDS, LEADER, TRICK
        return int(seat_to_move(pos[1], len(pos[8]), pos[7], len(pos[6])))
    return -1


def next_deal(pos: Position) -> tuple[int, int, int, bool]:
    """The next deal's number, dealer, hand size and whether it is a tiebreak deal.

    What the dealing needs (``dealing.deal_hands``): the deal passes clockwise after
    every deal (MATCH-2), the schedule gives the size, and after the schedule a
    tiebreak deal is dealt at its largest size (END-3); all from ``core.flow``.
    """
    rules = pos[18]  # RULES
    counted = pos[14]  # COUNTED
    number = pos[13]  # NUMBER
    return (
        number,
        int(dealer_of_deal(rules, number)),
        hand_size_of_deal(rules, counted),
        in_tiebreak(rules, counted),
    )


def deal(pos: Position, hands: Hands, trumps: int) -> Position:
    """The position after the next deal is dealt: ``hands`` held, ``trumps`` the trump mask.

    The hands must have been dealt as :func:`next_deal` says. A tiebreak deal has
    no bidding: the player left of the dealer leads at once.
    """
    number, dealer, size, tiebreak = next_deal(pos)
    return dealt(pos, number, dealer, size, tiebreak, hands, trumps)


def dealt(  # noqa: PLR0913, PLR0917 - a deal's parts, each a plain int
    pos: Position,
    number: int,
    dealer: int,
    size: int,
    tiebreak: bool,
    hands: Hands,
    trumps: int,
) -> Position:
    """The position of ``pos``'s match with a deal dealt: its number, dealer, size, and so on.

    :func:`deal` deals the next deal of the match this way; a deal that stands alone,
    outside any match (a single-deal record), is dealt with parts of its own.
    """
    phase, leader = BID, -1
    if tiebreak:
        phase, leader = PLAY, _AROUND[dealer + 1]
    # pos[14] to pos[18]: COUNTED, TOTAL_NS, TOTAL_EW, (OUTCOME,) RULES.
    # fmt: off
    return (phase, dealer, size, trumps, tiebreak, hands, (), leader, (), False, 0, 0, (),
            number, pos[14], pos[15], pos[16], GOING_ON, pos[18])
    # fmt: on


def legal_bids(pos: Position) -> tuple[int, ...]:
    """The codes of the bids the bidder to move may say: Pass, 1 .. size - 1, Board (BID-2)."""
    return _LEGAL_BIDS[pos[2]]  # SIZE


def bid(pos: Position, code: int) -> Position:
    """The position after the bidder to move says the bid ``code``.

    The fourth bid ends the circuit: four passes throw the deal in (MATCH-3: the
    next deal follows, same size, next dealer, nothing counted), otherwise the
    opening leader leads the first trick (BID-8).
    """
    (phase, dealer, size, trumps, tiebreak, hands, trick, leader, bids, broken,
     won_ns, won_ew, played, number, counted, total_ns, total_ew, outcome, rules) = pos  # fmt: skip
    bids = bids + (code,)  # noqa: RUF005 - cheaper than (*bids, code), a list made a tuple
    if len(bids) == 4:
        if thrown_in_codes(bids):
            phase, number = DEAL, number + 1
        else:
            first = dealer + 1
            opener = opening_seat((_AROUND[first + i], bids[i]) for i in range(4))
            assert opener is not None  # not thrown in: somebody bid
            phase, leader = PLAY, opener
    # fmt: off
    return (phase, dealer, size, trumps, tiebreak, hands, trick, leader, bids, broken,
            won_ns, won_ew, played, number, counted, total_ns, total_ew, outcome, rules)
    # fmt: on


def allowed(pos: Position) -> int:
    """The mask of the cards the player to move may play (PLAY-2 .. PLAY-6).

    The rule is ``tricks.allowed_plays``; this gives it the player's hand, the trick,
    the trump mask, trumps broken and whether the player bid Board.
    """
    return allowed_and_reason(pos)[0]


def allowed_and_reason(pos: Position) -> tuple[int, Reason | None]:
    """:func:`allowed`, and the ``Reason`` refusing the player's other cards (or None)."""
    trick = pos[6]  # TRICK
    return allowed_of(pos, seat_to_move(pos[1], 4, pos[7], len(trick)), trick)  # DEALER, LEADER


def allowed_of(pos: Position, seat: int, trick: tuple[int, ...]) -> tuple[int, Reason | None]:
    """``tricks.allowed_plays`` for ``seat``, the player to move, to ``trick`` (pos[TRICK])."""
    broken = pos[9]  # BROKEN
    bids = pos[8]  # BIDS
    # Only a lead before trumps are broken asks whether this player bid Board (PLAY-4);
    # pos[1] is DEALER, and the dealer's left bids first.
    # The count of bids is a name of its own: len(bids) == 4 would narrow bids to a tuple of
    # fixed length, which compiled is a C struct, boxed anew to be indexed by a seat.
    said = len(bids)
    bid_board = not trick and not broken and said == 4 and bids[(seat - pos[1] - 1) % 4] == BOARD
    return allowed_plays(pos[5][seat], trick, pos[3], broken, bid_board)  # HANDS, TRUMPS


def trick_winner(leader: int, cards: tuple[int, ...], trumps: int) -> int:
    """The seat winning the trick ``cards`` led by ``leader``, so far (PLAY-7).

    The highest trump (jokers included in ``trumps``), else the highest card of the
    led suit: ``tricks.winning_card``.
    """
    return _AROUND[leader + winning_card(cards, trumps)[1]]


def boards(pos: Position) -> tuple[bool, bool, bool, bool]:
    """Whether each seat (by index) bid Board in the deal of ``pos``.

    A Board bidder may lead a trump before trumps are broken (PLAY-4), the one
    thing a bid changes in play. Bids go clockwise from the dealer's left (BID-1);
    a seat that has not bid yet, and every seat of a tiebreak deal (no bidding),
    has not bid Board.
    """
    found = [False, False, False, False]
    first = pos[1] + 1  # DEALER
    for index, code in enumerate(pos[8]):  # BIDS
        if code == BOARD:
            found[_AROUND[first + index]] = True
    return (found[0], found[1], found[2], found[3])


def tricks_won(pos: Position) -> tuple[int, int]:
    """The completed tricks taken by North-South and by East-West in the deal."""
    return (pos[10], pos[11])  # WON_NS, WON_EW


def play(pos: Position, card: int) -> Position:
    """The position after the player to move plays ``card``.

    The card leaves the hand and joins the trick; the fourth card completes the
    trick (PLAY-7: its winner leads the next, PLAY-8), the last trick the deal,
    which is then scored and the match goes on or ends (:func:`_finish`).
    """
    return play_by(pos, seat_to_move(pos[1], 4, pos[7], len(pos[6])), card)  # DEALER, LEADER


def play_if_allowed(pos: Position, card: int) -> Position | None:
    """:func:`play` of ``card`` if the rules allow it now (:func:`allowed`), else None."""
    seat = player_if_allowed(pos, card)
    return None if seat < 0 else play_by(pos, seat, card)


def player_if_allowed(pos: Position, card: int) -> int:
    """The seat to move if the rules allow it to play ``card`` now (:func:`allowed`), else -1.

    For a replay that judges and plays each card of a record (then :func:`play_by`):
    whose turn it is and what that seat may play are found once for both. Compiled,
    a plain int where :func:`play_if_allowed`'s position or None is a boxed object.
    """
    if pos[0] != PLAY:  # PHASE
        return -1
    trick = pos[6]  # TRICK
    seat = seat_to_move(pos[1], 4, pos[7], len(trick))  # DEALER, LEADER
    if not pos[5][seat] >> card & 1:  # HANDS
        return -1
    # A held card of the plain suit led is always allowed (tricks.FOLLOWERS).
    if not (trick and FOLLOWERS[trick[0]] >> card & 1) and not (
        allowed_of(pos, seat, trick)[0] >> card & 1
    ):
        return -1
    return seat


def play_by(pos: Position, seat: int, card: int) -> Position:
    """:func:`play` of ``card`` by ``seat``, the player to move."""
    (phase, dealer, size, trumps, tiebreak, hands, trick, leader, bids, broken,
     won_ns, won_ew, played, number, counted, total_ns, total_ew, outcome, rules) = pos  # fmt: skip
    bit = 1 << card
    # Compiled, a tuple of fixed length is a C struct of ints, boxed into a tuple object
    # where it is used as one (the position's hands, winning_card's trick), and an int
    # unpacked from a tuple is unboxed, then boxed anew (a new int object for any mask
    # above 256). So the three hands a card leaves alone are read as objects (Any) and
    # passed on as they are: only the player's hand is a new int. The new hands are
    # a new name, boxed once, into the position; the trick is never narrowed to a fixed
    # length (by len() or by assigning ()), which would box it anew at each use (see Hands).
    kept: tuple[Any, ...] = hands
    # Not ``Hands``: in the context of ints, the Any items would be unboxed and boxed anew.
    held: tuple[Any, ...]
    if seat == 0:
        held = (hands[0] ^ bit, kept[1], kept[2], kept[3])
    elif seat == 1:
        held = (kept[0], hands[1] ^ bit, kept[2], kept[3])
    elif seat == 2:
        held = (kept[0], kept[1], hands[2] ^ bit, kept[3])
    else:
        held = (kept[0], kept[1], kept[2], hands[3] ^ bit)
    cards: tuple[int, ...] = trick + (card,)  # noqa: RUF005 - cheaper than (*trick, card)
    if len(trick) == 3:
        a, b, c, d = cards
        leader = _AROUND[leader + winning_card(cards, trumps)[1]]
        broken = broken or bool(((1 << a) | (1 << b) | (1 << c) | (1 << d)) & trumps)
        if leader % 2:
            won_ew += 1
        else:
            won_ns += 1
        played = played + cards
        cards = _NO_TRICK
        if won_ns + won_ew == size:
            # fmt: off
            return _finish((phase, dealer, size, trumps, tiebreak, held, cards, leader, bids,
                            broken, won_ns, won_ew, played, number, counted, total_ns, total_ew,
                            outcome, rules))
            # fmt: on
    # fmt: off
    return (phase, dealer, size, trumps, tiebreak, held, cards, leader, bids, broken,
            won_ns, won_ew, played, number, counted, total_ns, total_ew, outcome, rules)
    # fmt: on


def deal_scores(pos: Position) -> tuple[int, int]:
    """What each pair scores for the deal of ``pos`` once it is complete (SCORE-1).

    Each pair on its own contract (``bidding.contract_terms``, ``scoring.score_terms``);
    a thrown-in or tiebreak deal, and one not yet complete, score nothing.
    """
    size = pos[2]  # SIZE
    if len(pos[8]) != 4 or pos[10] + pos[11] != size:  # BIDS, WON_NS, WON_EW
        return (0, 0)
    ns, ew = contracts_of(pos)
    return (score_terms(ns[0], ns[1], size, pos[10]), score_terms(ew[0], ew[1], size, pos[11]))


def contracts_of(pos: Position) -> tuple[tuple[int, int], tuple[int, int]]:
    """Each pair's contract ``(target, multiplier)`` from the four bids of ``pos`` (BID-3, BID-4).

    ``bidding.contract_terms`` of the bids with their seats, clockwise from the
    dealer's left (BID-1); the deal's bidding must be complete.
    """
    first = pos[1] + 1  # DEALER
    return contract_terms(zip(_AROUND[first : first + 4], pos[8], strict=True))  # BIDS


def _finish(pos: Position) -> Position:
    """The position after the last trick of a deal: scored, then the match goes on or ends.

    A tiebreak deal scores nothing and does not count; more tricks win the match,
    equal tricks call another tiebreak deal (END-3, END-4). A deal of the schedule
    counts; after the last one the higher total wins (END-1), equal totals are a
    draw under ``draw`` (END-2) or call a tiebreak deal.
    """
    (phase, dealer, size, trumps, tiebreak, hands, trick, leader, bids, broken,
     won_ns, won_ew, played, number, counted, total_ns, total_ew, outcome, rules) = pos  # fmt: skip
    number += 1
    phase = DEAL
    if tiebreak:
        if won_ns != won_ew:
            phase, outcome = OVER, (TIEBREAK_NS if won_ns > won_ew else TIEBREAK_EW)
    else:
        ns, ew = deal_scores(pos)
        total_ns += ns
        total_ew += ew
        counted += 1
        if counted >= rules.deals:
            if total_ns != total_ew:
                phase, outcome = OVER, (SCORE_NS if total_ns > total_ew else SCORE_EW)
            elif rules.tie is TiePolicy.DRAW:
                phase, outcome = OVER, DRAW
    # fmt: off
    return (phase, dealer, size, trumps, tiebreak, hands, trick, leader, bids, broken,
            won_ns, won_ew, played, number, counted, total_ns, total_ew, outcome, rules)
    # fmt: on
