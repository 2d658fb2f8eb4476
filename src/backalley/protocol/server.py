r"""The protocol server for backalley's own engine: requests in, replies out.

:class:`Session` answers one request at a time (a dict in, a dict out) and is
what the fuzzer uses in-process as the reference. :func:`serve` speaks the
protocol over a pair of byte streams: it answers every complete line that has
arrived, then writes the replies together, so a client that sends many
requests at once pays for one write and one read.

>>> session = Session()
>>> session.handle({"type": "new_match", "rules": {"schedule": [1], "tie": "draw",
...     "first_dealer": "N"}, "seed": 5})["facts"]["phase"]
'deal'
>>> session.handle({"type": "apply", "action": "N 3"})["reason"]
'wrong_phase'
>>> session.answer(b'{"type":"legal"}')
b'{"type":"legal","actions":[]}\n'
"""

from __future__ import annotations

import json
from typing import Any, BinaryIO, Final

from ..core.actions import Bid, Deal, Play
from ..core.dealing import MAX_SEED
from ..core.errors import IllegalAction
from ..engine.match import apply, legal_actions, new_match
from ..engine.state import MatchState
from ._codec import CodecError, rules_from_json
from .messages import (
    APPLY_REQUESTS,
    CAPABILITIES,
    ENGINE_NAME,
    OK_LINE,
    PROTOCOL,
    REQUEST_TYPES,
    VERSION,
    MessageError,
    encode,
    facts,
    legal_line,
    parse_action,
)

__all__ = ["MAX_LINE_BYTES", "Session", "serve"]

MAX_LINE_BYTES: Final = 1 << 20
"""A request line longer than 1 MiB is refused: the longest real one is under 1 KiB."""

_HELLO: Final = {
    "type": "hello",
    "protocol": PROTOCOL,
    "version": VERSION,
    "engine": ENGINE_NAME,
    "capabilities": list(CAPABILITIES),
}


def _error(message: str) -> dict[str, Any]:
    return {"type": "error", "message": message}


class Session:
    """One client's conversation with the engine: the match in progress and its replies.

    :meth:`answer` takes a request line and gives the reply line; :meth:`handle`
    does the same for parsed JSON.
    """

    def __init__(self) -> None:
        self.state: MatchState | None = None
        self.finished = False
        """True once ``bye`` was answered."""

    def handle(self, request: Any) -> dict[str, Any]:
        """The reply to one request (already parsed from JSON), parsed."""
        reply: dict[str, Any] = json.loads(self._reply(request))
        return reply

    def answer(self, line: bytes) -> bytes:
        """The reply line to one request line."""
        if line == _LEGAL_REQUEST:
            # The commonest requests, answered without parsing them.
            return self._legal()
        action = APPLY_REQUESTS.get(line)
        if action is not None:
            return self.apply(action)
        if len(line) > MAX_LINE_BYTES:
            return encode(_error(f"a request line is at most {MAX_LINE_BYTES} bytes"))
        try:
            request = json.loads(line)
        except ValueError as error:
            return encode(_error(f"not JSON: {error}"))
        return self._reply(request)

    def _reply(self, request: Any) -> bytes:
        try:
            return self._dispatch(request)
        except MessageError as error:
            return encode(_error(str(error)))

    def _dispatch(self, request: Any) -> bytes:
        if not isinstance(request, dict):
            raise MessageError(f"a request is a JSON object, not {json.dumps(request)[:60]}")
        kind = request.get("type")
        if kind == "apply":
            if len(request) != 2:
                _only(request, ("type", "action"))
            if "action" not in request:
                raise MessageError("apply: the field 'action' is missing")
            return self.apply(parse_action(request["action"]))
        if kind == "legal":
            _only(request, ("type",))
            return self._legal()
        if kind == "facts":
            _only(request, ("type",))
            return encode({"type": "facts", "facts": facts(self._state())})
        if kind == "new_match":
            return self._new_match(request)
        if kind == "hello":
            return self._hello(request)
        if kind == "bye":
            _only(request, ("type",))
            self.finished = True
            return encode({"type": "bye"})
        raise MessageError(f"unknown request type {kind!r}: one of {', '.join(REQUEST_TYPES)}")

    def _state(self) -> MatchState:
        if self.state is None:
            raise MessageError("no match yet: send new_match first")
        return self.state

    def _hello(self, request: dict[str, Any]) -> bytes:
        _only(request, ("type", "protocol", "versions"))
        if request.get("protocol") != PROTOCOL:
            raise MessageError(f"hello: the protocol is {PROTOCOL!r}")
        versions = request.get("versions")
        if not isinstance(versions, list) or VERSION not in versions:
            raise MessageError(f"hello: this engine speaks version {VERSION} only")
        return encode(_HELLO)

    def _new_match(self, request: dict[str, Any]) -> bytes:
        _only(request, ("type", "rules", "seed"))
        if "rules" not in request:
            raise MessageError("new_match: the field 'rules' is missing")
        try:
            rules = rules_from_json(request["rules"])
        except CodecError as error:
            raise MessageError(f"new_match: {error}") from None
        seed = request.get("seed", 0)
        if type(seed) is not int or not 0 <= seed <= MAX_SEED:
            raise MessageError(f"new_match: a seed is a whole number 0 to 2**64 - 1, not {seed!r}")
        self.state = new_match(rules, seed=seed)
        return encode({"type": "facts", "facts": facts(self.state)})

    def apply(self, action: Bid | Play | Deal) -> bytes:
        """Apply an action: the ``ok`` reply, or the refusal."""
        try:
            self.state = apply(self._state(), action)
        except IllegalAction as error:
            return encode(
                {"type": "refused", "reason": error.reason.value, "message": error.message}
            )
        return OK_LINE

    def _legal(self) -> bytes:
        state = self._state()
        if state.deal is None:
            return _NO_LEGAL
        return legal_line(legal_actions(state))


_LEGAL_REQUEST: Final = b'{"type":"legal"}'
_NO_LEGAL: Final = b'{"type":"legal","actions":[]}\n'


def _only(request: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in request:
        if name not in names:
            raise MessageError(f"{request['type']}: unknown field {name!r}")


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer requests from ``stdin`` on ``stdout`` until ``bye`` or the end of input.

    Every complete line that has arrived is answered before the replies are
    flushed together. Blank lines are ignored. The exit status is 0.
    """
    session = Session()
    pending = b""
    read = getattr(stdin, "read1", stdin.read)
    while not session.finished:
        chunk = read(1 << 16)
        if not chunk:
            # The last line may lack its newline.
            lines, pending = [pending], b""
        else:
            pending += chunk
            *lines, pending = pending.split(b"\n")
        replies = []
        for line in lines:
            if line and not line.isspace():
                replies.append(session.answer(line))
                if session.finished:
                    # Nothing after bye is answered.
                    break
        if len(pending) > MAX_LINE_BYTES:
            replies.append(session.answer(pending))
            pending = b""
        if replies:
            stdout.write(b"".join(replies))
            stdout.flush()
        if not chunk:
            break
    return 0
