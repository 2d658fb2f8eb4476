"""The client side: an engine under test, started as a command and spoken to in JSON lines.

:class:`EngineProcess` starts the command, sends a batch of request lines and
reads the same number of reply lines. Writing and reading go on together (the
engine may answer before it has read everything), every reply must arrive
within ``timeout`` seconds of the one before, and any failure (an exit, a
timeout, a reply line too long to be one) raises :class:`ProtocolBroken` with
the engine's last lines of standard error. The process is killed on failure and
on :meth:`close`, so a hung engine never hangs its client.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import subprocess
import tempfile
import time
from typing import Final

__all__ = ["DEFAULT_TIMEOUT", "EngineProcess", "ProtocolBroken"]

DEFAULT_TIMEOUT: Final = 10.0
"""Seconds an engine may take over one reply."""

_MAX_REPLY_BYTES: Final = 1 << 20
_STDERR_TAIL: Final = 2000


class ProtocolBroken(Exception):
    """The engine broke the protocol: it exited, hung, or answered something unreadable."""

    def __init__(self, message: str, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr_tail = stderr_tail


class EngineProcess:
    """An engine command running as a child process, spoken to over its stdin and stdout."""

    def __init__(self, command: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise ProtocolBroken(f"cannot read the engine command {command!r}: {error}") from None
        if not argv:
            raise ProtocolBroken("the engine command is empty")
        self.command = command
        self.timeout = timeout
        # Kept open for the engine's whole life, and closed by close(): not a with block.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self._process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=0,
            )
        except OSError as error:
            self._stderr.close()
            raise ProtocolBroken(f"cannot start the engine {command!r}: {error}") from None
        assert self._process.stdin is not None and self._process.stdout is not None
        self._in = self._process.stdin.fileno()
        self._out = self._process.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buffer = bytearray()
        # One selector for the engine's life: made once, not once a batch of requests.
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self.sent = 0
        """How many requests were sent so far, for messages."""

    def stderr_tail(self) -> str:
        """The last lines the engine wrote to its standard error."""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - _STDERR_TAIL))
            return self._stderr.read().decode("utf-8", "replace")
        return ""

    def broken(self, message: str) -> ProtocolBroken:
        """Stop the engine; the error to raise, with its standard error's tail."""
        # Let a dying engine finish writing its last words before reading them.
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=0.2)
        status = self._process.poll()
        self.kill()
        if status is not None and "exited" in message:
            message = f"{message} (exit status {status})"
        return ProtocolBroken(message, self.stderr_tail())

    def exchange(self, lines: list[bytes]) -> list[bytes]:
        """Send request lines (each ending in a newline); the reply lines, in order.

        Blank lines between replies are skipped; each reply keeps its newline.
        """
        replies = self._exchange(lines, None)
        assert replies is not None
        return replies

    def exchange_expecting(self, lines: list[bytes], expected: bytes) -> list[bytes] | None:
        """Send request lines; None if the replies are ``expected`` byte for byte.

        ``expected`` is the reply lines joined, one a request. Otherwise the reply
        lines, as :meth:`exchange` gives them. Replies that are exactly the
        expected ones are never split into lines: against an engine that answers
        as the reference does, the fuzzer's common case costs one comparison of
        bytes a batch instead of a look at every line.
        """
        return self._exchange(lines, expected)

    def _exchange(self, lines: list[bytes], expected: bytes | None) -> list[bytes] | None:
        payload = memoryview(b"".join(lines))
        wanted = len(lines)
        replies: list[bytes] = []
        # While ``whole`` the replies so far are the start of ``expected``: they are only
        # gathered, not split into lines, until they are all of it.
        whole = expected is not None
        selector = self._selector
        writing = bool(payload)
        if writing:
            selector.register(self._in, selectors.EVENT_WRITE)
        try:
            deadline = time.monotonic() + self.timeout
            while len(replies) < wanted:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self.broken(
                        f"the engine did not answer request {self.sent + len(replies) + 1} "
                        f"within {self.timeout:g} s"
                    )
                for key, _ in selector.select(left):
                    if key.fd == self._in:
                        payload = self._write(payload)
                        if not payload:
                            selector.unregister(self._in)
                            writing = False
                        continue
                    try:
                        chunk = os.read(self._out, 1 << 16)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        raise self.broken(
                            f"the engine exited after {self.sent + len(replies)} replies"
                        )
                    if whole:
                        assert expected is not None
                        buffer = self._buffer
                        if expected.startswith(chunk, len(buffer)):
                            buffer += chunk
                            if len(buffer) == len(expected):
                                buffer.clear()
                                self.sent += wanted
                                return None
                            if b"\n" in chunk:
                                deadline = time.monotonic() + self.timeout
                            continue
                        # Not the expected bytes: the lines are read one by one after all.
                        whole = False
                    before = len(replies)
                    self._take(chunk, replies)
                    if len(replies) > before:
                        deadline = time.monotonic() + self.timeout
        finally:
            if writing:
                selector.unregister(self._in)
        return self._counted(replies, wanted)

    def _counted(self, replies: list[bytes], wanted: int) -> list[bytes]:
        """The replies to ``wanted`` requests, counted: more of them break the protocol."""
        if len(replies) > wanted:
            raise self.broken(
                f"the engine sent {len(replies)} replies to {wanted} requests "
                f"(requests {self.sent + 1} to {self.sent + wanted})"
            )
        self.sent += wanted
        return replies

    def _write(self, payload: memoryview) -> memoryview:
        """Write what the engine's input takes of ``payload``; the rest."""
        try:
            written = os.write(self._in, payload)
        except BrokenPipeError:
            raise self.broken("the engine exited before reading its requests") from None
        except BlockingIOError:
            return payload
        return payload[written:]

    def _take(self, chunk: bytes, replies: list[bytes]) -> None:
        buffer = self._buffer
        buffer += chunk
        end = buffer.rfind(b"\n")
        if end < 0:
            if len(buffer) > _MAX_REPLY_BYTES:
                raise self.broken(f"a reply is longer than {_MAX_REPLY_BYTES} bytes")
            return
        complete = bytes(buffer[: end + 1])
        del buffer[: end + 1]
        for line in complete.splitlines(keepends=True):
            if line.isspace():
                continue
            # Only a JSON object can be a reply: anything else is refused at once (its full
            # parse waits until it differs from the expected reply).
            if line[:1] != b"{" or line[-2:] != b"}\n":
                stripped = line.strip()
                if not (stripped.startswith(b"{") and stripped.endswith(b"}")):
                    shown = line[:120].decode("utf-8", "replace").rstrip()
                    number = self.sent + len(replies) + 1
                    raise self.broken(f"reply {number} is not JSON: {shown!r}")
            replies.append(line)
        if len(buffer) > _MAX_REPLY_BYTES:
            raise self.broken(f"a reply is longer than {_MAX_REPLY_BYTES} bytes")

    def kill(self) -> None:
        """Stop the engine at once."""
        if self._process.poll() is None:
            self._process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)

    def close(self) -> None:
        """Say ``bye`` if the engine still runs, then make sure it is gone."""
        if self._process.poll() is None:
            with contextlib.suppress(ProtocolBroken, OSError):
                self.timeout = min(self.timeout, 1.0)
                self.exchange([b'{"type":"bye"}\n'])
        self.kill()
        self._selector.close()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._stderr.close()

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
