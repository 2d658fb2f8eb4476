"""Seeded decks on the device: the core's shuffle (``docs/dealing.md``) in JAX.

``seeded_deck(seed, n)`` of :mod:`backalley.core.dealing`, bit for bit, written
with 32-bit unsigned integer operations only, so that the batch engine deals
inside its compiled step and ``init`` and ``reset`` never reach the host:

- block ``i`` of the word stream is SHA-256 of ``b"backalley-deal-v1"`` + seed
  (8 bytes) + deal number (4 bytes) + ``i`` (4 bytes), all big-endian: 33
  bytes, one padded 64-byte SHA-256 block (:func:`stream_block`);
- the Fisher-Yates shuffle from position 53 down, each draw taking the next word
  below ``2**32 - 2**32 mod n`` (the rejection rule) and swapping with
  ``word mod n``.

The common case, no word rejected (all but about one deck in three million),
reads the first 53 words of the first seven blocks in order
(:func:`deck_of`'s fast path). A deck whose first 53 words hold a rejected one
is shuffled again by :func:`shuffle_exact`, which reads the stream word by
word, hashing as many blocks as it needs: any number of rejections gives the
core's deck. The tests compare both paths with the core's ``seeded_deck`` and
with ``conformance/dealing.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import jax
import jax.numpy as jnp
import numpy as np

from ..core.cards import PACK_SIZE
from ..core.dealing import SHUFFLE_DOMAIN

__all__ = ["deck_of", "decks_of", "draw", "shuffle_exact", "stream_block", "stream_blocks"]

Array = jax.Array

_U32: Final = jnp.uint32
_DRAWS: Final = PACK_SIZE - 1
_BLOCKS: Final = 7
"""Seven blocks give 56 words: the 53 draws of a deck with no rejected word."""

# SHA-256's round constants and initial hash value (FIPS 180-4, 4.2.2 and 5.3.3).
_K: Final = np.array(
    [
        0x428A2F98, 0x71374491, 0xB5C0FBCF, 0xE9B5DBA5, 0x3956C25B, 0x59F111F1, 0x923F82A4,
        0xAB1C5ED5, 0xD807AA98, 0x12835B01, 0x243185BE, 0x550C7DC3, 0x72BE5D74, 0x80DEB1FE,
        0x9BDC06A7, 0xC19BF174, 0xE49B69C1, 0xEFBE4786, 0x0FC19DC6, 0x240CA1CC, 0x2DE92C6F,
        0x4A7484AA, 0x5CB0A9DC, 0x76F988DA, 0x983E5152, 0xA831C66D, 0xB00327C8, 0xBF597FC7,
        0xC6E00BF3, 0xD5A79147, 0x06CA6351, 0x14292967, 0x27B70A85, 0x2E1B2138, 0x4D2C6DFC,
        0x53380D13, 0x650A7354, 0x766A0ABB, 0x81C2C92E, 0x92722C85, 0xA2BFE8A1, 0xA81A664B,
        0xC24B8B70, 0xC76C51A3, 0xD192E819, 0xD6990624, 0xF40E3585, 0x106AA070, 0x19A4C116,
        0x1E376C08, 0x2748774C, 0x34B0BCB5, 0x391C0CB3, 0x4ED8AA4A, 0x5B9CCA4F, 0x682E6FF3,
        0x748F82EE, 0x78A5636F, 0x84C87814, 0x8CC70208, 0x90BEFFFA, 0xA4506CEB, 0xBEF9A3F7,
        0xC67178F2,
    ],
    dtype=np.uint32,
)  # fmt: skip
_H0: Final = np.array(
    [
        0x6A09E667,
        0xBB67AE85,
        0x3C6EF372,
        0xA54FF53A,
        0x510E527F,
        0x9B05688C,
        0x1F83D9AB,
        0x5BE0CD19,
    ],
    dtype=np.uint32,
)
_MESSAGE_BITS: Final = 8 * (len(SHUFFLE_DOMAIN) + 8 + 4 + 4)
# The message is 33 bytes: the domain's 17, then the seed, the deal number and the
# counter. Its first 16 bytes are four constant words; byte 16 starts word 4.
assert len(SHUFFLE_DOMAIN) == 17 and _MESSAGE_BITS == 264
_PREFIX_WORDS: Final = tuple(
    int.from_bytes(SHUFFLE_DOMAIN[k : k + 4], "big") for k in range(0, 16, 4)
)
_LAST_DOMAIN_BYTE: Final = SHUFFLE_DOMAIN[16]

# Draw t (0 to 52) draws below n = 54 - t and swaps position n - 1.


def _rotr(x: Array, n: int) -> Array:
    rotated: Array = (x >> _U32(n)) | (x << _U32(32 - n))
    return rotated


def _compress(w: list[Array]) -> list[Array]:
    """SHA-256's compression of one 16-word block from the initial hash value.

    The 64 rounds are a loop over a window of the last 16 schedule words, unrolled
    eight rounds at a time: fully unrolled, XLA takes minutes to compile them on a
    CPU; not unrolled, they run at half the speed (``docs/batch.md``).
    """
    # Built from scalars, not a NumPy constant: the code holds no captured array, which
    # a batching rule of the pgx env's (custom_vmap) needs even under a mapped cond.
    constants = jnp.stack([_U32(value) for value in _K.tolist()])

    def round_(t: Array, carry: tuple[Array, ...]) -> tuple[Array, ...]:
        a, b, c, d, e, f, g, h = carry[:8]
        window = carry[8:]
        big1 = _rotr(e, 6) ^ _rotr(e, 11) ^ _rotr(e, 25)
        choose = (e & f) ^ (~e & g)
        t1 = h + big1 + choose + constants[t] + window[0]
        big0 = _rotr(a, 2) ^ _rotr(a, 13) ^ _rotr(a, 22)
        majority = (a & b) ^ (a & c) ^ (b & c)
        # The schedule word 16 rounds on (used only while t + 16 < 64).
        early, late = window[1], window[14]
        s0 = _rotr(early, 7) ^ _rotr(early, 18) ^ (early >> _U32(3))
        s1 = _rotr(late, 17) ^ _rotr(late, 19) ^ (late >> _U32(10))
        later = window[0] + s0 + window[9] + s1
        return (t1 + big0 + majority, a, b, c, d + t1, e, f, g, *window[1:], later)

    start = tuple(jnp.full_like(w[0], value) for value in _H0.tolist())
    end = jax.lax.fori_loop(0, 64, round_, (*start, *w), unroll=8)
    return [first + last for first, last in zip(start, end[:8], strict=True)]


def stream_block(seed: Array, number: Array, counter: Array) -> Array:
    """Block ``counter`` of the word stream of a seed's deal ``number``: uint32 (..., 8).

    ``seed`` (..., 2) is the seed's two 32-bit words, high first; ``number`` and
    ``counter`` broadcast against its leading axes. The eight words of the
    SHA-256 digest of the block's 33 bytes, each read big-endian (docs/dealing.md).
    """
    high = seed[..., 0].astype(_U32)
    low = seed[..., 1].astype(_U32)
    number = jnp.asarray(number).astype(_U32)
    counter = jnp.asarray(counter).astype(_U32)
    high, low, number, counter = jnp.broadcast_arrays(high, low, number, counter)
    zero = jnp.zeros_like(high)
    eight = _U32(8)
    twenty_four = _U32(24)
    # The 33 bytes from byte 16 on, packed into words: each field shifted one byte right.
    words = [
        *(zero + _U32(word) for word in _PREFIX_WORDS),
        (_U32(_LAST_DOMAIN_BYTE) << twenty_four) | (high >> eight),
        (high << twenty_four) | (low >> eight),
        (low << twenty_four) | (number >> eight),
        (number << twenty_four) | (counter >> eight),
        # The counter's last byte, then SHA-256's padding: a 1 bit, zeros, the length.
        (counter << twenty_four) | _U32(0x80 << 16),
        *(zero for _ in range(6)),
        zero + _U32(_MESSAGE_BITS),
    ]
    return jnp.stack(_compress(words), axis=-1)


def stream_blocks(seed: Array, number: Array, count: int) -> Array:
    """The first ``count`` blocks' words of the stream, in order: uint32 (..., 8 * count)."""
    counters = jnp.arange(count, dtype=_U32)
    blocks = stream_block(seed[..., None, :], jnp.asarray(number)[..., None], counters)
    return blocks.reshape(*blocks.shape[:-2], 8 * count)


def _swap(deck: Array, position: Array, other: Array) -> Array:
    """``deck`` (..., 54) with the cards at ``position`` and ``other`` swapped."""
    places = jnp.arange(PACK_SIZE)
    at_position = jnp.take_along_axis(deck, position[..., None], axis=-1)
    at_other = jnp.take_along_axis(deck, other[..., None], axis=-1)
    return jnp.where(
        places == position[..., None],
        at_other,
        jnp.where(places == other[..., None], at_position, deck),
    )


def _fast(words: Array) -> tuple[Array, Array]:
    """The deck of a stream whose first 53 words are all accepted, and whether they are.

    ``words`` (..., 56); where a word is rejected the deck is wrong and the flag False.
    """
    draws = words[..., :_DRAWS]
    # Computed here, not captured NumPy constants (see _compress): n, and the highest
    # accepted word 2**32 - 1 - 2**32 mod n, with 2**32 mod n as (2**32 - n) mod n.
    sizes = _U32(PACK_SIZE) - jnp.arange(_DRAWS, dtype=_U32)
    highest = _U32(2**32 - 1) - (_U32(0) - sizes) % sizes
    accepted = jnp.all(draws <= highest, axis=-1)
    picks = (draws % sizes).astype(jnp.int32)
    deck = jnp.broadcast_to(jnp.arange(PACK_SIZE, dtype=jnp.int32), (*words.shape[:-1], PACK_SIZE))

    def one(t: Array, deck: Array) -> Array:
        position = jnp.full(words.shape[:-1], PACK_SIZE - 1 - t, jnp.int32)
        return _swap(deck, position, jnp.take(picks, t, axis=-1))

    return jax.lax.fori_loop(0, _DRAWS, one, deck), accepted


def draw(word_at: Callable[[Array], Array], at: Array, n: Array) -> tuple[Array, Array]:
    """One draw below ``n`` from the stream ``word_at`` from word ``at``: (index, next ``at``).

    Takes words until one is at most ``2**32 - 2**32 mod n - 1`` (the rejection rule).
    """
    n = jnp.asarray(n).astype(_U32)
    # 2**32 mod n, in 32 bits: (2**32 - n) mod n.
    highest = _U32(2**32 - 1) - (_U32(0) - n) % n

    def rejected(carry: tuple[Array, Array]) -> Array:
        _at, word = carry
        above: Array = word > highest
        return above

    def next_word(carry: tuple[Array, Array]) -> tuple[Array, Array]:
        at, _ = carry
        return at + 1, word_at(at + 1)

    at, word = jax.lax.while_loop(rejected, next_word, (at, word_at(at)))
    return (word % n).astype(jnp.int32), at + 1


def shuffle_exact(seed: Array, number: Array) -> Array:
    """The deck of one seed's deal, reading the stream word by word: any rejections.

    Hashes the block of every word it reads (one lane, ``seed`` (2,)): slow, for
    the rare decks :func:`deck_of`'s fast path cannot shuffle.
    """

    def word_at(at: Array) -> Array:
        block = stream_block(seed, number, at // 8)
        return block[at % 8]

    def one(t: Array, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        deck, at = carry
        n = PACK_SIZE - t
        j, at = draw(word_at, at, n)
        return _swap(deck, n - 1, j), at

    start = (jnp.arange(PACK_SIZE, dtype=jnp.int32), jnp.zeros((), _U32))
    deck: Array
    deck, _ = jax.lax.fori_loop(0, _DRAWS, one, start)
    return deck


def deck_of(seed: Array, number: Array) -> Array:
    """``seeded_deck(seed, number)`` of one lane as card numbers, int32 (54,).

    The fast path, then (in a loop that runs only for a deck with a rejected word
    among its first 53, so that ``jax.vmap`` of it pays for the slow path only
    when some lane needs it) :func:`shuffle_exact`.
    """
    deck, accepted = _fast(stream_blocks(seed, number, _BLOCKS))

    def exact(carry: tuple[Array, Array]) -> tuple[Array, Array]:
        return shuffle_exact(seed, number), jnp.asarray(True)

    deck, _ = jax.lax.while_loop(lambda carry: ~carry[1], exact, (deck, accepted))
    return deck


def decks_of(seeds: Array, numbers: Array) -> Array:
    """``seeded_deck`` of many lanes at once: seeds (N, 2) words, numbers (N,): int32 (N, 54).

    The fast path for every lane; the lanes with a rejected word among their first
    53 are then gathered, a few at a time, and shuffled by :func:`shuffle_exact`.
    """
    n = seeds.shape[0]
    numbers = jnp.broadcast_to(jnp.asarray(numbers), (n,))
    decks, accepted = _fast(stream_blocks(seeds, numbers, _BLOCKS))
    chunk = min(n, 8)

    def redo(carry: tuple[Array, Array]) -> tuple[Array, Array]:
        decks, accepted = carry
        (lanes,) = jnp.nonzero(~accepted, size=chunk, fill_value=n)
        picked = jnp.minimum(lanes, n - 1)
        exact = jax.vmap(shuffle_exact)(seeds[picked], numbers[picked])
        decks = decks.at[lanes].set(exact, mode="drop")
        return decks, accepted.at[lanes].set(True, mode="drop")

    decks, _ = jax.lax.while_loop(lambda carry: ~carry[1].all(), redo, (decks, accepted))
    return decks
