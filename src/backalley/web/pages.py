"""The table's pages and fixed answers: the lobby, the how-to, a seat's page, its record.

- ``GET /``: the lobby (``static/lobby.html``): play the computer, or make a
  room for three friends; the short or the full game and the variants.
- ``POST /rooms``: make a room (a form: ``mode``, ``schedule``, ``tie``,
  ``first_dealer``, ``player``, each one of its choices); answered by a
  redirect to the host's seat.
- ``GET /seat/TOKEN``: the table (``static/table.html``) for the seat of that
  invitation.
- ``GET /how-to``: the how-to page, the table's own page walking a seven-card
  deal step by step (next, back, autoplay); ``GET /how-to/steps.json`` its steps
  (:mod:`backalley.web.howto`).
- ``GET /qr/TOKEN.svg``: the seat's link as a QR code (drawn by segno), for the
  host's page;
- ``GET /record/TOKEN``: the finished match as a game record (``backalley
  check`` validates it); refused while the match is on, since the record names
  the seed, and the seed tells every hand.

Every sentence written into a page is escaped (:func:`page`).
"""

from __future__ import annotations

import asyncio
import functools
import html
import io
import json
from importlib import resources
from typing import Final
from urllib.parse import parse_qs

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets", "segno"])

import segno  # noqa: E402
from starlette.requests import ClientDisconnect, Request  # noqa: E402
from starlette.responses import (  # noqa: E402
    HTMLResponse,
    RedirectResponse,
    Response,
)

from ..core.cards import Seat  # noqa: E402
from ..core.rules import SCHEDULES, Rules, TiePolicy  # noqa: E402
from ..formats.records import dumps, record_from_state  # noqa: E402
from .addresses import client_address  # noqa: E402
from .connections import log  # noqa: E402
from .counts import Counts  # noqa: E402
from .fixed import Fixed, FixedCache  # noqa: E402
from .forwarding import public_link  # noqa: E402
from .howto import howto_steps  # noqa: E402
from .limits import Limits  # noqa: E402
from .names import LEVELS, PLAY_NOW  # noqa: E402
from .rooms import COMPUTER_PLAYERS, MODES, Refused, Tables  # noqa: E402

__all__ = [
    "DEFAULT_TIE",
    "MAX_FORM_BYTES",
    "STATIC",
    "Pages",
    "answer",
    "page",
    "qr_svg",
    "seat_file",
    "static_page",
]

DEFAULT_TIE: Final = "tiebreak-deal"
"""The table's tie rule unless the lobby says otherwise: seed ``001``'s "a tie at the end
plays one more deal with no bidding" (the library's default, a draw, is ``docs/rules.md``'s)."""

MAX_FORM_BYTES: Final = 2048
"""The longest lobby form the server reads."""

STATIC: Final = resources.files("backalley.web") / "static"

_FORM_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "mode": MODES,
    "schedule": tuple(SCHEDULES),
    "tie": tuple(policy.value for policy in TiePolicy),
    "first_dealer": tuple(seat.letter for seat in Seat),
    "player": COMPUTER_PLAYERS,
}
"""Each field of the lobby's form and its choices: any other value is refused by name."""

_FORM_DEFAULTS: Final = {
    "schedule": "short",
    "tie": DEFAULT_TIE,
    "first_dealer": "N",
    "player": "heuristic",
}


def page(title: str, sentence: str, status: int) -> HTMLResponse:
    """A small page saying ``sentence`` (a refusal, an error) with an HTTP ``status``."""
    # Everything written into the page is escaped: a sentence may quote what was sent.
    title, sentence = html.escape(title), html.escape(sentence)
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title}</title><link rel="stylesheet" href="/static/table.css"></head>'
        f'<body class="message"><main><h1>{title}</h1><p role="alert">{sentence}</p>'
        '<p><a href="/">Back to the lobby</a></p></main></body></html>'
    )
    return HTMLResponse(body, status_code=status)


KEPT_RECORDS: Final = 64
"""Finished matches' records kept encoded (the most recently asked for)."""


@functools.cache
def static_page(name: str, cache_control: str = "no-cache") -> Fixed:
    """The page ``static/name``, read and kept once (``no-store`` under a seat's address)."""
    return Fixed(
        (STATIC / name).read_bytes(), "text/html; charset=utf-8", cache_control=cache_control
    )


@functools.cache
def howto_answer() -> Fixed:
    """The how-to deal's steps as JSON, encoded once."""
    body = json.dumps(howto_steps(), ensure_ascii=False, separators=(",", ":"))
    return Fixed(body.encode("utf-8"), "application/json")


def answer(request: Request, fixed: Fixed) -> Response:
    """``fixed`` as the answer to ``request``: ``304`` if its ``If-None-Match`` names it."""
    if fixed.matches(request.headers.get("if-none-match")):
        return Response(status_code=304, headers=fixed.headers)
    return Response(fixed.body, media_type=fixed.media_type, headers=fixed.headers)


def qr_svg(link: str) -> str:
    """A link as a QR code: a standalone SVG document (error correction M, 4 px a module)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(
        out, kind="svg", scale=4, border=2, dark="#1a1a1a", xmldecl=False
    )
    return out.getvalue().decode("utf-8")


@functools.cache
def _lobby_page() -> Fixed:
    """The lobby's file with its computer levels filled in, Play now's level chosen."""
    choices = "".join(
        f'<label><input type="radio" name="player" value="{html.escape(key)}"'
        f"{' checked' if key == PLAY_NOW else ''}> {html.escape(level.name)} "
        f"({html.escape(level.about)})</label>\n"
        for key, level in LEVELS.items()
    )
    text = (STATIC / "lobby.html").read_text(encoding="utf-8")
    first = html.escape(PLAY_NOW)
    filled = text.replace("<!-- levels -->\n", choices).replace("{first-level}", first)
    return Fixed(filled.encode("utf-8"), "text/html; charset=utf-8", cache_control="no-cache")


def seat_file(tables: Tables, request: Request, name: str) -> Response:
    """The static page ``name`` for a seat's link (``token``), or a 404 page if none."""
    try:
        tables.seat_of(request.path_params["token"])
    except Refused as refused:
        return page("No such seat", refused.message, 404)
    # Under a seat's address (its invitation): the browser keeps nothing.
    return answer(request, static_page(name, "no-store"))


class Pages:
    """The lobby, the rooms it makes, the how-to, a seat's page and its record."""

    def __init__(self, tables: Tables, limits: Limits, counts: Counts) -> None:
        self.tables = tables
        self.limits = limits
        self.counts = counts
        """The rooms each address made in the last minute (all processes of the table)."""
        self._making = 0
        """Rooms being made now (their forms read, their rows stored)."""
        self._records: FixedCache[tuple[str, Seat]] = FixedCache(KEPT_RECORDS)

    async def lobby(self, request: Request) -> Response:
        """The lobby page, its computer levels named from :data:`~backalley.web.names.LEVELS`."""
        return answer(request, _lobby_page())

    async def new_room(self, request: Request) -> Response:
        """Make a room from the lobby's form; go to the host's seat."""
        address = client_address(request.scope)
        if len(self.tables.rooms) + self._making >= self.limits.rooms:
            # Many addresses together: memory holds only so many rooms.
            log.warning("address %s: room refused: %d rooms open", address, self.limits.rooms)
            return page(
                "Not a room",
                "The table is full: too many rooms are open. Try again later.",
                503,
            )
        # Counted before anything is awaited (among the rooms; by address, at once in the
        # counts), so that forms sent at once cannot all pass the checks; given back if
        # no room is made.
        self._making += 1
        answer: Response | None = None
        allowed = False
        try:
            allowed = await self.counts.ask("room", address)
            if not allowed:
                log.warning(
                    "address %s: room refused: over %d a minute",
                    address,
                    self.limits.rooms_per_minute,
                )
                return page(
                    "Not a room",
                    f"At most {self.limits.rooms_per_minute} rooms a minute from one address: "
                    "wait a little.",
                    429,
                )
            answer = await self._make_room(request, address)
        finally:
            self._making -= 1
            if allowed and not isinstance(answer, RedirectResponse):
                self.counts.give_back("room", address)
        return answer

    async def _make_room(self, request: Request, address: str) -> Response:
        body = b""
        try:
            async with asyncio.timeout(self.limits.request_deadline):
                async for chunk in request.stream():
                    body += chunk
                    if len(body) > MAX_FORM_BYTES:
                        return page("Not a room", "That form is too long to be the lobby's.", 413)
        except ClientDisconnect:
            log.warning("address %s: room not made: the form was cut off", address)
            return Response(status_code=400)
        except TimeoutError:
            log.warning("address %s: room not made: the form took too long", address)
            return page("Not a room", "The form took too long to arrive.", 408)
        fields = {
            key: values[-1] for key, values in parse_qs(body.decode("utf-8", "replace")).items()
        }
        chosen = {**_FORM_DEFAULTS, **fields}
        for name, choices in _FORM_CHOICES.items():
            if chosen.get(name) not in choices:
                return page(
                    "Not a room",
                    f"The field {name} is one of {', '.join(choices)}; the form sent "
                    "something else.",
                    400,
                )
        try:
            rules = Rules(
                schedule=chosen["schedule"],
                tie=chosen["tie"],
                first_dealer=Seat.parse(chosen["first_dealer"]),
            )
            _room, token = await self.tables.create_later(
                chosen["mode"], rules, chosen["player"]
            ).done()
        except (Refused, ValueError) as error:
            sentence = error.message if isinstance(error, Refused) else f"{error}."
            return page("Not a room", sentence, 400)
        # The host's own link, whole with the public origin when there is one.
        return RedirectResponse(public_link(request.scope, f"/seat/{token}"), status_code=303)

    async def howto_page(self, request: Request) -> Response:
        """The how-to page: the table's page, walking the how-to deal instead of a seat."""
        return answer(request, static_page("table.html"))

    async def howto_json(self, request: Request) -> Response:
        """The how-to deal's steps (made and encoded once: the same deal every time)."""
        return answer(request, howto_answer())

    async def seat_page(self, request: Request) -> Response:
        """The table page for a seat's link."""
        return seat_file(self.tables, request, "table.html")

    async def qr_code(self, request: Request) -> Response:
        """A seat's link as a QR code (SVG), for the host to show a friend's phone.

        Only a seat's own link is drawn (an unknown token is a 404): the server is no
        QR code maker for anything else. The link is the one the host's page shows:
        on the table's public origin, or the address this page was asked at.
        """
        token = request.path_params["token"]
        try:
            self.tables.seat_of(token)
        except Refused as refused:
            return page("No such seat", refused.message, 404)
        # The public origin's link when the table has one (--public-url), as the host's
        # page shows it; else the address this page was asked at.
        path = request.app.url_path_for("seat", token=token)
        link = public_link(request.scope, str(path))
        if link == path:
            link = str(request.url_for("seat", token=token))
        return Response(
            qr_svg(link),
            media_type="image/svg+xml",
            headers={"Cache-Control": "private, max-age=3600"},
        )

    async def record(self, request: Request) -> Response:
        """The finished match as a game record, to download."""
        try:
            room, seat = self.tables.seat_of(request.path_params["token"])
        except Refused as refused:
            return page("No such seat", refused.message, 404)
        if not room.is_over:
            return page(
                "Not yet",
                "The record is ready when the match is over (it names the seed, which "
                "would tell every hand).",
                409,
            )

        def make() -> Fixed:
            tags = {"event": "backalley table", "room": room.id, "seat": seat.letter}
            text = dumps(record_from_state(room.state, tags=tags))
            disposition = f'attachment; filename="backalley-{room.id}.json"'
            return Fixed(
                text.encode("utf-8"),
                "application/json",
                cache_control="no-store",
                headers={"content-disposition": disposition},
            )

        # A finished match's record never changes: made once per seat, kept a while.
        return answer(request, self._records.get((room.id, seat), make))
