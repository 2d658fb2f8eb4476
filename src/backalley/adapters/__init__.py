"""Framework adapters: OpenSpiel, PettingZoo and Gymnasium, on one shared encoding.

:mod:`~backalley.adapters.encoding` needs nothing but the core. The framework
modules need their extras and are reached through ``backalley.openspiel`` and
``backalley.pettingzoo``, which say in one line which extra to install when it
is missing.
"""
