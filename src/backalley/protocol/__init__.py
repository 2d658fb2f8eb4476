"""The engine protocol: other implementations talk to backalley, and are fuzzed against it.

A language-neutral protocol of JSON lines over an engine's stdin and stdout
(``docs/protocol.md``), reusing the record and action JSON of
``docs/records.md``:

- :mod:`.messages`: the protocol's names, the facts of a position, the table
  of reason codes to rule IDs, the JSON Schemas;
- :mod:`.server`: our own engine behind the protocol (``backalley serve``,
  ``python -m backalley.protocol``);
- :mod:`.client`: an engine under test, run as a child process with timeouts;
- :mod:`.cases`: the fuzz cases and the requests and expected replies they make;
- :mod:`.choices`: biased random rules, decks and moves, and illegal-action probes;
- :mod:`.compare`: an engine's reply against the reference's, located, with its rule;
- :mod:`.fuzzer`: the fuzzing run, deal by deal, and the replay of a case;
- :mod:`.shrink`: delta debugging of a difference to a small case.

The layer sits above formats and players and below the command line.
"""
