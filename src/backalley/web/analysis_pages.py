"""A finished match's analysis at the table: its page, and where it stands.

- ``GET /analysis/TOKEN``: the finished match's analysis page;
- ``GET /analysis/TOKEN/status``: where it stands, as JSON (asked for on the
  first request, made in a worker process: :mod:`backalley.web.analysis`),
  refused like the record while the match is on.
"""

from __future__ import annotations

from typing import Final

from .._extras import require_extra

require_extra("backalley table", "web", ["starlette", "uvicorn", "websockets"])

from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse, Response  # noqa: E402

from .addresses import client_address  # noqa: E402
from .analysis import Analyses  # noqa: E402
from .connections import refusal_of  # noqa: E402
from .pages import seat_file  # noqa: E402
from .rooms import Refused, Tables  # noqa: E402

__all__ = ["AnalysisPages"]


_STATUS: Final = {"analysis_not_yet": 409, "analysis_share": 429}
"""The HTTP status of a refused analysis, by reason (the queue full: 503)."""


class AnalysisPages:
    """The routes of a finished match's analysis."""

    def __init__(self, tables: Tables, analyses: Analyses) -> None:
        self.tables = tables
        self.analyses = analyses

    async def analysis_page(self, request: Request) -> Response:
        """The page showing a finished match's analysis (it asks for it, and shows progress)."""
        return seat_file(self.tables, request, "analysis.html")

    async def analysis_status(self, request: Request) -> Response:
        """Where the match's analysis stands (asked for if it is not yet), as JSON."""
        try:
            room, seat = self.tables.seat_of(request.path_params["token"])
        except Refused as refused:
            return JSONResponse(refusal_of(refused.reason, refused.message), 404)
        try:
            job = await self.analyses.ask(room, client_address(request.scope))
        except Refused as refused:
            status = _STATUS.get(refused.reason, 503)
            return JSONResponse(refusal_of(refused.reason, refused.message), status)
        # The seat whose link asks: its page puts that seat's own cards first.
        return JSONResponse({**job.as_json(self.analyses.budget), "seat": seat.letter})
