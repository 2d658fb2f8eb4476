"""The rules core: cards, actions, rule settings, and one module per rule area.

Pure functions over small ints and 54-bit card masks, with no game state: the
deck and the seeded dealer (``dealing``), bidding and contracts (``bidding``),
trick legality and the trick winner (``tricks``), the jokers' forcing rule
(``jokers``), scoring (``scoring``), and the match-flow facts that say whose
turn it is (``flow``). Nothing here imports another layer.
"""
