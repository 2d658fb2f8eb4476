"""The online table of seed ``001``: Back Alley in the browser (``backalley table``).

Against the computer or with three friends; the server needs the ``web`` extra.

The table is built on the library as any game server would be, through its
public API only: rooms and seats (:mod:`~backalley.web.rooms`), their SQLite
store (:mod:`~backalley.web.store`), the messages between page and server
(:mod:`~backalley.web.messages`) and the Starlette application
(:mod:`~backalley.web.app`, which needs the extra). The pages are plain HTML,
CSS and JavaScript in ``static/``, served by the package. See ``docs/table.md``.
"""
