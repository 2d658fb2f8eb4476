"""``backalley replay RECORD``: a game record as a readable transcript, deal by deal.

Each deal shows the dealer, the turned card and trump, the hands as dealt (and
a joker swap), the bids and targets, every trick with its winner, and the
scores with the running totals. An illegal action ends the transcript with the
refusal (exit status 1); input that is not a record exits with status 2.
"""

from __future__ import annotations

import argparse

from ..core.cards import Seat, cards_of
from ..core.flow import thrown_in
from ..engine.match import new_match
from ..engine.state import DealState, MatchState
from ..formats.checking import IllegalRecord, replay_steps
from ..formats.records import Record, RecordError
from ..pictures.prose import PAIR_NAMES, counted, deal_heading, deal_labels
from ..pictures.text import hand_text, trick_text
from ._common import EXIT_INVALID, EXIT_OK, CommandError, Commands, add_command, write_lines
from ._recordfile import read_record

__all__ = ["add_parser", "run", "transcript"]


HELP = "print a game record as a readable transcript"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Replay a game record and print it deal by deal: hands, trump, bids, tricks with their
winners, and scores."""


def add_parser(commands: Commands) -> None:
    """Register ``backalley replay``."""
    parser = add_command(commands, "replay", run, HELP, DESCRIPTION)
    parser.add_argument("record", metavar="RECORD", help="a record file ('-' reads stdin)")


def _deal_lines(
    deal: DealState, scores: tuple[int, int] | None, totals: tuple[int, int], label: str
) -> list[str]:
    setup = deal.setup
    # Numbered as the table numbers it: "Deal 8 of 14 (re-deal)".
    heading = deal_heading(setup, label=label)
    if setup.tiebreak:
        heading += " (no bidding: more tricks wins)"
    lines = [heading]
    dealt = {seat: setup.hands[seat] for seat in Seat}
    if setup.swap is not None:
        swap = setup.swap
        # Show the hand as dealt, before the swap, then the swap itself.
        dealt[swap.seat] ^= (1 << swap.joker) | (1 << swap.received)
    for seat in (setup.dealer.after(k) for k in range(1, 5)):
        lines.append(f"  {seat}: {hand_text(cards_of(dealt[seat]), setup.trump)}")
    if setup.swap is not None:
        swap = setup.swap
        lines.append(f"  {swap.seat} swaps the {swap.joker.name} joker for {swap.received.symbol}")
    if deal.bids:
        lines.append("  Bids: " + ", ".join(str(bid) for bid in deal.bids))
    contracts = deal.contracts
    if contracts is not None:
        lines.append(f"  Targets: NS {contracts[0]}, EW {contracts[1]}")
    for warning in deal.warnings:
        lines.append(f"  Warning: {warning.message}")
    for number, trick in enumerate(deal.tricks, start=1):
        lines.append(f"  Trick {number}: {trick_text(trick)}")
    current = deal.current_trick
    if current is not None and current.cards:
        lines.append(f"  Trick {len(deal.tricks) + 1} (unfinished): {trick_text(current)}")
    if scores is None:
        return lines
    if thrown_in(deal.bids):
        lines.append("  All four passed: thrown in; the next dealer deals the same size again.")
        return lines
    ns, ew = deal.tricks_won
    if setup.tiebreak:
        lines.append(f"  Tricks: NS {ns}, EW {ew}")
    else:
        lines.append(
            f"  Tricks: NS {ns}, EW {ew}; score NS {scores[0]:+d}, EW {scores[1]:+d}; "
            f"totals NS {totals[0]}, EW {totals[1]}"
        )
    return lines


def transcript(record: Record) -> tuple[list[str], IllegalRecord | None]:
    """The transcript's lines, and the refusal that stopped the replay (None if legal)."""
    last = [new_match(record.rules, seed=record.seed)]

    def remember(_: object, state: MatchState) -> None:
        last[0] = state

    refusal = None
    try:
        state = replay_steps(record, remember)
    except IllegalRecord as error:
        state, refusal = last[0], error
    rules = record.rules
    name = rules.schedule_name or "custom (" + ", ".join(map(str, rules.schedule)) + ")"
    lines = [
        f"Back Alley: {name} schedule, {counted(rules.deals, 'deal')}, ties {rules.tie.value}, "
        f"first dealer {rules.first_dealer}, seed {record.seed}"
    ]
    totals = [0, 0]
    labels = deal_labels(state)
    for index, result in enumerate(state.history):
        totals[0] += result.scores[0]
        totals[1] += result.scores[1]
        lines.append("")
        lines.extend(_deal_lines(result.deal, result.scores, (totals[0], totals[1]), labels[index]))
    if state.deal is not None:
        lines.append("")
        lines.extend(_deal_lines(state.deal, None, state.totals, labels[-1]))
    lines.append("")
    if refusal is not None:
        lines.append(
            f"Illegal at {refusal.path} ({refusal.where}): {refusal.action} "
            f"[{refusal.reason.value}] {refusal.refusal.message}"
        )
    elif state.outcome is not None:
        outcome = state.outcome
        ns, ew = outcome.totals
        winner = "a draw" if outcome.winner is None else f"{PAIR_NAMES[outcome.winner]} win"
        lines.append(f"Result: {winner} ({outcome.termination.value}); NS {ns}, EW {ew}")
    else:
        lines.append(
            f"The record stops here (a partial match); totals NS {totals[0]}, EW {totals[1]}"
        )
    return lines, refusal


def run(args: argparse.Namespace) -> int:
    """Print the transcript."""
    try:
        record = read_record(args.record)
    except RecordError as error:
        raise CommandError(f"{args.record}: not a record: {error}") from None
    lines, refusal = transcript(record)
    write_lines(lines)
    return EXIT_INVALID if refusal is not None else EXIT_OK
