"""The seeded shuffle against a plain transcription of its specification."""

import hashlib
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backalley.core import dealing
from backalley.core.cards import CARDS
from backalley.core.dealing import seeded_deck


def _specified_deck(seed: int, deal_number: int, block=None) -> list[int]:
    """``docs``' algorithm, written as plainly as possible, reading words one at a time."""
    prefix = b"backalley-deal-v1" + seed.to_bytes(8, "big") + deal_number.to_bytes(4, "big")

    def words():
        counter = 0
        while True:
            if block is None:
                digest = hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
                yield from struct.unpack(">8I", digest)
            else:
                yield from block(prefix, counter)
            counter += 1

    stream = words()
    deck = list(range(54))
    for i in range(53, 0, -1):
        n = i + 1
        while True:
            word = next(stream)
            if word < 2**32 - 2**32 % n:
                break
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.rule("DEAL-1", "ENGINE-5")
@given(seed=st.integers(0, 2**64 - 1), deal_number=st.integers(0, 2**32 - 1))
def test_seeded_deck_follows_the_specification(seed, deal_number):
    """The library's fast shuffle gives exactly the specified deck, a permutation of 54."""
    deck = seeded_deck(seed, deal_number)
    assert [int(card) for card in deck] == _specified_deck(seed, deal_number)
    assert sorted(deck) == list(CARDS)


@pytest.mark.rule("DEAL-1")
def test_rejected_words_are_skipped(monkeypatch):
    """Words in the biased top range are rejected, and the stream is extended when needed."""

    def block(prefix: bytes, counter: int) -> tuple[int, ...]:
        # Every word of the first two blocks is rejected for every n, forcing top-ups.
        if counter < 2:
            return (2**32 - 1,) * 8
        digest = hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
        return struct.unpack(">8I", digest)

    monkeypatch.setattr(dealing, "_block", block)
    deck = seeded_deck(3, 4)
    assert [int(card) for card in deck] == _specified_deck(3, 4, block)
    assert sorted(deck) == list(CARDS)


@pytest.mark.parametrize(
    ("seed", "deal_number"), [(-1, 0), (2**64, 0), (0, -1), (0, 2**32), (1.5, 0)]
)
def test_out_of_range_seeds_are_refused(seed, deal_number):
    """Seeds and deal numbers outside their documented ranges are refused clearly."""
    with pytest.raises((TypeError, ValueError), match="whole number"):
        seeded_deck(seed, deal_number)


@pytest.mark.rule("DEAL-1")
def test_a_word_equal_to_the_limit_is_rejected(monkeypatch):
    """The limit itself is biased too: a word equal to it is rejected, like any above it."""
    limit = 2**32 - 2**32 % 54

    def block(prefix: bytes, counter: int) -> tuple[int, ...]:
        digest = hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
        words = struct.unpack(">8I", digest)
        return (limit, *words[1:]) if counter == 0 else words

    monkeypatch.setattr(dealing, "_block", block)
    assert [int(card) for card in seeded_deck(8, 9)] == _specified_deck(8, 9, block)


def test_refusals_name_the_seed_and_the_deal_number():
    """The sentence says which number was wrong."""
    with pytest.raises(ValueError, match=r"^a seed is a whole number from 0 to 2\*\*64 - 1"):
        seeded_deck(-1, 0)
    with pytest.raises(ValueError, match=r"^a deal number is a whole number from 0 to 2\*\*32 - 1"):
        seeded_deck(0, -1)
