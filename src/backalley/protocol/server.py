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
>>> session.handle({"type": "apply", "action": "N 03"})["code"]
'bad_action'
>>> session.answer(b'{"type":"legal"}')
b'{"type":"legal","actions":[]}\n'
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, BinaryIO, Final

from ..core.actions import Bid, Deal, Play
from ..core.cards import SEATS
from ..core.dealing import MAX_SEED
from ..core.errors import IllegalAction
from ..core.position import BID, PHASE, PLAY
from ..core.rules import RULES_VERSION
from ..engine.match import apply, legal_actions, new_match
from ..engine.state import MatchState
from ._codec import RecordError, integer, rules_from_json
from .messages import (
    APPLY_REQUESTS,
    CAPABILITIES,
    ENGINE_NAME,
    LEGAL_REQUEST,
    NO_LEGAL_LINE,
    OK_LINE,
    PROTOCOL,
    REQUEST_TYPES,
    VERSION,
    VIEW_REQUESTS,
    MessageError,
    encode,
    facts_line,
    legal_line,
    legal_play_line,
    parse_action,
    shown,
    view_line,
)

__all__ = ["MAX_LINE_BYTES", "Session", "read_request", "serve"]

_SEATS: Final = {seat.letter: seat for seat in SEATS}

MAX_LINE_BYTES: Final = 1 << 20
"""A request line longer than 1 MiB is refused: the longest real one is under 1 KiB."""

_HELLO: Final = {
    "type": "hello",
    "protocol": PROTOCOL,
    "version": VERSION,
    "engine": ENGINE_NAME,
    "capabilities": list(CAPABILITIES),
    "rules_version": RULES_VERSION,
}


def _error(error: MessageError) -> bytes:
    return encode({"type": "error", "code": error.code, "message": str(error)})


def _failure(error: Exception) -> bytes:
    """The ``error`` reply to a request that raised ``error``."""
    if not isinstance(error, MessageError):
        # A bug of ours, not of the request: said in the protocol, and the session goes on.
        error = MessageError(
            f"the engine failed on this request ({type(error).__name__}: {error})", "internal"
        )
    return _error(error)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise MessageError(
                f"not JSON as the protocol reads it: the key {key!r} twice", "not_json"
            )
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise MessageError(f"not JSON: {name} is not a JSON number", "not_json")


def read_request(line: bytes) -> Any:
    """A request line's JSON, read strictly: UTF-8, no key twice, no NaN or Infinity."""
    if len(line) > MAX_LINE_BYTES:
        raise MessageError(f"a request line is at most {MAX_LINE_BYTES} bytes", "line_too_long")
    try:
        # Fractions are read exactly (Decimal): a whole number written 7.0 or 7e0 is 7, as
        # JSON Schema says, in every field alike (``integer``), and never rounded as a double.
        return json.loads(
            line.decode("utf-8"),
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_float=Decimal,
        )
    except UnicodeDecodeError as error:
        raise MessageError(f"not JSON: byte {error.start} is not UTF-8 text", "not_json") from None
    except json.JSONDecodeError as error:
        raise MessageError(f"not JSON: column {error.colno}: {error.msg}", "not_json") from None
    except RecursionError:
        raise MessageError(
            "not JSON as the protocol reads it: nested too deeply", "not_json"
        ) from None
    except MessageError:
        raise
    except ValueError:
        # Python refuses integers of more than 4300 digits: no request needs one.
        raise MessageError(
            "not JSON as the protocol reads it: a number too long", "not_json"
        ) from None


class Session:
    """One client's conversation with the engine: the match in progress and its replies.

    :meth:`answer` takes a request line and gives the reply line; :meth:`handle`
    does the same for parsed JSON. Every request gets exactly one reply: a
    request that is not a message of the protocol gets an ``error`` reply (with
    a code of :data:`~.messages.ERROR_CODES`) and the session goes on.
    """

    def __init__(self) -> None:
        self.state: MatchState | None = None
        self.finished = False
        """True once ``bye`` was answered."""

    def handle(self, request: Any) -> dict[str, Any]:
        """The reply to one request (already parsed from JSON), parsed."""
        try:
            line = self._dispatch(request)
        except Exception as error:  # every request gets its one reply, even on a bug of ours
            line = _failure(error)
        reply: dict[str, Any] = json.loads(line)
        return reply

    def answer(self, line: bytes) -> bytes:
        """The reply line to one request line."""
        try:
            state = self.state
            if state is not None:
                # The commonest requests, answered without parsing them, and written out
                # rather than through _legal and apply: two calls fewer a request.
                if line == LEGAL_REQUEST:
                    return _legal_of(state)
                action = APPLY_REQUESTS.get(line)
                if action is not None:
                    try:
                        self.state = apply(state, action)
                    except IllegalAction as error:
                        return _refused(error)
                    return OK_LINE
                seat = VIEW_REQUESTS.get(line)
                if seat is not None:
                    return view_line(state, seat)
            return self._dispatch(read_request(line))
        except Exception as error:  # every request gets its one reply, even on a bug of ours
            return _failure(error)

    def _dispatch(self, request: Any) -> bytes:
        if not isinstance(request, dict):
            raise MessageError(f"a request is a JSON object, not {shown(request)}")
        kind = request.get("type")
        if kind == "apply":
            if len(request) != 2:
                _only(request, ("type", "action"))
            if "action" not in request:
                raise MessageError("apply: the field 'action' is missing", "missing_field")
            action = parse_action(request["action"])
            self._state()
            return self.apply(action)
        if kind == "legal":
            _only(request, ("type",))
            return self._legal()
        if kind == "facts":
            _only(request, ("type",))
            return facts_line(self._state())
        if kind == "view":
            return self._view(request)
        if kind == "new_match":
            return self._new_match(request)
        if kind == "hello":
            return self._hello(request)
        if kind == "bye":
            _only(request, ("type",))
            self.finished = True
            return encode({"type": "bye"})
        if "type" not in request:
            raise MessageError(
                f"a request has a 'type': one of {', '.join(REQUEST_TYPES)}", "missing_field"
            )
        raise MessageError(f"unknown request type {shown(kind)}: one of {', '.join(REQUEST_TYPES)}")

    def _state(self) -> MatchState:
        if self.state is None:
            raise MessageError("no match yet: send new_match first", "no_match")
        return self.state

    def _hello(self, request: dict[str, Any]) -> bytes:
        _only(request, ("type", "protocol", "versions"))
        for name in ("protocol", "versions"):
            if name not in request:
                raise MessageError(f"hello: the field {name!r} is missing", "missing_field")
        if request["protocol"] != PROTOCOL:
            raise MessageError(f"hello: the protocol is {PROTOCOL!r}", "bad_hello")
        versions = request["versions"]
        if (
            type(versions) is not list
            or not versions
            or any(integer(version) is None for version in versions)
        ):
            raise MessageError("hello.versions: a list of whole numbers such as [1]", "bad_hello")
        if VERSION not in map(integer, versions):
            raise MessageError(f"hello: this engine speaks version {VERSION} only", "bad_hello")
        return encode(_HELLO)

    def _new_match(self, request: dict[str, Any]) -> bytes:
        _only(request, ("type", "rules", "seed"))
        if "rules" not in request:
            raise MessageError("new_match: the field 'rules' is missing", "missing_field")
        try:
            rules = rules_from_json(request["rules"])
        except RecordError as error:
            raise MessageError(f"new_match: {error}", "bad_rules") from None
        given = request.get("seed", 0)
        seed = integer(given)
        if seed is None or not 0 <= seed <= MAX_SEED:
            raise MessageError(
                "new_match.seed: a whole number 0 to 2**64 - 1 (18446744073709551615), "
                f"not {shown(given)}",
                "bad_seed",
            )
        self.state = new_match(rules, seed=seed)
        return facts_line(self.state)

    def apply(self, action: Bid | Play | Deal) -> bytes:
        """Apply an action: the ``ok`` reply, or the refusal."""
        try:
            self.state = apply(self._state(), action)
        except IllegalAction as error:
            return _refused(error)
        return OK_LINE

    def _view(self, request: dict[str, Any]) -> bytes:
        _only(request, ("type", "seat"))
        if "seat" not in request:
            raise MessageError("view: the field 'seat' is missing", "missing_field")
        letter = request["seat"]
        seat = _SEATS.get(letter) if type(letter) is str else None
        if seat is None:
            raise MessageError(
                f"view.seat: a seat letter, N, E, S or W, not {shown(letter)}", "bad_seat"
            )
        return view_line(self._state(), seat)

    def _legal(self) -> bytes:
        return _legal_of(self._state())


def _legal_of(state: MatchState) -> bytes:
    """The ``legal`` reply: none between deals, plays read off the allowed-card mask."""
    phase = state.position[PHASE]
    if phase == PLAY:
        return legal_play_line(state)
    if phase != BID:  # no deal in progress
        return NO_LEGAL_LINE
    return legal_line(legal_actions(state))


def _refused(error: IllegalAction) -> bytes:
    """The ``refused`` reply to an illegal action: its reason code and message."""
    return encode({"type": "refused", "reason": error.reason.value, "message": error.message})


def _only(request: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in request:
        if name not in names:
            raise MessageError(f"{request['type']}: unknown field {name!r}", "unknown_field")


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer requests from ``stdin`` on ``stdout`` until ``bye`` or the end of input.

    Every complete line that has arrived is answered before the replies are
    flushed together; every request line gets exactly one reply, an ``error``
    reply for a line that is not a request (the session goes on). Blank lines
    are ignored; lines after ``bye`` are not read. A line longer than
    :data:`MAX_LINE_BYTES` gets one ``error`` reply and is skipped to its end.
    The exit status is 0 (``docs/protocol.md``, "Exit status"): a stream that
    cannot be read or written raises ``OSError`` (``BrokenPipeError`` when the
    client went away), after every reply already computed has been written.
    """
    session = Session()
    pending = b""
    skipping = False
    read = getattr(stdin, "read1", stdin.read)
    while not session.finished:
        chunk = read(1 << 16)
        replies = []
        if skipping:
            # The rest of an overlong line, already answered: dropped up to its newline.
            end = chunk.find(b"\n")
            if end < 0:
                if chunk:
                    continue
                break
            chunk, skipping = chunk[end + 1 :], False
            if not chunk:
                continue
        if not chunk:
            # The last line may lack its newline.
            lines, pending = [pending], b""
        else:
            pending += chunk
            *lines, pending = pending.split(b"\n")
        for line in lines:
            if line and not line.isspace():
                replies.append(session.answer(line))
                if session.finished:
                    # Nothing after bye is answered.
                    break
        if len(pending) > MAX_LINE_BYTES and not session.finished:
            replies.append(session.answer(pending))
            pending, skipping = b"", True
        if replies:
            stdout.write(b"".join(replies))
            stdout.flush()
        if not chunk:
            break
    return 0
