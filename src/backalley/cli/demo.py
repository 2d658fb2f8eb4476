"""``backalley demo``: a seeded match of random legal moves, printed deal by deal.

It plays a seeded match between four players who choose among
the legal actions at random, and prints it deal by deal with the score sheet.
The same seed gives the same match on every machine.
"""

from __future__ import annotations

import argparse
import random

from ..core.rules import Rules
from ..engine.bounds import playing
from ..engine.match import apply, legal_actions, new_match
from ..engine.state import DealResult, MatchState
from ..pictures.prose import SheetRow, counted, result_sentence, score_rows, sheet_lines
from . import _common as common
from ._common import rules_from

__all__ = ["add_parser", "demo", "rules_from", "run"]

DEFAULT_DEMO_SEED = 2026


HELP = "play a seeded match of random legal moves and print it deal by deal"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Play a match between four players who pick legal actions at random, and print every deal
with its bids, tricks and scores."""


def add_parser(commands: common.Commands) -> None:
    """Register ``backalley demo``."""
    parser = common.add_command(commands, "demo", run, HELP, DESCRIPTION)
    common.add_seed_option(parser, DEFAULT_DEMO_SEED, "seed for the deals and the players' choices")
    common.add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    """Play and print the demonstration match."""
    common.write_lines(demo(rules_from(args), args.seed))
    return common.EXIT_OK


def _describe(number: int, result: DealResult, totals: tuple[int, int]) -> list[str]:
    deal = result.deal
    setup = deal.setup
    if setup.trump is not None:
        trump = f"trumps {setup.trump.word} (turned {setup.turned.symbol})"
    else:
        trump = f"no trumps (turned the {setup.turned.name} joker)"
    kind = " (tiebreak deal)" if setup.tiebreak else ""
    cards = counted(setup.hand_size, "card")
    lines = [f"Deal {number}{kind}: {cards}, dealer {setup.dealer}, {trump}"]
    if deal.bids:
        lines.append("  bids:     " + ", ".join(str(bid) for bid in deal.bids))
    if result.thrown_in:
        lines.append("  all four passed: thrown in, the next dealer deals the same size again")
        return lines
    contracts = deal.contracts
    if contracts is not None:
        lines.append(f"  targets:  NS {contracts[0]}, EW {contracts[1]}")
    for warning in deal.warnings:
        lines.append(f"  warning:  {warning.message}")
    ns, ew = deal.tricks_won
    lines.append(f"  tricks:   NS {ns}, EW {ew}")
    if not setup.tiebreak:
        lines.append(
            f"  score:    NS {result.scores[0]:+d}, EW {result.scores[1]:+d}"
            f"   totals NS {totals[0]}, EW {totals[1]}"
        )
    return lines


def _outcome_line(state: MatchState) -> str:
    assert state.outcome is not None  # the caller plays the match to its end
    return f"Result: {result_sentence(state.outcome)}."


def demo(rules: Rules, seed: int) -> list[str]:
    """Play a seeded match of random legal actions; the printed lines, deal by deal."""
    chooser = random.Random(seed)
    state = new_match(rules, seed=seed)
    name = rules.schedule_name or "custom"
    lines = [f"Back Alley, {name} schedule ({counted(rules.deals, 'deal')}), seed {seed}", ""]
    shown = 0
    totals = [0, 0]
    while playing(state):
        state = apply(state, chooser.choice(legal_actions(state)))
        while shown < len(state.history):
            result = state.history[shown]
            totals[0] += result.scores[0]
            totals[1] += result.scores[1]
            shown += 1
            lines.extend(_describe(shown, result, (totals[0], totals[1])))
    lines.append("")
    lines.extend(_score_sheet(state))
    lines.append("")
    lines.append(_outcome_line(state))
    return lines


def _score_sheet(state: MatchState) -> list[str]:
    def head(deal: SheetRow) -> str:
        trump = "" if deal.kind == "thrown in" else f"{deal.trump_word:<9}"
        return f" {deal.number:4}  {deal.hand_size:5}  {deal.dealer!s:>6}  {trump}"

    return [
        "Score sheet",
        " deal  cards  dealer  trump          NS     EW  total NS  total EW",
        *sheet_lines(
            score_rows(state), head, thrown_in="thrown in", scored=" {:+6d} {:+6d}  {:8d}  {:8d}"
        ),
    ]
