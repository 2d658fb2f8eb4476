"""Write the conformance vectors in ``conformance/`` (see ``docs/conformance.md``).

Usage: ``python scripts/make_conformance.py [--check]``. Everything is computed
from fixed seeds by the library itself, so the files can be regenerated at any
time; the test suite regenerates them in memory and compares, so they never
drift from the code. ``--check`` compares instead of writing.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from backalley import (
    Bid,
    Card,
    Deal,
    IllegalAction,
    MatchState,
    Play,
    Rules,
    Seat,
    apply,
    legal_actions,
    new_match,
    seeded_deck,
)
from backalley.core.cards import CARDS, SEATS, trump_mask
from backalley.core.dealing import _LIMITS, _block  # the vectors expose the stream itself
from backalley.engine.bounds import playing
from backalley.engine.state import Phase
from backalley.formats.codec.values import swap_to_json
from backalley.formats.notation import action_text
from backalley.formats.perft import perft
from backalley.formats.records import dumps, record_from_state, record_to_json
from backalley.formats.serialize import snapshot, to_json
from backalley.protocol.messages import seat_view

ROOT = Path(__file__).resolve().parent.parent / "conformance"
FORMAT_VERSION = 1
Action = Bid | Play | Deal


# --- shared helpers ----------------------------------------------------------------


def random_states(rules: Rules, seed: int, *, stop: int | None = None) -> Iterator[MatchState]:
    """Every state of a match played by random legal choices (seeded), the first included."""
    chooser = random.Random(seed)
    state = new_match(rules, seed=seed)
    yield state
    steps = 0
    while playing(state) and (stop is None or steps < stop):
        state = apply(state, chooser.choice(legal_actions(state)))
        steps += 1
        yield state


def play_out(rules: Rules, seed: int) -> MatchState:
    """The final state of a seeded random match."""
    *_, final = random_states(rules, seed)
    return final


def _record(state: MatchState, *, claims: bool = True, decks: str = "auto") -> dict[str, Any]:
    return record_to_json(record_from_state(state, claims=claims, decks=decks))


# --- seeded dealing ----------------------------------------------------------------


def dealing_vectors() -> dict[str, Any]:
    """Decks for chosen (seed, deal number) pairs, the first hash blocks, and draws."""
    pairs = [(0, 0), (0, 1), (1, 0), (2026, 0), (2026, 25), (2**32, 7), (2**63, 3)]
    pairs += [(2**64 - 1, 0), (2**64 - 1, 2**32 - 1), (123456789, 100)]
    vectors = [
        {
            "seed": seed,
            "deal_number": number,
            "deck": [card.code for card in seeded_deck(seed, number)],
        }
        for seed, number in pairs
    ]
    prefix = b"backalley-deal-v1" + (0).to_bytes(8, "big") + (0).to_bytes(4, "big")
    blocks = [
        {"seed": 0, "deal_number": 0, "block": index, "words": list(_block(prefix, index))}
        for index in range(2)
    ]
    # The rejection rule, shown on made-up word streams: real streams almost never
    # reject (the chance is below 54 in 2**32 a word), so it needs its own vectors.
    draws = []
    for n, words in [
        (54, [0xFFFFFFFF, 7]),
        (54, [_LIMITS[54] - 1]),
        (54, [_LIMITS[54], _LIMITS[54] + 1, 100]),
        (2, [0xFFFFFFFF]),
        (3, [0xFFFFFFFF, 0xFFFFFFFE, 5]),
        (7, [_LIMITS[7] - 1]),
    ]:
        for used, word in enumerate(words, start=1):
            if word < _LIMITS[n]:
                draws.append(
                    {"n": n, "words": words, "limit": _LIMITS[n], "used": used, "j": word % n}
                )
                break
    return {
        "format": "backalley-dealing-vectors",
        "version": FORMAT_VERSION,
        "algorithm": "docs/dealing.md",
        "decks": vectors,
        "blocks": blocks,
        "draws": draws,
    }


# --- positions and verdicts --------------------------------------------------------


def universe() -> list[str]:
    """Every action the verdicts cover: the seeded deal, then per seat its bids and plays."""
    names = ["deal"]
    for seat in SEATS:
        names.append(f"{seat.letter} pass")
        names.extend(f"{seat.letter} {amount}" for amount in range(1, 14))
        names.append(f"{seat.letter} board")
        names.extend(f"{seat.letter} {card.code}" for card in CARDS)
    return names


def _universe_actions(state: MatchState) -> list[Action]:
    actions: list[Action] = [Deal(seeded_deck(state.seed, state.deal_number))]
    for seat in SEATS:
        actions.append(Bid(seat))
        actions.extend(Bid(seat, amount) for amount in range(1, 14))
        actions.append(Bid(seat, board=True))
        actions.extend(Play(seat, card) for card in CARDS)
    return actions


def verdict(state: MatchState, action: Action) -> str:
    """``legal``, or the reason code ``apply`` refuses the action with."""
    try:
        apply(state, action)
    except IllegalAction as refusal:
        return refusal.reason.value
    return "legal"


def _leading(state: MatchState) -> bool:
    trick = state.current_trick
    return state.phase is Phase.PLAY and trick is not None and not trick.cards


def _holds(state: MatchState, mask: int) -> tuple[int, int]:
    """How many of the mover's cards are in ``mask``, and how many are not."""
    seat = state.to_move
    hand = state.hand(seat) if seat is not None else ()
    inside = sum(1 for card in hand if (1 << card) & mask)
    return inside, len(hand) - inside


def _ban_applies(state: MatchState) -> bool:
    assert state.deal is not None
    trumps, others = _holds(state, trump_mask(state.trump))
    return not state.deal.broken and trumps > 0 and others > 0


def _bid_board(state: MatchState) -> bool:
    assert state.deal is not None and state.to_move is not None
    bid = state.deal.bid_of(state.to_move)
    return bid is not None and bid.board


def _led(state: MatchState) -> Card | None:
    trick = state.current_trick
    return trick.led if state.phase is Phase.PLAY and trick is not None else None


def _led_joker_with_choice(joker: Card) -> Callable[[MatchState], bool]:
    def found(state: MatchState) -> bool:
        return _led(state) == joker and _holds(state, trump_mask(state.trump))[0] >= 2

    return found


def _little_led_only_big(state: MatchState) -> bool:
    if _led(state) != Card.LITTLE or state.to_move is None:
        return False
    trumps = [c for c in state.hand(state.to_move) if (1 << c) & trump_mask(state.trump)]
    return trumps == [Card.BIG]


def _follow(trump_led: bool) -> Callable[[MatchState], bool]:
    def found(state: MatchState) -> bool:
        led = _led(state)
        if led is None or led.is_joker:
            return False
        suit_mask = sum(1 << Card.of(rank, led.suit) for rank in range(2, 15))  # type: ignore[arg-type]
        is_trump_led = led.suit == state.trump
        if is_trump_led:
            suit_mask = trump_mask(state.trump)
        inside, outside = _holds(state, suit_mask)
        return is_trump_led == trump_led and inside >= 1 and outside >= 1

    return found


POSITION_KINDS: list[tuple[str, str, Callable[[MatchState], bool]]] = [
    (
        "between-deals",
        "The next deal is due (after a finished deal).",
        lambda s: s.phase is Phase.DEAL and s.deal_number > 0,
    ),
    (
        "first-bid",
        "The first bid of a deal: Pass, 1 to hand size - 1, or Board.",
        lambda s: s.phase is Phase.BID and not s.bids and s.hand_size > 1,
    ),
    (
        "dealer-bids",
        "The dealer bids last.",
        lambda s: s.phase is Phase.BID and len(s.bids) == 3,
    ),
    (
        "one-card-bid",
        "With one card the only bids are Pass and Board.",
        lambda s: s.phase is Phase.BID and s.hand_size == 1,
    ),
    (
        "trumps-not-broken",
        "Leading before trumps are broken, holding trumps and other cards.",
        lambda s: _leading(s) and s.trump is not None and _ban_applies(s) and not _bid_board(s),
    ),
    (
        "board-bidder-leads-trumps",
        "A player who bid Board may lead trumps at once.",
        lambda s: _leading(s) and s.trump is not None and _ban_applies(s) and _bid_board(s),
    ),
    (
        "only-trumps-lead",
        "A player holding only trumps may lead one before trumps are broken.",
        lambda s: (
            _leading(s)
            and s.trump is not None
            and s.deal is not None
            and not s.deal.broken
            and _holds(s, trump_mask(s.trump)) == (len(s.hand(s.to_move)), 0)  # type: ignore[arg-type]
            and len(s.hand(s.to_move)) > 1
        ),  # type: ignore[arg-type]
    ),
    ("follow-suit", "A plain suit was led and the player holds it.", _follow(trump_led=False)),
    ("follow-trump", "A trump was led and the player holds trumps.", _follow(trump_led=True)),
    (
        "big-joker-led",
        "BIG was led: the highest trump is forced.",
        _led_joker_with_choice(Card.BIG),
    ),
    (
        "little-joker-led",
        "LITTLE was led: the lowest trump is forced.",
        _led_joker_with_choice(Card.LITTLE),
    ),
    (
        "little-led-only-big",
        "LITTLE was led and BIG is the player's only trump: BIG must be played (000 §06).",
        _little_led_only_big,
    ),
    (
        "no-trumps",
        "Play in a deal without trumps (a joker was turned).",
        lambda s: (
            s.phase is Phase.PLAY
            and s.trump is None
            and bool(s.current_trick and s.current_trick.cards)
        ),
    ),
    (
        "tiebreak-lead",
        "The tiebreak deal: no bidding, the player left of the dealer leads.",
        lambda s: (
            s.phase is Phase.PLAY
            and s.deal is not None
            and s.deal.setup.tiebreak
            and not s.completed_tricks
            and _leading(s)
        ),
    ),
    (
        "after-level-tiebreak",
        "A tiebreak deal ended with equal tricks: another tiebreak deal is due (END-4).",
        lambda s: (
            s.phase is Phase.DEAL
            and bool(s.history)
            and s.history[-1].setup.tiebreak
            and s.in_tiebreak
        ),
    ),
    ("match-over", "The match is over: every action is refused.", lambda s: s.phase is Phase.OVER),
]

POSITION_GAMES = [
    (Rules(schedule="short"), range(1, 40)),
    (Rules(schedule=[2, 1], tie="tiebreak-deal", first_dealer=Seat.EAST), range(1, 200)),
    # Two-card tiebreak deals can end level (END-4): a one-deal match of two cards.
    (Rules(schedule=[2], tie="tiebreak-deal"), range(1, 5000)),
]


def positions() -> dict[str, Any]:
    """Positions reached by seeded random play, one of each kind, with every verdict."""
    found: dict[str, MatchState] = {}
    for rules, seeds in POSITION_GAMES:
        for seed in seeds:
            for state in random_states(rules, seed):
                for name, _, test in POSITION_KINDS:
                    if name not in found and test(state):
                        found[name] = state
            if len(found) == len(POSITION_KINDS):
                break
    missing = [name for name, _, _ in POSITION_KINDS if name not in found]
    if missing:
        raise RuntimeError(f"no position found for {missing}: play more games")
    # A few positions taken at regular steps of one match, for breadth.
    for index, state in enumerate(random_states(Rules(), 99)):
        if index % 97 == 5:
            found[f"standard-step-{index}"] = state
    described = {name: text for name, text, _ in POSITION_KINDS}
    entries = []
    for name, state in found.items():
        actions = _universe_actions(state)
        entries.append(
            {
                "name": name,
                "description": described.get(name, "A position of a seeded random match."),
                "record": _record(state, claims=False),
                "snapshot": snapshot(state),
                # The players' moves, as the protocol's legal reply lists them: the deal is
                # a chance action, legal in the verdicts but no player's move.
                "legal_actions": [
                    _action_name(action)
                    for action in legal_actions(state)
                    if not isinstance(action, Deal)
                ],
                "verdicts": [verdict(state, action) for action in actions],
                # What each seat may know (DEAL-5), as the protocol's view reply says it.
                "views": {seat.letter: seat_view(state, seat) for seat in SEATS},
            }
        )
    return {
        "format": "backalley-positions",
        "version": FORMAT_VERSION,
        "universe": universe(),
        "positions": entries,
    }


def _action_name(action: Action) -> str:
    return "deal" if isinstance(action, Deal) else action_text(action)


# --- deals ---------------------------------------------------------------------------


def _deal_summary(state: MatchState) -> list[dict[str, Any]]:
    summary = []
    for result in state.history:
        deal_state = result.deal
        setup = deal_state.setup
        swap = setup.swap
        contracts = deal_state.contracts
        summary.append(
            {
                "dealer": setup.dealer.letter,
                "hand_size": setup.hand_size,
                "turned": setup.turned.code,
                "trump": None if setup.trump is None else setup.trump.letter,
                "swap": swap_to_json(swap),
                "thrown_in": result.thrown_in,
                "contracts": None if contracts is None else [to_json(c) for c in contracts],
                # Every completed trick has a winner; North (seat 0) is one like any other.
                "winners": [_winner_letter(trick.winner) for trick in deal_state.tricks],
                "tricks_won": list(deal_state.tricks_won),
                "scores": list(result.scores),
            }
        )
    return summary


def _winner_letter(winner: Seat | None) -> str:
    if winner is None:
        raise RuntimeError("a completed trick without a winner")
    return winner.letter


def _one_deal_matches() -> Iterator[tuple[str, MatchState]]:
    for size in range(1, 14):
        rules = Rules(schedule=[size], first_dealer=SEATS[size % 4])
        yield f"{size}-cards", play_out(rules, 1000 + size)
    wanted = {"turned-joker-swap": False, "thrown-in": False, "all-board": False}
    for seed in range(1, 3000):
        rules = Rules(schedule=[4])
        state = play_out(rules, seed)
        setups = [result.deal.setup for result in state.history]
        bids = [result.deal.bids for result in state.history]
        if not wanted["turned-joker-swap"] and any(s.swap is not None for s in setups):
            wanted["turned-joker-swap"] = True
            yield "turned-joker-swap", state
        elif not wanted["thrown-in"] and len(setups) > 1:
            wanted["thrown-in"] = True
            yield "thrown-in", state
        elif not wanted["all-board"] and any(all(b.board for b in bs) for bs in bids if bs):
            wanted["all-board"] = True
            yield "all-board", state
        if all(wanted.values()):
            return
    raise RuntimeError(f"not found: {[name for name, done in wanted.items() if not done]}")


def deals() -> dict[str, Any]:
    """Single-deal matches, every hand size and the special cases, with their scores."""
    return {
        "format": "backalley-deals",
        "version": FORMAT_VERSION,
        "deals": [
            {"name": name, "record": _record(state), "expected": _deal_summary(state)}
            for name, state in _one_deal_matches()
        ],
    }


# --- whole matches -------------------------------------------------------------------


def _tied_seed(rules: Rules) -> int:
    for seed in range(1, 5000):
        final = play_out(rules, seed)
        if final.outcome is not None and final.outcome.termination.value == "draw":
            return seed
    raise RuntimeError("no tied match found")


def _explicit_decks(seed: int) -> MatchState:
    """A match whose decks were shuffled by another program: every deck is explicit."""
    shuffler = random.Random(seed)
    chooser = random.Random(seed + 1)
    state = new_match(Rules(schedule=[3, 2, 1], first_dealer=Seat.WEST), seed=seed)
    while playing(state):
        if state.phase is Phase.DEAL:
            deck = list(CARDS)
            shuffler.shuffle(deck)
            state = apply(state, Deal(deck))
        else:
            state = apply(state, chooser.choice(legal_actions(state)))
    return state


def records() -> dict[str, dict[str, Any]]:
    """Whole-match records (and one partial one), named by file."""
    short_draw = Rules(schedule="short")
    tied = _tied_seed(short_draw)
    partial = None
    for state in random_states(Rules(schedule="short"), 5, stop=120):
        partial = state
    assert partial is not None
    matches = {
        "standard": _record(play_out(Rules(), 1)),
        "twenty-five": _record(play_out(Rules(schedule="twenty-five", first_dealer=Seat.SOUTH), 2)),
        "short": _record(play_out(Rules(schedule="short"), 3)),
        "short-draw": _record(play_out(short_draw, tied)),
        "tiebreak-deal": _record(play_out(Rules(schedule="short", tie="tiebreak-deal"), tied)),
        "explicit-decks": _record(_explicit_decks(17), decks="explicit"),
        "partial": _record(partial),
    }
    return {f"records/{name}.json": data for name, data in matches.items()}


# --- perft -----------------------------------------------------------------------------


def _after(rules: Rules, seed: int, steps: int) -> MatchState:
    """The state after ``steps`` seeded random actions."""
    for index, state in enumerate(random_states(rules, seed)):
        if index == steps:
            return state
    raise RuntimeError("the match ended first")


def _first(rules: Rules, seeds: range, test: Callable[[MatchState], bool]) -> MatchState:
    for seed in seeds:
        for state in random_states(rules, seed):
            if test(state):
                return state
    raise RuntimeError("no such position")


def perft_vectors() -> dict[str, Any]:
    """Perft counts from chosen positions, at every depth up to a modest limit."""
    cases = [
        ("match-start", "A standard match before its first deal.", new_match(Rules(), seed=0), 6),
        (
            "one-card-match",
            "A one-deal, one-card match with a tiebreak deal on equal totals.",
            new_match(Rules(schedule=[1], tie="tiebreak-deal"), seed=5),
            12,
        ),
        (
            "first-lead-13",
            "The first lead of a 13-card deal.",
            _first(Rules(), range(1, 50), lambda s: s.phase is Phase.PLAY),
            8,
        ),
        (
            "end-of-deal",
            "A 3-card deal after bidding, through its end into the next deal.",
            _first(
                Rules(schedule=[3, 2], first_dealer=Seat.SOUTH),
                range(1, 50),
                lambda s: s.phase is Phase.PLAY and s.hand_size == 3 and s.deal_number == 0,
            ),
            14,
        ),
        (
            "big-joker-led",
            "BIG has just been led.",
            _first(Rules(schedule="short"), range(1, 100), _led_joker_with_choice(Card.BIG)),
            8,
        ),
        (
            "no-trumps",
            "A deal without trumps, after bidding.",
            _first(
                Rules(schedule=[5]),
                range(1, 500),
                lambda s: s.phase is Phase.PLAY and s.trump is None,
            ),
            12,
        ),
    ]
    return {
        "format": "backalley-perft",
        "version": FORMAT_VERSION,
        "positions": [
            {
                "name": name,
                "description": text,
                "record": _record(state, claims=False),
                "counts": [perft(state, depth) for depth in range(depth_limit + 1)],
            }
            for name, text, state, depth_limit in cases
        ],
    }


# --- the files -------------------------------------------------------------------------


def build() -> dict[str, str]:
    """Every conformance file's path (relative to ``conformance/``) and its text."""
    files: dict[str, Any] = {
        "dealing.json": dealing_vectors(),
        "positions.json": positions(),
        "deals.json": deals(),
        "perft.json": perft_vectors(),
    }
    files.update(records())
    return {path: dumps(data) for path, data in sorted(files.items())}


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the files."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    stale = []
    for path, text in build().items():
        target = ROOT / path
        if args.check:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                stale.append(path)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
