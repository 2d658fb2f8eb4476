"""``backalley analyze RECORD``: each deal's double-dummy tricks and the cards that cost tricks.

Replays a game record and, deal by deal, solves the position before every card
(every hand seen, both pairs at their best from then on; :mod:`backalley.solver`):
the tricks each pair would take at the first lead beside the tricks it took, and
every card that cost its pair tricks against best play (who, which card, how
many, and the cards that were best instead). Then a summary per seat.
``--json`` prints the same as one JSON document; ``--svg DIR`` draws each
finished deal with its costly cards marked (``deal-N.svg``). An illegal record
ends with the refusal (exit status 1); input that is not a record exits with 2.
While it works, a progress bar (cards analysed of the record's cards) is drawn on
standard error when that is a terminal; ``--progress`` draws it anyway and
``--no-progress`` never does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.cards import PAIRS, Card
from ..engine.state import MatchState
from ..formats.checking import IllegalRecord, replay_steps
from ..formats.records import Record, RecordError
from ..pictures.prose import PAIR_NAMES, deal_labels
from ..pictures.svg import deal_svg
from ..solver.analysis import (
    DealAnalysis,
    Progress,
    analysis_document,
    analyze_match,
    seat_summaries,
)
from ._common import (
    EXIT_INVALID,
    EXIT_OK,
    CommandError,
    Commands,
    ProgressBar,
    add_command,
    add_json_option,
    write_lines,
)
from ._recordfile import read_record

__all__ = ["add_parser", "analyze_record", "run"]

HELP = "show each deal's double-dummy tricks and the cards that cost tricks"
"""The command's line in ``backalley --help``."""
DESCRIPTION = """\
Replay a game record and solve every position double dummy (all hands seen, best play
by both pairs): each deal's tricks at the first lead beside the tricks taken, every card
that cost tricks (who, which, how many, the best cards instead), and a summary per seat."""


def add_parser(commands: Commands) -> None:
    """Register ``backalley analyze``."""
    parser = add_command(commands, "analyze", run, HELP, DESCRIPTION)
    parser.add_argument("record", metavar="RECORD", help="a record file ('-' reads stdin)")
    add_json_option(parser)
    parser.add_argument(
        "--svg",
        metavar="DIR",
        help="write a picture of each finished deal, its costly cards marked, into DIR",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw a progress bar on standard error (default: when it is a terminal)",
    )


def analyze_record(
    record: Record, progress: Progress | None = None
) -> tuple[list[DealAnalysis | None], MatchState]:
    """Each deal's analysis (None for a deal without play: thrown in) and the final state.

    The record is replayed first (:func:`~backalley.solver.analysis.analyze_match`
    then analyses the final state, telling ``progress`` of each card). Raises
    :class:`IllegalRecord` at the record's first illegal action, before anything
    is solved.
    """
    final = replay_steps(record)
    return analyze_match(final, progress), final


def _card_list(cards: tuple[Card, ...]) -> str:
    return ", ".join(str(card) for card in cards)


def _text(analyses: list[DealAnalysis | None], record: Record, labels: list[str]) -> list[str]:
    lines = []
    for number, analysis in enumerate(analyses, start=1):
        size = len(record.deals[number - 1].plays)
        # Numbered as the table numbers it (a re-deal at its place in the schedule).
        label = labels[number - 1] if number <= len(labels) else f"Deal {number}"
        if analysis is None:
            lines.append(f"{label}: no play (thrown in)")
            continue
        (dd_ns, dd_ew), (ns, ew) = analysis.double_dummy, analysis.taken
        lines.append(
            f"{label}: double dummy NS {dd_ns}, EW {dd_ew}; taken NS {ns}, EW {ew}"
            + ("" if size % 4 == 0 and size else " (unfinished)")
        )
        for costly in analysis.costly:
            tricks = "trick" if costly.lost == 1 else "tricks"
            lines.append(
                f"  trick {costly.trick}: {costly.seat.letter} played {costly.card}, "
                f"cost {costly.lost} {tricks} (best: {_card_list(costly.best)})"
            )
    lines.append("")
    lines.append("Per seat: cards played, costly cards, tricks lost")
    for summary in seat_summaries([a for a in analyses if a is not None]):
        lines.append(
            f"  {summary.seat.letter}: {summary.cards} cards, {summary.costly} costly, "
            f"{summary.lost} {'trick' if summary.lost == 1 else 'tricks'} lost"
        )
    return lines


def _pictures(analyses: list[DealAnalysis | None], final: MatchState, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, analysis in enumerate(analyses, start=1):
        if analysis is None or number > len(final.history):
            continue
        result = final.history[number - 1]
        marks = {(costly.trick, costly.seat): costly.lost for costly in analysis.costly}
        dd = analysis.double_dummy
        ns, ew = PAIR_NAMES[PAIRS[0]], PAIR_NAMES[PAIRS[1]]
        remarks = [f"Double dummy: {ns} {dd[0]}, {ew} {dd[1]} tricks"] + [
            f"Trick {costly.trick}: {costly.seat.name.title()}'s {costly.card} cost "
            f"{costly.lost} (best {_card_list(costly.best)})"
            for costly in analysis.costly
        ]
        (folder / f"deal-{number}.svg").write_text(
            deal_svg(result, marks=marks, remarks=remarks), encoding="utf-8"
        )


def run(args: argparse.Namespace) -> int:
    """Print the analysis (and draw it with ``--svg``)."""
    try:
        record = read_record(args.record)
    except RecordError as error:
        raise CommandError(f"{args.record}: not a record: {error}") from None
    show = sys.stderr.isatty() if args.progress is None else args.progress
    bar: ProgressBar | None = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = ProgressBar(sys.stderr, total, "cards analysed")
        bar(done)

    try:
        analyses, final = analyze_record(record, progress if show else None)
    except IllegalRecord as error:
        write_lines(
            [
                f"Illegal at {error.path} ({error.where}): {error.action} "
                f"[{error.reason.value}] {error.refusal.message}"
            ]
        )
        return EXIT_INVALID
    finally:
        if bar is not None:
            bar.clear()
    if args.svg is not None:
        _pictures(analyses, final, Path(args.svg))
    if args.json:
        write_lines([json.dumps(analysis_document(analyses), indent=2)])
    else:
        write_lines(_text(analyses, record, deal_labels(final)))
    return EXIT_OK
