"""Information-set sampling: a full position drawn among those a seat cannot tell apart.

A seat sees its own hand, the turned card, every bid and every card played
(:mod:`backalley.engine.view`). Search players (determinized Monte Carlo,
ISMCTS) need the other side of that: a full position, every hand and the
undealt cards, drawn **uniformly at random among the deals consistent with
everything the seat knows**. :func:`sample_state` draws one, as a
:class:`~backalley.engine.state.MatchState` built by replaying the public
actions through :func:`~backalley.engine.match.apply` from sampled decks, so the
sample is a legal history and its view for the seat equals the view given.

What a seat knows about the hidden cards of a deal (rules from
``docs/rules.md``, "Dealing" and "Play", by rule ID):

- **Its own hand** and every card played; the turned card.
- **Voids.** A player who did not follow the suit led holds none of it
  (PLAY-2); one who did not follow a trump lead holds no trump and no joker
  (PLAY-3).
- **Forced joker answers.** When BIG was led, a player who answered with a
  trump held no higher trump; when LITTLE was led, no lower trump; a player who
  answered with a plain card held no trump at all (JOKER-1, JOKER-2, JOKER-3).
- **Trump leads.** A trump led before trumps were broken by a player who did
  not bid Board means that player held nothing but trumps (PLAY-4, PLAY-6).
- **The joker swap.** After a turned joker the holder of the other joker swaps
  it for the next undealt card and only that player sees it (DEAL-4, DEAL-5). The
  swapper knows where the joker went; everyone else knows only that no joker
  is in any hand, and that they did not swap.
- **Bids** reveal nothing the rules enforce, so they do not restrict the deal.

Each fact says that a seat cannot hold certain cards. So a card's possible
places are a set of seats (and the undealt stock, always possible), and the
cards group into at most fifteen classes by that set. The sampler counts, class
by class, the ways to fill each seat's remaining hand exactly (a product of
multinomial coefficients, summed over the splits, memoized on the seats'
remaining room) and draws each class's split with probability proportional to
its number of completions: an exact sampler, without rejection.

Uniform over what? Over deck orders, which is what a fair shuffle makes. Deck
orders that put the same cards in the same hands differ only in the order of
each hand and of the stock, a fixed factor, so each way of placing the hidden
cards is equally likely. After a turned joker one placement of the cards after
the swap comes from several decks: the other joker never dealt (the stock in
any of ``S!`` orders, ``S`` undealt cards), or dealt to one of the three seats
that may have swapped and replaced by any of the ``h`` cards of its hand
(``(S - 1)!`` orders each). That count is the same for every placement, so
placements stay uniform; the swap itself is then drawn with weights ``S``
(nobody) and ``h`` for each possible swapper.

Deals already finished are sampled in the same way: a played-out deal reveals
every hand, so only its stock and an unseen swap are drawn; a thrown-in deal
reveals nothing but its turned card and bids (a seat's view does not keep its
old hands). The match's seed, which fixes the deals still to come, is drawn at
random too.

>>> import random
>>> from backalley import Rules, Seat, apply, legal_actions, new_match
>>> from backalley.engine.view import view
>>> state = new_match(Rules(schedule=[3]), seed=11)
>>> for _ in range(6):
...     state = apply(state, legal_actions(state)[0])
>>> seen = view(state, Seat.SOUTH)
>>> sample = sample_state(seen, random.Random(1))
>>> view(sample, Seat.SOUTH) == seen
True
>>> sample.deal.hands == state.deal.hands   # the other hands were drawn afresh
False
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from math import factorial
from typing import Final

from ..core.actions import Deal, Play, shared_play
from ..core.cards import (
    ALL_CARDS_MASK,
    CARDS,
    JOKERS_MASK,
    PACK_SIZE,
    SUIT_MASKS,
    Card,
    Seat,
    cards_of,
    mask_of,
    trump_mask,
)
from ..core.errors import IllegalAction
from ._shuffle import shuffle
from .match import apply, new_match
from .state import MatchState
from .view import DealView, SeatView, view

__all__ = ["DealSampler", "InformationSet", "sample_state"]

_FACTORIALS: Final = tuple(factorial(n) for n in range(55))


def sample_state(view: SeatView, rng: random.Random) -> MatchState:
    """A match state drawn uniformly among those the viewing seat cannot tell apart.

    The result is built by replaying decks and the public actions through
    ``apply``, and ``view(result, view.seat) == view``. ``rng`` is the only
    source of randomness: the same view and the same generator state give the
    same sample. A view that no deal can produce raises ``ValueError``.
    For many samples of one view, build an :class:`InformationSet` once.
    """
    return InformationSet(view).sample(rng)


class InformationSet:
    """Every position consistent with one seat's view, ready to be sampled.

    Building it reads the view once: the facts each deal reveals and the counts
    the exact sampler needs. ``current`` samples the deal in progress alone
    (None between deals and after the match), which is what a search player
    needs on every decision; :meth:`sample` draws the whole match.
    """

    def __init__(self, seen: SeatView) -> None:
        if not isinstance(seen, SeatView):
            raise TypeError(
                f"an information set is built from a SeatView, not {type(seen).__name__}"
            )
        self.view = seen
        seat = seen.seat
        self._history = tuple(DealSampler(deal, seat, None) for deal in seen.history)
        self.current = None if seen.deal is None else DealSampler(seen.deal, seat, seen.hand)

    def sample(self, rng: random.Random) -> MatchState:
        """A whole match state drawn uniformly; its view for the seat is the view given."""
        seen = self.view
        state = new_match(seen.rules, seed=rng.getrandbits(64))
        try:
            for sampler in self._history:
                state = _replay(state, sampler, sampler.draw(rng)[0])
            if self.current is not None:
                state = _replay(state, self.current, self.current.draw(rng)[0])
        except IllegalAction as refusal:
            raise ValueError(
                f"no deal is consistent with this view: replaying it, {refusal.message}"
            ) from None
        if view(state, seen.seat) != seen:
            raise ValueError("no deal is consistent with this view: a replay shows another view")
        return state


def _replay(state: MatchState, sampler: DealSampler, deck: tuple[Card, ...]) -> MatchState:
    """Deal ``deck``, then make the deal's public moves: its bids and its plays."""
    state = apply(state, Deal(deck))
    deal = sampler.deal
    for bid in deal.bids:
        state = apply(state, bid)
    for play in sampler.plays:
        state = apply(state, play)
    return state


class DealSampler:
    """The hidden cards of one deal as a seat knows them, and an exact uniform sampler.

    ``deal`` is the seat's view of the deal; ``hand`` the cards the seat still
    holds, or None for a finished deal (a view keeps no old hands: a played-out
    deal shows them all in its tricks; a thrown-in one shows none).
    :attr:`count` is the number of ways the unseen cards can lie in the hands
    and the stock; :meth:`draw` picks one of them uniformly, and a swap.
    """

    def __init__(self, deal: DealView, seat: Seat, hand: Sequence[Card] | None) -> None:
        self.deal = deal
        self.seat = seat
        size = deal.hand_size
        current = deal.current_trick
        self.plays = tuple(
            shared_play(who, card)
            for trick in (*deal.tricks, *(() if current is None else (current,)))
            for who, card in trick.plays
        )
        known, caps = _known_cards(deal, seat, hand, self.plays)
        self.known = known
        """The cards known to be in each seat's hand after the swap, played or held."""
        self.caps = tuple(caps)
        """How many unknown cards each seat holds (or held, in a finished deal)."""
        turned = deal.turned
        self.other_joker: Card | None = None
        if turned.is_joker:
            self.other_joker = Card.BIG if turned is Card.LITTLE else Card.LITTLE
        unseen = ALL_CARDS_MASK & ~(known[0] | known[1] | known[2] | known[3]) & ~(1 << turned)
        swap = deal.swap
        if swap is not None:
            if swap.joker is not self.other_joker or not known[seat] >> swap.received & 1:
                raise ValueError(f"deal {deal.number}: the swap does not fit the turned card")
            unseen &= ~(1 << swap.joker)
        self.undealt = PACK_SIZE - 4 * size - 1
        """Cards dealt after the turned one (the stock below it)."""
        expected = self.undealt - (swap is not None)
        if bin(unseen).count("1") - sum(caps) != expected:
            raise ValueError(
                f"deal {deal.number}: {bin(unseen).count('1')} unseen cards cannot fill the "
                f"hands ({sum(caps)} places) and the stock ({expected})"
            )
        forbidden = _forbidden(deal, trump_mask(deal.trump))
        if self.other_joker is not None:
            # After a turned joker no hand holds a joker: the other one was swapped out.
            forbidden = [mask | JOKERS_MASK for mask in forbidden]
        self.classes = _classes(unseen, caps, forbidden)
        """The unseen cards that some seat may hold, grouped by the seats that may."""
        # available[j][s]: cards of classes j and after that seat s may hold.
        self._available = [
            tuple(
                sum(len(cards) for pattern, cards in self.classes[j:] if pattern >> s & 1)
                for s in range(4)
            )
            for j in range(len(self.classes) + 1)
        ]
        self._memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self.count = self._ways(0, self.caps)
        """How many ways the unseen cards can lie in the hands (and the rest in the stock)."""
        if self.count == 0:
            raise ValueError(f"deal {deal.number}: no deal is consistent with the cards played")

    # --- counting ---------------------------------------------------------------

    def _ways(self, j: int, caps: tuple[int, ...]) -> int:
        """Ways to fill the seats' remaining room ``caps`` exactly from classes ``j`` on."""
        key = (j, caps)
        known = self._memo.get(key)
        if known is not None:
            return known
        available = self._available[j]
        if any(caps[s] > available[s] for s in range(4)):
            total = 0
        elif j == len(self.classes):
            total = 1  # every cap is zero here, since nothing is available
        elif j == len(self.classes) - 1:
            cards = self.classes[j][1]
            total = _multinomial(len(cards), caps) if sum(caps) <= len(cards) else 0
        else:
            total = sum(ways * self._ways(j + 1, rest) for ways, rest, _ in self._splits(j, caps))
        self._memo[key] = total
        return total

    def _splits(
        self, j: int, caps: tuple[int, ...]
    ) -> Iterator[tuple[int, tuple[int, ...], tuple[int, ...]]]:
        """Each split of class ``j`` among its seats: its ways, the room left, the split."""
        pattern, cards = self.classes[j]
        n = len(cards)
        limits = [min(caps[s], n) if pattern >> s & 1 else 0 for s in range(4)]
        for a in range(limits[0] + 1):
            for b in range(min(limits[1], n - a) + 1):
                for c in range(min(limits[2], n - a - b) + 1):
                    for d in range(min(limits[3], n - a - b - c) + 1):
                        split = (a, b, c, d)
                        rest = (caps[0] - a, caps[1] - b, caps[2] - c, caps[3] - d)
                        yield _multinomial(n, split), rest, split

    # --- drawing ----------------------------------------------------------------

    def draw_hands(self, rng: random.Random) -> tuple[int, int, int, int]:
        """The cards each seat holds beyond the known ones, as masks, drawn uniformly."""
        caps = self.caps
        extra = [0, 0, 0, 0]
        last = len(self.classes) - 1
        for j, (_, cards) in enumerate(self.classes):
            split = caps if j == last else self._pick_split(j, caps, rng)
            shuffled = list(cards)
            shuffle(shuffled, rng)  # rng.shuffle's draws, without its interpreted calls
            at = 0
            for s in range(4):
                for card in shuffled[at : at + split[s]]:
                    extra[s] |= 1 << card
                at += split[s]
            caps = tuple(cap - taken for cap, taken in zip(caps, split, strict=True))
        return (extra[0], extra[1], extra[2], extra[3])

    def _pick_split(self, j: int, caps: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
        """A split of class ``j``, drawn in proportion to the ways to complete it."""
        pick = rng.randrange(self._ways(j, caps))
        for ways, rest, split in self._splits(j, caps):
            pick -= ways * self._ways(j + 1, rest)
            if pick < 0:
                return split
        raise AssertionError("the splits' ways add up to the class's ways")  # pragma: no cover

    def draw(self, rng: random.Random) -> tuple[tuple[Card, ...], tuple[int, int, int, int]]:
        """A deck that deals a uniformly drawn consistent deal, and the hands held now.

        The hands are masks indexed by seat: the cards each still holds, after
        the swap and the cards played.
        """
        deal = self.deal
        size = deal.hand_size
        extra = self.draw_hands(rng)
        after = [self.known[s] | extra[s] for s in range(4)]
        dealt = list(after)
        swap = deal.swap
        swapper: int | None = None
        received: Card | None = None
        joker = self.other_joker
        if swap is not None:
            swapper, received = swap.seat, swap.received
        elif joker is not None:
            # Nobody swapped (weight: the undealt cards) or one of the other three seats
            # did, giving up the joker for any card of its hand (weight: the hand size).
            pick = rng.randrange(self.undealt + 3 * size)
            if pick >= self.undealt:
                pick -= self.undealt
                swapper = (self.seat + 1 + pick // size) % 4
                received = cards_of(after[swapper])[pick % size]
        if swapper is not None and received is not None and joker is not None:
            dealt[swapper] ^= (1 << received) | (1 << joker)
        deck: list[Card] = [CARDS[0]] * PACK_SIZE
        dealer = deal.dealer
        for s in range(4):
            cards = list(cards_of(dealt[s]))
            rng.shuffle(cards)
            first = (s - dealer - 1) % 4
            for i, card in enumerate(cards):
                deck[first + 4 * i] = card
        top = 4 * size
        deck[top] = deal.turned
        placed = dealt[0] | dealt[1] | dealt[2] | dealt[3] | (1 << deal.turned)
        if received is not None:
            deck[top + 1] = received
            placed |= 1 << received
        stock = list(cards_of(ALL_CARDS_MASK & ~placed))
        rng.shuffle(stock)
        deck[PACK_SIZE - len(stock) :] = stock
        held = tuple(after[s] & ~_played_mask(self.plays, s) for s in range(4))
        return tuple(deck), (held[0], held[1], held[2], held[3])


def _known_cards(
    deal: DealView, seat: Seat, hand: Sequence[Card] | None, plays: Sequence[Play]
) -> tuple[list[int], list[int]]:
    """The cards known in each seat's hand (after any swap), and how many are unknown."""
    size = deal.hand_size
    known = [0, 0, 0, 0]
    for play in plays:
        known[play.seat] |= 1 << play.card
    caps = [size - bin(mask).count("1") for mask in known]
    swap = deal.swap
    if swap is not None and swap.seat != seat:
        raise ValueError(f"deal {deal.number}: the view shows another seat's swap")
    if hand is not None:
        if (known[0] | known[1] | known[2] | known[3]) & mask_of(hand):
            raise ValueError(f"deal {deal.number}: the seat holds a card already played")
        known[seat] |= mask_of(hand)
        caps[seat] = 0
        if bin(known[seat]).count("1") != size:
            raise ValueError(
                f"deal {deal.number}: the seat's hand and plays make "
                f"{bin(known[seat]).count('1')} cards, not {size}"
            )
    elif swap is not None and not known[seat] >> swap.received & 1:
        # A thrown-in deal: the seat kept the card its swap gave it.
        known[seat] |= 1 << swap.received
        caps[seat] -= 1
    if any(cap < 0 for cap in caps):
        raise ValueError(f"deal {deal.number}: a seat played more cards than it was dealt")
    if (1 << deal.turned) & (known[0] | known[1] | known[2] | known[3]):
        raise ValueError(f"deal {deal.number}: the turned card is in a hand")
    return known, caps


def _classes(
    unseen: int, caps: Sequence[int], forbidden: Sequence[int]
) -> tuple[tuple[int, tuple[Card, ...]], ...]:
    """The unseen cards grouped by the set of seats (a 4-bit pattern) that may hold them.

    Cards no seat may hold (pattern 0) are left out: they lie in the stock. The
    class open to the most seats comes last, where the sampler's split is forced.
    """
    groups: dict[int, list[Card]] = {}
    for card in cards_of(unseen):
        pattern = sum(1 << s for s in range(4) if caps[s] and not forbidden[s] >> card & 1)
        if pattern:
            groups.setdefault(pattern, []).append(card)
    ordered = sorted(groups.items(), key=lambda item: (bin(item[0]).count("1"), len(item[1])))
    return tuple((pattern, tuple(cards)) for pattern, cards in ordered)


def _played_mask(plays: Sequence[Play], seat: int) -> int:
    mask = 0
    for play in plays:
        if play.seat == seat:
            mask |= 1 << play.card
    return mask


def _multinomial(n: int, parts: Sequence[int]) -> int:
    """Ways to deal ``n`` distinct cards into groups of the sizes ``parts``, the rest aside."""
    ways = _FACTORIALS[n] // _FACTORIALS[n - sum(parts)]
    for part in parts:
        ways //= _FACTORIALS[part]
    return ways


def _forbidden(deal: DealView, trumps: int) -> list[int]:
    """For each seat, the cards the deal's play shows it cannot hold now.

    A card a seat could not hold at some moment it cannot hold later either,
    since hands only shrink during play; so the facts accumulate.
    """
    forbidden = [0, 0, 0, 0]
    broken = False
    tricks = list(deal.tricks)
    if deal.current_trick is not None and deal.current_trick.cards:
        tricks.append(deal.current_trick)
    bids = deal.bids
    for trick in tricks:
        led = trick.cards[0]
        led_bit = 1 << led
        for at, (who, card) in enumerate(trick.plays):
            bit = 1 << card
            if at == 0:
                board = bool(bids) and bids[(who - deal.dealer - 1) % 4].board
                if led_bit & trumps and not broken and not board:
                    # A trump lead before trumps are broken: the hand held only trumps (PLAY-6).
                    forbidden[who] |= ALL_CARDS_MASK & ~trumps
            elif led_bit & trumps:
                if not bit & trumps:
                    forbidden[who] |= trumps  # no trump to follow a trump lead (PLAY-3, JOKER-3)
                elif led is Card.BIG:
                    # Answered BIG with its highest trump: nothing above it (JOKER-1).
                    forbidden[who] |= trumps & ~((bit << 1) - 1)
                elif led is Card.LITTLE:
                    # Answered LITTLE with its lowest trump: nothing below it (JOKER-2).
                    forbidden[who] |= trumps & (bit - 1)
            else:
                suit = SUIT_MASKS[led // 13]
                if not bit & suit:
                    forbidden[who] |= suit  # did not follow suit: void in it (PLAY-2)
        if len(trick.cards) == 4 and any((1 << card) & trumps for card in trick.cards):
            broken = True
    return forbidden
