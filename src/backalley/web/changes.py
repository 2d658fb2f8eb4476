"""What changed between two of a seat's frames: a list of operations, made and applied.

After a page's first whole frame (``{"type": "state", ...}``), the server sends each
later one as what changed since the one before (``{"type": "change", "base": n - 1,
"frame": n, "ops": [...]}``, :mod:`backalley.web.messages`): the action's effects on
the frame (the card moved from a hand to the trick, the new totals, the next mover's
choices) and nothing else. A page applies the operations to the frame it holds, in
order, and holds the frame the server would have sent whole; a page whose frame is
not ``base`` has missed one and asks for the whole frame again (``resync``).

An operation is a JSON array: ``["s", path, value]`` sets the key or item at
``path`` (a list of keys and indexes from the frame) to ``value``; ``["a", path,
items]`` appends ``items`` to the list at ``path``; ``["t", path, length]`` cuts
the list at ``path`` to ``length`` items; ``["d", path]`` deletes the key or the
item at ``path`` (an item: those after it move up). The browser page applies them
with ``static/changes.js``, the scripted clients with :func:`apply_ops`; both are
tested equal, text for text, to the whole frame at every version of whole matches.

>>> old = {"trick": [], "hand": ["AS", "KS"], "status": "Your turn to play."}
>>> new = {"trick": ["AS"], "hand": ["KS"], "status": "West to play."}
>>> ops = diff(old, new)
>>> ops
[['a', ['trick'], ['AS']], ['d', ['hand', 0]], ['s', ['status'], 'West to play.']]
>>> apply_ops(old, ops) == new
True
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["MAX_DEPTH", "ChangeError", "HeldFrame", "apply_ops", "diff", "diff_into"]

MAX_DEPTH: Final = 8
"""The deepest path an operation may have: a frame's data is never deeper."""

Op = list[Any]


class ChangeError(ValueError):
    """Operations that do not apply to the frame held: the page asks for the whole one."""


def _same(old: object, new: object) -> bool:
    # ``1 == True`` and ``0 == 0.0`` in Python, not in JSON's text: a scalar is the same
    # only with the same type too (containers compare their items, which never mix).
    return old is new or (type(old) is type(new) and old == new)


def diff(old: Any, new: Any, keyed: frozenset[tuple[Any, ...]] = frozenset()) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (both JSON-ready data, dicts at the top).

    A dict or list most of whose items changed (the last trick when another is won) is
    set whole, in one operation; ``old`` itself, and the dicts at the paths ``keyed``
    (a writer's dicts that hold only some of the frame's keys), are changed key by key.

    Lists and dicts that Python holds equal are taken as the same: one that holds ``1``
    where the other holds ``true`` (or ``0`` and ``false``) is not told apart, so a place
    of the data keeps one kind of value, numbers or truth values (a frame's do).
    """
    ops: list[Op] = []
    if not _same(old, new):
        _diff(old, new, [], ops, keyed)
    return ops


def diff_into(old: Any, new: Any, path: list[Any], ops: list[Op]) -> None:
    """Append to ``ops`` the operations that turn ``old``, found at ``path``, into ``new``.

    For a writer that diffs a frame by parts (:class:`backalley.web.messages.FrameCache`):
    ``old`` itself, if a dict, is changed key by key.
    """
    if not _same(old, new):
        _diff(old, new, path, ops, frozenset({tuple(path)}))


Keyed = frozenset[tuple[Any, ...]]


class _Gone:
    """A key's value in a dict that does not hold the key (of no JSON type)."""


_GONE: Final = _Gone()


def _diff(old: Any, new: Any, path: list[Any], ops: list[Op], keyed: Keyed) -> None:
    # Called only for values that differ; the items that are the same are skipped here,
    # without a call each (a frame has hundreds of them, and most are the same).
    if type(old) is dict and type(new) is dict and len(path) < MAX_DEPTH:
        # _same written out (a call a key was most of the work): a key not in old is a
        # value of another type (_GONE's).
        changed = [
            key
            for key, value in new.items()
            if (was := old.get(key, _GONE)) is not value
            and (type(was) is not type(value) or was != value)
        ]
        gone = [key for key in old if key not in new]
        whole = 2 * (len(changed) + len(gone)) > len(new)
        if whole and path and tuple(path) not in keyed:
            ops.append(["s", path, new])
            return
        for key in changed:
            if key in old:
                _diff(old[key], new[key], [*path, key], ops, keyed)
            else:
                ops.append(["s", [*path, key], new[key]])
        ops.extend(["d", [*path, key]] for key in gone)
        return
    if type(old) is list and type(new) is list and len(path) < MAX_DEPTH:
        _diff_list(old, new, path, ops, keyed)
        return
    ops.append(["s", path, new])


def _diff_list(
    old: list[Any], new: list[Any], path: list[Any], ops: list[Op], keyed: Keyed
) -> None:
    count, now = len(old), len(new)
    if now > count and new[:count] == old:
        ops.append(["a", path, new[count:]])
        return
    if now < count and old[:now] == new:
        ops.append(["t", path, now])
        return
    if now == count - 1:
        # One item gone (a card played from a hand): say which, then what else changed.
        gone = next((i for i in range(now) if not _same(old[i], new[i])), now)
        rest = [*old[:gone], *old[gone + 1 :]]
        if 2 * sum(not _same(a, b) for a, b in zip(rest, new, strict=True)) <= now:
            ops.append(["d", [*path, gone]])
            old, count = rest, now
    if now == count and now:
        changed = [i for i in range(now) if not _same(old[i], new[i])]
        # Most items changed (a new trick's cards): the list whole, in one operation.
        if 2 * len(changed) <= now:
            for index in changed:
                _diff(old[index], new[index], [*path, index], ops, keyed)
            return
    ops.append(["s", path, new])


def apply_ops(frame: dict[str, Any], ops: object) -> dict[str, Any]:
    """``frame`` with ``ops`` applied, in place; :class:`ChangeError` if they do not apply.

    The scripted clients' applier, and the reference the browser's is tested against.
    A list of operations that does not fit the frame (a path that is not there, an
    operation of an unknown kind) raises before or while changing it: the frame is then
    not to be used (the client asks for the whole one).
    """
    if type(ops) is not list:
        raise ChangeError("a change's operations are a list")
    for op in ops:
        try:
            _apply(frame, op)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise ChangeError(f"not an operation on this frame: {op!r:.80}") from error
    return frame


def _apply(frame: dict[str, Any], op: Any) -> None:
    # Every step checked by its container's own lookup (a missing key, an index past the
    # end: KeyError, IndexError), and what Python would read otherwise refused here: a
    # list's index that is not a whole number from 0, a step into a value.
    kind, path = op[0], op[1]
    if type(path) is not list or not 0 < len(path) <= MAX_DEPTH:
        raise ValueError("a path is a list of 1 to MAX_DEPTH steps")
    node: Any = frame
    for step in path[:-1]:
        node = node[_step(node, step)]
    last = _step(node, path[-1])
    if kind == "s" and len(op) == 3:
        if type(node) is list and last >= len(node):
            raise IndexError(last)
        node[last] = op[2]
    elif kind == "d" and len(op) == 2:
        del node[last]
    elif kind == "a" and len(op) == 3 and type(op[2]) is list and type(node[last]) is list:
        node[last].extend(op[2])
    elif kind == "t" and len(op) == 3 and type(op[2]) is int and type(node[last]) is list:
        if not 0 <= op[2] <= len(node[last]):
            raise IndexError(op[2])
        del node[last][op[2] :]
    else:
        raise ValueError("an operation is s, d, a or t, with its arguments")


def _step(node: Any, step: Any) -> Any:
    """``step``, if it can name a place in ``node`` (a dict's key, a list's index)."""
    if type(node) is dict:
        if type(step) is not str:
            raise KeyError(step)
        return step
    if type(node) is list and type(step) is int and step >= 0:
        return step
    raise TypeError("a step into a value, or a list's index that is not one")


class HeldFrame:
    """A client's copy of its seat's frame: the whole frame, then each change applied.

    The scripted clients' (:mod:`backalley.web.scripted`) and the tests'.
    :meth:`receive` takes a ``state`` or ``change`` message; it answers ``None``, or the
    ``resync`` message to send when a change does not follow the frame held (one was
    missed) or does not apply (:class:`ChangeError`): the changes that come until the
    whole frame are then ignored.

    >>> table = HeldFrame()
    >>> table.receive({"type": "state", "frame": 4, "status": "Dealing."})
    >>> table.receive({"type": "change", "base": 4, "frame": 5,
    ...                "ops": [["s", ["status"], "Your turn to bid."]]})
    >>> table.frame
    {'type': 'state', 'frame': 5, 'status': 'Your turn to bid.'}
    >>> table.receive({"type": "change", "base": 6, "frame": 7, "ops": []})
    {'type': 'resync', 'frame': 5}
    >>> table.frame is None
    True
    """

    def __init__(self) -> None:
        self.frame: dict[str, Any] | None = None
        """The frame held (``None``: none, or one missed and the whole one asked for)."""
        self.held = -1
        """The number of the last frame held whole or applied (-1: none yet)."""
        self.asked = False

    def receive(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Take a ``state`` or ``change``; the ``resync`` message to send, if one is due."""
        if message["type"] == "state":
            self.frame, self.held, self.asked = message, message["frame"], False
            return None
        frame = self.frame
        if frame is not None and message.get("base") == frame["frame"]:
            try:
                apply_ops(frame, message.get("ops"))
                frame["frame"] = message["frame"]
                self.held = frame["frame"]
                return None
            except ChangeError:
                pass
        # A change missed, or one that does not apply: ask for the whole frame, once.
        self.frame = None
        if self.asked:
            return None
        self.asked = True
        return {"type": "resync", "frame": None if self.held < 0 else self.held}
