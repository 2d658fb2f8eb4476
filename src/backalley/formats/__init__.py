"""Formats: the notation, JSON, game records, checking records, and perft.

Everything that turns engine values into text or data and back lives here, on
top of the engine; no rule is decided here (checking replays through ``apply``).
"""
