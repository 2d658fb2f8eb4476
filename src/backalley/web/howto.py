"""The how-to page's walk-through: one seven-card deal played by the engine, told step by step.

Seed ``001``: "send everyone the how-to page first, where a seven-card deal plays
out on the real table". The deal is the match seeded :data:`HOWTO_SEED` on
:data:`HOWTO_RULES` (one deal of seven cards), played by the library's heuristic
computer players at all four seats; the reader sits South. Every step is an
action of that match through :func:`~backalley.apply` (plus one card refused by
``apply`` itself), drawn by the table's own page from the frame South would be
sent (:func:`~backalley.web.messages.seat_frame`) and explained in sentences made
from the state: so the page cannot disagree with the rules.

The seed was found by ``scripts/find_howto_deal.py`` so that every moment the page
explains occurs (:func:`moments`): the turned trump, the bids and the targets, a
card refused and why, trumps broken, a blooper led and what it forces, each
trick's winner, and the score worked out.

After it, a second and shorter match (:data:`MORE_RULES`, :data:`MORE_SEED`,
:func:`tell_more`) shows what that deal has not: a deal thrown in after four
passes and dealt again by the next dealer, then a Board bid and its score. There
the first deal's four passes are chosen (the computer players never all pass;
passing is always legal); every other action is the heuristic players', and every
step is again a state ``apply`` reaches.

>>> steps = howto_steps()
>>> steps[0]["title"], steps[-1]["title"]
('The deal', "The Board's score")
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

import attrs

from ..core.actions import Action, Bid, Deal, Play
from ..core.cards import Card, Seat, Suit, trump_words
from ..core.errors import IllegalAction, Reason
from ..core.rules import Rules
from ..engine.match import apply
from ..engine.state import DealState, MatchState, Phase
from ..engine.view import SeatView
from ..pictures.prose import PAIR_NAMES, counted, result_sentence, score_working
from ..players import HeuristicPlayer, Player, play_match
from .messages import card_words, seat_frame
from .rooms import HOST, Room
from .store import SeatRow

__all__ = [
    "HOWTO_RULES",
    "HOWTO_SEED",
    "MOMENTS",
    "MORE_MOMENTS",
    "MORE_RULES",
    "MORE_SEED",
    "Told",
    "howto_steps",
    "moments",
    "tell",
    "tell_more",
    "walk",
]

HOWTO_RULES: Final = Rules(schedule=[7])
"""One deal of seven cards, North dealing first: the how-to page's match."""

HOWTO_SEED: Final = 1038
"""The match seed of the how-to deal (``scripts/find_howto_deal.py`` found it)."""

MOMENTS: Final = (
    "trump_turned",
    "bids",
    "refused",
    "trumps_broken",
    "blooper_led",
    "blooper_forces",
    "made_and_missed",
)
"""What the how-to deal must show, in the order the page tells it."""

MORE_RULES: Final = Rules(schedule=[2])
"""The how-to's second match: one deal of two cards, North dealing first."""

MORE_SEED: Final = 258
"""Its match seed (``scripts/find_howto_deal.py --more`` found it)."""

MORE_MOMENTS: Final = ("thrown_in", "board_bid")
"""What the second match must show: a throw-in, then South (the reader) bidding Board."""

# The refusal the page prefers to show, most telling first.
_REFUSAL_ORDER: Final = (
    Reason.BIG_JOKER_FORCES_HIGHEST,
    Reason.LITTLE_JOKER_FORCES_LOWEST,
    Reason.TRUMPS_NOT_BROKEN,
    Reason.MUST_FOLLOW_TRUMP,
    Reason.MUST_FOLLOW_SUIT,
)


@attrs.frozen
class Told:
    """One step of the walk-through: the state it shows and what it says.

    ``refused`` is the card South is refused at this step and the engine's
    refusal; ``kinds`` the moments (:data:`MOMENTS`) the step shows.
    """

    title: str
    sentences: tuple[str, ...]
    state: MatchState
    kinds: frozenset[str] = frozenset()
    refused: IllegalAction | None = None


def _name(seat: Seat) -> str:
    return seat.name.title()


def _is_trump(card: Card, trump: Suit | None) -> bool:
    return card.is_joker or (trump is not None and card.suit is trump)


def _deal_of(state: MatchState) -> DealState:
    """The deal in progress, or the one just finished."""
    deal = state.deal
    if deal is None:
        deal = state.history[-1].deal
    return deal


class _PassingFirst:
    """The heuristic player, except that it passes in the match's first deal.

    It makes the second match's throw-in: the heuristic players never all pass.
    """

    def __init__(self) -> None:
        self._player = HeuristicPlayer()

    def __call__(self, seen: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        if not seen.history:
            passes = [a for a in legal if isinstance(a, Bid) and a.is_pass]
            if passes:
                return passes[0]
        return self._player(seen, legal)


def _play(
    rules: Rules, seed: int, *, pass_first: bool = False
) -> list[tuple[MatchState, Action, MatchState]]:
    """Every action of a how-to match: (state before, action, state after)."""
    steps: list[tuple[MatchState, Action, MatchState]] = []

    def watch(before: MatchState, action: Action, after: MatchState) -> None:
        steps.append((before, action, after))

    players: dict[Seat, Player] = {
        seat: _PassingFirst() if pass_first else HeuristicPlayer() for seat in Seat
    }
    play_match(players, rules, seed=seed, watch=watch)
    return steps


def _refusal(state: MatchState) -> IllegalAction | None:
    """A card in South's hand that ``apply`` refuses now, the most telling refusal first."""
    if state.to_move is not HOST or state.phase is not Phase.PLAY:
        return None
    refusals = []
    for card in state.hand(HOST):
        try:
            apply(state, Play(HOST, card))
        except IllegalAction as refusal:
            refusals.append(refusal)
    refusals = [r for r in refusals if r.reason in _REFUSAL_ORDER]
    if not refusals:
        return None
    return min(refusals, key=lambda refusal: _REFUSAL_ORDER.index(refusal.reason))


def _deal_step(after: MatchState) -> Told:
    deal = after.deal
    assert deal is not None
    turned = deal.setup.turned
    sentences = [
        f"{_name(deal.setup.dealer)} deals {counted(deal.setup.hand_size, 'card')} each. "
        f"The next card, {card_words(turned)}, is turned face up: {trump_words(deal.trump)}.",
        "The big blooper is the top trump and the little blooper second, then the trump "
        "ace down to the two.",
        "You sit South, at the bottom; your partner is North, across the table. East and "
        "West are the other side. Your cards are face up; theirs are the backs round the table.",
    ]
    kinds = {"trump_turned"} if deal.trump is not None else set()
    return Told("The deal", tuple(sentences), after, frozenset(kinds))


def _bid_step(before: MatchState, bid: Bid, after: MatchState) -> Told:
    deal = _deal_of(after)
    said = "passes (a pass counts as zero)" if bid.is_pass else _bid_words(bid)
    first = "" if before.bids else ", left of the dealer, bids first and"
    sentences = [f"{_name(bid.seat)}{first} {said}."]
    if not before.bids:
        top = deal.setup.hand_size - 1
        sentences.append(
            f"Each player bids once: pass, a number from 1 to {top}, or Board (every trick)."
        )
    new = [w for w in deal.warnings if w not in (_deal_of(before).warnings)]
    sentences.extend(
        f"Warning: {PAIR_NAMES[w.pair]} have bid {w.target} tricks, but only {w.hand_size} "
        "will be played. The bid stands."
        for w in new
    )
    kinds: set[str] = set()
    if len(after.bids) == 4 or deal.phase is not Phase.BID:
        kinds.add("bids")
        contracts = deal.contracts
        if contracts is None:
            sentences.append("All four passed: the cards are thrown in.")
        else:
            for pair, contract in zip((0, 1), contracts, strict=True):
                seats = [s for s in Seat if s.pair == pair]
                calls = " + ".join(f"{_name(s)} {_call(deal.bid_of(s))}" for s in seats)
                what = "Board" if contract.is_board else f"target {contract.target}"
                sentences.append(f"{PAIR_NAMES[seats[0].pair]}: {what} ({calls}).")
            if after.to_move is not None:
                sentences.append(
                    f"{_name(after.to_move)} made the highest bid and leads the first trick."
                )
            # What this deal does not show, said where it would have happened (and
            # shown after it, by the second match).
            if not any(contract.is_board for contract in contracts):
                sentences.append(
                    "Nobody bid Board here: a Board bid promises every trick, scores ten a "
                    "trick if made and loses as much if not, and lets the player who bid it "
                    "lead trumps at once."
                )
            sentences.append(
                "Had all four passed, the cards would have been thrown in: nobody scores, "
                "and the next dealer deals the same number of cards again (a re-deal). "
                "Both are shown after this deal."
            )
    return Told("The bidding", tuple(sentences), after, frozenset(kinds))


def _bid_words(bid: Bid) -> str:
    return "bids Board" if bid.board else f"bids {bid.amount}"


def _call(bid: Bid | None) -> str:
    if bid is None or bid.is_pass:
        return "pass"
    return "Board" if bid.board else str(bid.amount)


def _lead(before: MatchState, play: Play, trump: Suit | None) -> tuple[list[str], set[str]]:
    """A lead told: a blooper's force (``001``: a blooper led binds everybody else)."""
    card = play.card
    sentences = [f"{_name(play.seat)} leads {card_words(card)}."]
    kinds: set[str] = set()
    if card.is_joker:
        kinds.add("blooper_led")
        force = "highest" if card is Card.BIG else "lowest"
        sentences.append(
            f"A blooper led binds everybody else: each must play their {force} trump, "
            "and anyone without a trump plays any card."
        )
        others = [s for s in Seat if s is not play.seat]
        if any(sum(_is_trump(c, trump) for c in before.hand(s)) >= 2 for s in others):
            kinds.add("blooper_forces")
    elif _is_trump(card, trump):
        sentences.append("A trump may be led now: trumps have been broken.")
    return sentences, kinds


def _follow(
    before: MatchState, play: Play, led: Card, trump: Suit | None, broken: bool
) -> tuple[list[str], set[str]]:
    """A card played to a trick told: following, forced by a blooper, trumping, throwing."""
    who = _name(play.seat)
    card = play.card
    led_word = "trumps" if led.suit is None else led.suit.word
    if led.is_joker:
        trumps = [c for c in before.hand(play.seat) if _is_trump(c, trump)]
        if len(trumps) == 1:
            return [f"{who} holds one trump and must play it: {card_words(card)}."], set()
        if trumps:
            force = "highest" if led is Card.BIG else "lowest"
            others = " and ".join(card_words(c) for c in trumps if c is not card)
            return [
                f"{who} must play their {force} trump: {card_words(card)}, not {others}."
            ], set()
        return [f"{who} holds no trump, so any card will do: {card_words(card)}."], set()
    if _is_trump(led, trump) or led.suit is card.suit:
        return [f"{who} follows with {card_words(card)}."], set()
    if not _is_trump(card, trump):
        return [f"{who} has no {led_word} and throws {card_words(card)}."], set()
    sentences = [f"{who} has no {led_word} and plays a trump: {card_words(card)}."]
    if broken:
        return sentences, set()
    sentences.append("Trumps are broken: from the next trick on, anyone may lead a trump.")
    return sentences, {"trumps_broken"}


def _play_step(before: MatchState, play: Play, after: MatchState, broken: bool) -> Told:
    deal_before = before.deal
    assert deal_before is not None
    trump = deal_before.trump
    trick = deal_before.current_trick
    led = trick.cards[0] if trick is not None and trick.cards else None
    number = len(deal_before.tricks) + 1
    if led is None:
        sentences, kinds = _lead(before, play, trump)
    else:
        sentences, kinds = _follow(before, play, led, trump, broken)
    done = _deal_of(after)
    if len(done.tricks) >= number:
        won = done.tricks[number - 1]
        assert won.winner is not None
        winning = dict(won.plays)[won.winner]
        ns, ew = done.tricks_won
        sentences.append(
            f"{_name(won.winner)} wins trick {number} with {card_words(winning)}. "
            f"Tricks so far: North-South {ns}, East-West {ew}."
        )
    return Told(f"Trick {number}", tuple(sentences), after, frozenset(kinds))


def _score_step(final: MatchState) -> Told:
    result = final.history[-1]
    deal = result.deal
    contracts = deal.contracts
    assert contracts is not None
    sentences = []
    kinds: set[str] = set()
    made = []
    for pair, contract in zip((0, 1), contracts, strict=True):
        tricks = deal.tricks_won[pair]
        size = deal.setup.hand_size
        working = score_working(contract, hand_size=size, tricks=tricks)
        name = PAIR_NAMES[next(s for s in Seat if s.pair == pair).pair]
        sentences.append(f"{name}: {working}.")
        made.append(result.scores[pair] >= 0)
    if made[0] != made[1]:
        kinds.add("made_and_missed")
    if final.outcome is not None:
        sentences.append(f"This one-deal match: {result_sentence(final.outcome, seat=HOST)}.")
    sentences.append(
        "Next, a shorter deal shows what this one did not: a throw-in, and a Board bid."
    )
    return Told("The score", tuple(sentences), final, frozenset(kinds))


def _refused_step(before: MatchState, refusal: IllegalAction) -> Told:
    card = refusal.action.card if isinstance(refusal.action, Play) else None
    assert card is not None
    sentences = (
        f"Your turn. Suppose you press {card_words(card)}: the table refuses it. {refusal.message}",
        "The ringed cards are the ones you may play; the others are dimmed, and pressing "
        "one says why.",
    )
    return Told("A card refused", sentences, before, frozenset({"refused"}), refusal)


def tell(rules: Rules = HOWTO_RULES, seed: int = HOWTO_SEED) -> list[Told]:
    """The walk-through of the match ``seed`` of ``rules``'s first deal, step by step."""
    told: list[Told] = []
    broken = False
    refused = False
    for before, action, after in _play(rules, seed):
        if before.history:
            break  # the first deal only (a thrown-in deal never makes a how-to)
        if isinstance(action, Deal):
            told.append(_deal_step(after))
        elif isinstance(action, Bid):
            told.append(_bid_step(before, action, after))
        else:
            refusal = None if refused else _refusal(before)
            if refusal is not None:
                refused = True
                told.append(_refused_step(before, refusal))
            step = _play_step(before, action, after, broken)
            broken = (
                broken
                or "trumps_broken" in step.kinds
                or _is_trump(action.card, _deal_of(after).trump)
            )
            told.append(step)
        if after.history:
            told.append(_score_step(after))
            break
    return told


def _another_deal_step(after: MatchState) -> Told:
    deal = after.deal
    assert deal is not None
    sentences = (
        f"A second, shorter deal: {_name(deal.setup.dealer)} deals "
        f"{counted(deal.setup.hand_size, 'card')} each; {trump_words(deal.trump)}.",
        "This time all four pass.",
    )
    return Told("Another deal", sentences, after)


def _thrown_in_step(after: MatchState) -> Told:
    thrown = after.history[-1].deal
    next_dealer = after.dealer
    assert next_dealer is not None
    size = thrown.setup.hand_size
    sentences = (
        "All four passed: the cards are thrown in and nobody scores. The next dealer, "
        f"{_name(next_dealer)}, deals {counted(size, 'card')} each again: a re-deal, "
        "which does not count as one of the match's deals.",
    )
    return Told("Thrown in", sentences, after, frozenset({"thrown_in"}))


def _said(bid: Bid) -> str:
    you = bid.seat is HOST
    if bid.is_pass:
        return "you pass" if you else f"{_name(bid.seat)} passes"
    words = "Board" if bid.board else str(bid.amount)
    return f"you bid {words}" if you else f"{_name(bid.seat)} bids {words}"


def _board_step(after: MatchState) -> Told:
    deal = _deal_of(after)
    contracts = deal.contracts
    assert contracts is not None
    calls = ", ".join(_said(bid) for bid in deal.bids)
    sentences = [f"{_name(deal.setup.dealer)} has dealt again. The bids: {calls}."]
    kinds: set[str] = set()
    if any(bid.board and bid.seat is HOST for bid in deal.bids):
        kinds.add("board_bid")
        sentences.append(
            "You bid Board: your side promises to take every trick. Made, it scores ten "
            "a trick; missed, it loses as much. Your partner's bid no longer counts."
        )
    for pair, contract in zip((0, 1), contracts, strict=True):
        if contract.is_board:
            what = "Board, every trick"
        elif contract.target:
            what = f"target {contract.target}"
        else:
            what = "both passed, a point a trick"
        sentences.append(f"{PAIR_NAMES[next(s for s in Seat if s.pair == pair).pair]}: {what}.")
    leader = after.to_move
    if leader is not None and any(bid.board and bid.seat is leader for bid in deal.bids):
        who = "You" if leader is HOST else _name(leader)
        sentences.append(f"{who} bid Board, so {who.lower()} lead the first trick.")
    return Told("A Board bid", tuple(sentences), after, frozenset(kinds))


def _board_score_step(final: MatchState) -> Told:
    result = final.history[-1]
    deal = result.deal
    contracts = deal.contracts
    assert contracts is not None
    size = deal.setup.hand_size
    sentences = []
    for pair, contract in zip((0, 1), contracts, strict=True):
        working = score_working(contract, hand_size=size, tricks=deal.tricks_won[pair])
        name = PAIR_NAMES[next(s for s in Seat if s.pair == pair).pair]
        sentences.append(f"{name}: {working}.")
    sentences.append(
        "A short game deals 7 cards down to 1, 1 again and back up to 7: 14 deals, "
        "the scores added up. Now open the table and play."
    )
    return Told("The Board's score", tuple(sentences), final)


def tell_more(rules: Rules = MORE_RULES, seed: int = MORE_SEED) -> list[Told]:
    """The second match, told: its first deal thrown in, then a Board bid, played out.

    The first deal's bids are four passes (always legal); the rest is the
    heuristic players'. Of the re-deal's tricks, each lead and each trick's last
    card (its winner told) are steps.
    """
    told: list[Told] = []
    broken = False
    for before, action, after in _play(rules, seed, pass_first=True):
        if isinstance(action, Deal) and not before.history:
            told.append(_another_deal_step(after))
        elif isinstance(action, Bid) and not before.history and after.history:
            told.append(_thrown_in_step(after))
        elif isinstance(action, Bid) and after.phase is not Phase.BID and before.history:
            told.append(_board_step(after))
        elif isinstance(action, Play) and before.history:
            deal = _deal_of(before)
            trick = deal.current_trick
            lead = trick is None or not trick.cards
            step = _play_step(before, action, after, broken)
            trumped = _is_trump(action.card, deal.trump)
            if lead and trumped and not broken:
                # PLAY-5: a Board bidder may lead a trump before trumps are broken.
                who = "you" if action.seat is HOST else _name(action.seat)
                step = attrs.evolve(
                    step,
                    sentences=(
                        *step.sentences,
                        f"Trumps are not broken yet, but {who} bid Board: a player who bid "
                        "Board may lead a trump at once.",
                    ),
                )
            broken = broken or "trumps_broken" in step.kinds or trumped
            if lead or len(_deal_of(after).tricks) > len(deal.tricks):
                told.append(step)
        if len(after.history) > 1 or after.outcome is not None:
            told.append(_board_score_step(after))
            break
    return told


def walk() -> list[Told]:
    """The how-to page's whole walk: the seven-card deal, then the second match."""
    return tell() + tell_more()


def moments(told: list[Told], wanted: tuple[str, ...] = MOMENTS) -> dict[str, bool]:
    """Which of ``wanted`` (:data:`MOMENTS` unless told) the walk-through shows."""
    shown = set().union(*(step.kinds for step in told)) if told else set()
    return {moment: moment in shown for moment in wanted}


def _room(rules: Rules, seed: int) -> Room:
    seats = {
        seat: SeatRow(seat, None, "person", None)
        if seat is HOST
        else SeatRow(seat, None, "computer", "heuristic")
        for seat in Seat
    }
    return Room(room_id="how-to", mode="computer", rules=rules, seed=seed, created=0.0, seats=seats)


@cache
def howto_steps(rules: Rules = HOWTO_RULES, seed: int = HOWTO_SEED) -> list[dict[str, Any]]:
    """The how-to page's steps as JSON: title, sentences and South's frame at each step.

    The steps are the match ``seed`` of ``rules`` (:func:`tell`), then the second
    match (:func:`tell_more`). The frame is the one the table sends South
    (:func:`seat_frame`) in a room of that step's match, without bid buttons (the
    reader watches); a step with a refused card carries it, and the engine's
    reason code and sentence, as ``refused``.
    """
    parts = ((_room(rules, seed), tell(rules, seed)), (_room(MORE_RULES, MORE_SEED), tell_more()))
    steps: list[dict[str, Any]] = []
    for room, told in parts:
        for step in told:
            room.state = step.state
            room.version = len(steps)
            frame = seat_frame(room, HOST)
            frame["bids"] = []
            frame["record"] = None
            if step.refused is not None:
                assert isinstance(step.refused.action, Play)
                frame["refused"] = {
                    "code": step.refused.action.card.code,
                    "reason": step.refused.reason.value,
                    "message": step.refused.message,
                }
            steps.append(
                {
                    "title": step.title,
                    "sentences": list(step.sentences),
                    "kinds": sorted(step.kinds),
                    "frame": frame,
                }
            )
    return steps
