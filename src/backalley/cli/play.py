"""``backalley play``: play one seat in the terminal against three computer players.

The table says whose turn it is and names the trump in words, shows your hand
with the cards you may play in brackets, the last trick and who won it, and
each side's target beside the tricks it has taken. It refuses an illegal card
with the reason, warns (without stopping) when a side bids more tricks than
there are, and keeps the running score sheet. You see only what your seat may
see (:func:`backalley.engine.view.view`); the computer players see only theirs.

Answers: a card code (``as``, ``10h``, ``big``), a bid (``pass``, ``3``,
``board``), ``?`` for help and the legal actions, ``score`` for the score
sheet, ``quit`` to leave (exit status 0: leaving is not a failure).

``--record FILE`` writes the game record of what was played when the game ends,
finished or left, so that ``backalley check``, ``replay`` and ``analyze`` read
the game you played.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final, TextIO

from .._extras import MissingExtra
from ..core.actions import Action, Bid, Deal, Play
from ..core.cards import Card, Seat, Suit, trump_words
from ..core.errors import IllegalAction
from ..core.flow import dealer_of_deal
from ..engine.match import apply, new_match
from ..engine.state import MatchState, Phase
from ..engine.view import DealView, SeatView, view
from ..formats.notation import parse_bid
from ..formats.records import dumps, record_from_state
from ..pictures.prose import (
    counted,
    result_sentence,
    score_rows,
    sheet_lines,
    throw_in_sentence,
)
from ..pictures.text import trick_text
from ..players import PLAYER_KINDS, Player, PlayerError, play_match
from ..players.driver import play_step, seat_players
from ..players.simulation import replace_file
from . import _common as common

__all__ = ["Table", "add_parser", "run"]

_SUIT_ORDER: Final = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_HELP: Final = """\
Answers:
  a card code such as as, 10h, qd, big or little   play that card
  pass, a number such as 3, or board                bid
  ?                                                 this help and your legal actions
  score                                             the score sheet so far
  quit                                              leave the match (the record,
                                                    with --record, keeps what was played)"""


HELP = "play one seat in the terminal against three computer players"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Play one seat against three computer players (your partner included), heuristic unless
--opponents names another kind. Type ? at any prompt for help and your legal actions."""


def add_parser(commands: common.Commands) -> None:
    """Register ``backalley play``."""
    parser = common.add_command(commands, "play", run, HELP, DESCRIPTION)
    parser.add_argument("--seat", default="S", help="your seat: N, E, S or W (default S)")
    common.add_seed_option(parser, None, "seed for the deals")
    parser.add_argument(
        "--opponents",
        default="heuristic",
        choices=sorted(PLAYER_KINDS),
        help="the computer players at the other three seats (default heuristic)",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="write the game record to FILE when the game ends, finished or left "
        "(for backalley check, replay and analyze)",
    )
    common.add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    """Play the match at the terminal."""
    record = None if args.record is None else Path(args.record)
    if record is not None and not record.parent.is_dir():
        # Refused before the first card: a game played to the end must not be lost.
        raise common.CommandError(f"--record: no folder {str(record.parent)!r} to write it in")
    if record is not None and record.is_dir():
        raise common.CommandError(f"--record: {args.record!r} is a folder, not a file")
    try:  # an opponent whose extra is missing (the learned one needs NumPy) says so now
        PLAYER_KINDS[args.opponents]()
    except MissingExtra as missing:
        raise common.CommandError(str(missing)) from None
    seat = Seat.parse(args.seat)
    rules = common.rules_from(args)
    seed = secrets.randbits(64) if args.seed is None else args.seed
    state = new_match(rules, seed=seed)
    name = rules.schedule_name or "custom"
    out = sys.stdout
    print(
        f"Back Alley, {name} schedule ({rules.deals} deals), seed {seed}. You are "
        f"{_name(seat)}; your partner is {_name(seat.partner)}. Type ? for help.",
        file=out,
    )
    table = Table(state, seat, inp=sys.stdin, out=out, opponents=args.opponents)
    status = table.play()
    if record is not None:
        tags = {"event": "backalley play", "seat": seat.letter, "opponents": args.opponents}
        try:
            replace_file(record, dumps(record_from_state(table.state, tags=tags)))
        except OSError as error:
            raise common.CommandError(
                f"--record: cannot write {args.record}: {error.strerror or error}",
                common.EXIT_INVALID,
            ) from None
        # Stderr: the table's own lines stay the whole of standard output.
        print(f"The game record is in {args.record}.", file=sys.stderr)
    return status


def _name(seat: Seat) -> str:
    return seat.name.title()


def _call(bid: Bid) -> str:
    if bid.board:
        return "bids Board"
    return "passes" if bid.is_pass else f"bids {bid.amount}"


def _target(deal: DealView, pair: int) -> str:
    contracts = deal.contracts
    if contracts is None:
        return "no target"
    contract = contracts[pair]
    return f"Board ×{contract.multiplier}" if contract.is_board else f"target {contract.target}"


def marked_hand(cards: Sequence[Card], trump: Suit | None, legal: Iterable[Card]) -> str:
    """The hand by suit, trumps marked ``*``, the cards that may be played in brackets."""
    allowed = set(legal)
    held = sorted(cards, reverse=True)

    def show(card: Card, text: str) -> str:
        return f"[{text}]" if card in allowed else text

    groups = []
    for suit in _SUIT_ORDER:
        ranks = [show(card, card.code[:-1]) for card in held if card.suit is suit]
        if ranks:
            groups.append(f"{'*' if suit is trump else ''}{suit.symbol} {' '.join(ranks)}")
    groups.extend(show(card, card.name) for card in held if card.is_joker)
    return "  ".join(groups) if groups else "(no cards)"


def score_sheet(seen: SeatView) -> list[str]:
    """The running score sheet from the finished deals a seat has seen."""
    lines = sheet_lines(
        score_rows(seen),
        lambda deal: f"  {deal.label:>12}  {deal.hand_size:5}  {deal.trump_word:<8}",
        thrown_in="  thrown in",
        scored=" {:+6d} {:+6d}  {:9d}  {:8d}",
    )
    head = ["Score sheet:", "          deal  cards  trump      NS     EW   total NS  total EW"]
    return [*head, *(lines or ["  (no deal finished yet)"])]


class _Leave(Exception):
    """The person asked to leave (``status`` 0), or the input ended (1)."""

    def __init__(self, message: str, status: int = common.EXIT_INVALID) -> None:
        super().__init__(message)
        self.status = status


class Table:
    """One person at ``seat``, computer players at the other three seats.

    ``opponents`` names their kind (``backalley.players.PLAYER_KINDS``). The match
    is driven by :func:`~backalley.players.play_match`: the person is a
    player like the others (:meth:`choose`), and the table is told of every action
    (:meth:`watch`) to tell the person what happened.
    """

    def __init__(
        self,
        state: MatchState,
        seat: Seat,
        *,
        inp: TextIO,
        out: TextIO,
        opponents: str = "heuristic",
    ) -> None:
        self.state = state
        self.seat = seat
        self.inp = inp
        self.out = out
        isatty = getattr(inp, "isatty", None)
        self.echo_free = bool(isatty and isatty())
        """Whether the terminal shows the answers as they are typed."""
        self.players: dict[Seat, Player] = {
            other: PLAYER_KINDS[opponents]() if other is not seat else self.choose for other in Seat
        }
        self._seated = seat_players(self.players, state.seed)

    def say(self, *lines: str) -> None:
        """Print lines for the person."""
        for line in lines:
            print(line, file=self.out)
        self.out.flush()

    def play(self) -> int:
        """Play to the end of the match (or until the person leaves); the exit status.

        0 when the match is played to its end or the person leaves it (``quit``); 1
        when it is left unfinished otherwise (the end of the input, a run of throw-ins
        without end, the output closed); 130 when interrupted.
        """
        try:
            play_match(self.players, start=self.state, watch=self.watch)
        except _Leave as leaving:
            self.say(str(leaving))
            return leaving.status
        except PlayerError as error:
            self.say("", f"{error} The match is left unfinished.")
            return common.EXIT_INVALID
        except BrokenPipeError:
            # Nobody reads the table any more: stop without a word, the match unfinished.
            common.silence(self.out)
            return common.EXIT_INVALID
        except KeyboardInterrupt as error:
            words, status = common.interruption(error)
            self.say("", f"{words.capitalize()}: the match is left unfinished.")
            return status
        self.say("", self.result())
        return common.EXIT_OK

    def step(self) -> None:
        """One action (a deal, or the seat to move acting), and what it changed told."""
        before = self.state
        action, after = play_step(before, self._seated)
        self.watch(before, action, after)

    def watch(self, before: MatchState, action: Action, after: MatchState) -> None:
        """Tell the person what an action did: a new deal, a computer's action, its effects."""
        self.state = after
        if isinstance(action, Deal):
            self.announce_deal()
            return
        if action.seat is not self.seat:
            if isinstance(action, Bid):
                self.say(f"{_name(action.seat)} {_call(action)}.")
            else:
                self.say(f"{_name(action.seat)} plays {action.card.symbol} ({action.card.words}).")
        self.report(before)

    def announce_deal(self) -> None:
        """The new deal: size, dealer, turned card and trump in words, and the hand."""
        seen = view(self.state, self.seat)
        deal = seen.deal
        assert deal is not None
        rules = self.state.rules
        kind = (
            "Tiebreak deal" if deal.tiebreak else f"Deal {seen.counted_deals + 1} of {rules.deals}"
        )
        if seen.history and seen.history[-1].thrown_in:
            kind += " (re-deal)"
        self.say(
            "",
            f"{kind}: {counted(deal.hand_size, 'card')} each, {_name(deal.dealer)} deals. "
            f"Turned {deal.turned.symbol} ({deal.turned.words}): {trump_words(deal.trump)}.",
        )
        if deal.swap is not None:
            self.say(
                f"You held {deal.swap.joker.words}: you swap it for "
                f"{deal.swap.received.words} (nobody else sees this)."
            )
        if deal.tiebreak:
            self.say("No bidding in a tiebreak deal: the side taking more tricks wins.")
        self.say(f"Your hand: {marked_hand(seen.hand, deal.trump, ())}")

    def report(self, before: MatchState) -> None:
        """What the last action changed: warnings, the targets, a trick, the deal's end."""
        after = self.state
        old = before.deal
        assert old is not None
        if after.deal is not None and len(after.bids) > len(old.bids):
            for warning in after.deal.warnings:
                if warning not in old.warnings:
                    self.say(f"Warning: {warning.message} (bid stands; play goes on)")
            if len(after.bids) == 4:
                seen = view(after, self.seat).deal
                assert seen is not None
                leader = f" {_name(after.to_move)} leads." if after.to_move is not None else ""
                self.say(f"Bidding over. NS {_target(seen, 0)}, EW {_target(seen, 1)}.{leader}")
        if len(after.history) > len(before.history):
            finished = view(after, self.seat).history[-1]
            self.report_trick(finished)
            self.report_deal_end(finished)
        elif after.deal is not None and len(after.deal.tricks) > len(old.tricks):
            seen = view(after, self.seat).deal
            assert seen is not None
            self.report_trick(seen)

    def report_trick(self, deal: DealView) -> None:
        """The last trick and who won it, and each side's tricks beside its target."""
        if not deal.tricks:
            return
        trick = deal.tricks[-1]
        ns, ew = deal.tricks_won
        self.say(
            f"Trick {len(deal.tricks)}: {trick_text(trick)}.",
            f"Tricks: NS {ns} ({_target(deal, 0)}), EW {ew} ({_target(deal, 1)}).",
        )

    def report_deal_end(self, deal: DealView) -> None:
        """A thrown-in deal, or the deal's scores, the totals and the running score sheet."""
        seen = view(self.state, self.seat)
        if deal.thrown_in:
            again = dealer_of_deal(self.state.rules, len(self.state.history))
            self.say(throw_in_sentence(again, deal.hand_size))
            return
        if not deal.tiebreak and deal.scores is not None:
            ns, ew = seen.totals
            self.say(
                f"Deal over. NS score {deal.scores[0]:+d}, EW score {deal.scores[1]:+d}; "
                f"totals NS {ns}, EW {ew}."
            )
        self.say(*score_sheet(seen))

    def result(self) -> str:
        """The match's result in a sentence."""
        outcome = self.state.outcome
        assert outcome is not None
        return f"Match over: {result_sentence(outcome, seat=self.seat)}."

    # --- asking the person ---------------------------------------------------------

    def choose(self, seen: SeatView, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        """The person's action, as a :class:`~backalley.players.Player`: asked at the prompt."""
        return self.ask(legal)

    def ask(self, legal: tuple[Bid | Play, ...]) -> Bid | Play:
        """Show the position and read an answer until it is a legal action."""
        self.show_position(legal)
        bidding = isinstance(legal[0], Bid)
        while True:
            self.out.write("Your bid: " if bidding else "Your card: ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                raise _Leave("\nEnd of input: the match is left unfinished.")
            if not self.echo_free:
                # Piped answers are not echoed by a terminal: echo them, for a readable log.
                self.out.write(line if line.endswith("\n") else line + "\n")
            answer = line.strip().lower()
            if not answer and len(legal) == 1 and isinstance(legal[0], Play):
                # The only legal card: Enter plays it, as the position said.
                return legal[0]
            if not answer:
                continue
            if answer in ("?", "help"):
                self.say(_HELP, "Legal: " + " ".join(_code(action) for action in legal))
                continue
            if answer in ("quit", "exit"):
                raise _Leave("You leave the table: the match is left unfinished.", common.EXIT_OK)
            if answer == "score":
                self.say(*score_sheet(view(self.state, self.seat)))
                continue
            action = self.read(answer, bidding)
            if action is None:
                continue
            try:
                apply(self.state, action)
            except IllegalAction as refusal:
                self.say(refusal.message)
                continue
            return action

    def read(self, answer: str, bidding: bool) -> Bid | Play | None:
        """The action an answer names, or None after saying why it names none."""
        if bidding:
            aliases = {"p": "pass", "b": "board"}
            try:
                return parse_bid(self.seat, aliases.get(answer, answer))
            except ValueError as error:
                self.say(f"{error}. It is the bidding: say pass, a number or board.")
                return None
        try:
            return Play(self.seat, Card.parse(answer))
        except ValueError as error:
            self.say(f"{error}.")
            return None

    def show_position(self, legal: tuple[Bid | Play, ...]) -> None:
        """Whose turn, the trump, the bids or the trick so far, and the hand marked."""
        seen = view(self.state, self.seat)
        deal = seen.deal
        assert deal is not None
        doing = "bid" if seen.phase is Phase.BID else "play"
        self.say("", f"Your turn ({_name(self.seat)}) to {doing}; {trump_words(deal.trump)}.")
        if seen.phase is Phase.BID:
            said = ", ".join(f"{_name(bid.seat)} {bid.call}" for bid in deal.bids)
            self.say(f"Bids so far: {said or 'none'}.")
            self.say(f"Your hand: {marked_hand(seen.hand, deal.trump, ())}")
            top = deal.hand_size - 1
            numbers = "" if top == 0 else "1, " if top == 1 else f"1 to {top}, "
            self.say(f"You may bid pass, {numbers}or board.")
            return
        ns, ew = deal.tricks_won
        self.say(f"Tricks: NS {ns} ({_target(deal, 0)}), EW {ew} ({_target(deal, 1)}).")
        trick = deal.current_trick
        if trick is not None and trick.cards:
            self.say(f"This trick: {trick_text(trick)}")
        elif deal.tricks:
            self.say(f"Last trick: {trick_text(deal.tricks[-1])}. You lead.")
        else:
            self.say("You lead.")
        cards = [action.card for action in legal if isinstance(action, Play)]
        self.say(f"Your hand: {marked_hand(seen.hand, deal.trump, cards)}")
        if len(cards) == 1:
            self.say(f"Only {cards[0].words} may be played: press Enter to play it.")


def _code(action: Bid | Play) -> str:
    return action.call if isinstance(action, Bid) else action.card.code
