"""The state and ``apply``: frozen match states, the phase dispatch, seat views.

Built on the rules core only: ``state`` holds the values, ``match`` the pure
``apply`` and ``legal_actions``, ``view`` what one seat may know, and
``examples`` the positions of the seeds' worked examples.
"""
