"""The pieces of the JSON codec; :mod:`backalley.formats.serialize` gathers them.

Records (:mod:`.record`), states (:mod:`.state`: the record reaching the state
and a snapshot), seat views (:mod:`.view`), the small values (:mod:`.values`)
and what a check finds (:mod:`.report`) are all written and read from the same
pieces (:mod:`._base`): a card, a trick or an outcome has one JSON form wherever
it appears. Each reader takes the JSON path of what it reads, raises
:class:`~._base.RecordError` at the path of the bad value, and is the one place a
value is decoded, so a check on a value is made once for every format that holds it.

This package's ``__init__`` imports nothing: the records and their checking are
built on the lower pieces, and the states' JSON is built on checking.
"""
