"""The double-dummy search on plain ints: hands as card masks, the trick as card numbers.

Every seat sees every hand. The question asked of a position is always the
same yes-or-no one, "can our pair still take ``need`` of the tricks left?",
answered by a zero-window alpha-beta search (:meth:`Search.can`); the exact
count is found by asking it a few times (:meth:`Search.value`). What makes it
fast, after the bridge solvers (DDS):

- **Transposition table with partition search**: at the start of a trick, the
  position's bounds on the tricks our pair takes from here on are kept under a
  key of *relative* ranks: only who holds the first, second, third ... highest
  card still out counts, not which card it is, so positions that differ in the
  small cards already played share one entry. The jokers keep their identity
  (BIG and LITTLE leads force differently). In each suit, the trump suit
  included, an entry keeps only the ranks that decided its bound (Ginsberg's
  partition search, as in GIB and DDS; DDS's "winning ranks"): the search
  answers with the cards whose ranks mattered (a trick's winner that beat a
  card of its suit, the top cards a quick-trick bound counted, the trumps a
  sure-trump count looked at, the lowest card of a run tried as one where no
  lower card of its suit was tried, and what a table entry it met held), and
  the entry then holds for every position with the same lengths whose holders
  agree down to the lowest of those cards. Below it the cards were never
  compared, so their order cannot change the bound. A joker lead forces a
  hand's highest or lowest trump: matched hand by hand in order below that
  card, the two positions force the same cards. Every answer also carries the
  bound it proved (fail-soft), which may settle more than the question asked.
- **Small cards settled**: once a card below every card of its suit that its
  answer rested on has been tried, the other cards of that suit below those
  give the same answer and are not tried (DDS's rule).
- **Equivalent cards**: of a run of cards in one hand with nothing still out
  between them (the cards of the current trick count as out), one is tried.
  Jokers are never merged with other cards.
- **Quick tricks**: at the start of a trick, the leader's sure winners (top
  cards of a suit that neither opponent can ruff in time, all of them once the
  leader's top trumps are enough to draw the opponents'; the leader's trumps
  above both opponents' added, led now or not), or the partner's when the
  leader can reach them with a lead of a suit the partner holds the top card
  of, or a plain suit run by both hands (the pair's top cards in it, played in
  the order that wins the most rounds in a row, blocking cards counted), bound
  the search.
- **Sure trumps**: each hand's trumps less those the other pair's higher trumps
  can beat, one each, bound both pairs' counts at every trick's start.
- **Move ordering**: a cheap winner before a loser, a low card when the partner
  already wins the trick (a discard: the lowest rank of any suit), a sure winner
  first when leading (a top card the next hand cannot ruff), then a lead to
  the partner's entry or ruff before one the opponents can ruff
  (:meth:`Search._ordered_leads`), and before all the lead that last answered a
  question with as many tricks left (the "killer" lead, ``killers``).
- **A table of bounded size**: past ``capacity`` entries it is emptied before a
  new key goes in (a 13-card deal could otherwise fill the memory).
- **The last trick** is played out at once: every card of it is forced.

The rules themselves are not restated here: the cards a seat may play are
:func:`backalley.core.tricks.allowed_plays` (following suit, jokers as trumps,
BIG and LITTLE forcing, the trump-lead ban with its Board and only-trumps
exceptions) and a trick's winner is :func:`backalley.core.tricks.winning_card`.
"""

from __future__ import annotations

import bisect
import functools
from typing import Final

from ..core.cards import SUIT_MASKS
from ..core.position import TRUMPS, Position, boards
from ..core.tricks import allowed_plays, winning_card

__all__ = ["Search"]

_SUIT: Final = (1 << 13) - 1
_JOKERS_AT: Final = 52
_NO_TRICK: Final[tuple[int, ...]] = ()
_CAPACITY: Final = 1_500_000
"""The table's size, in entries, past which it is emptied (about 150 bytes an entry)."""
_ANY: Final = 64
"""An entry's shift for a suit it does not match on: every rank code shifted so is 0."""
_PLAIN_SUIT_OF: Final = tuple(
    SUIT_MASKS[card // 13] if card < _JOKERS_AT else 0 for card in range(_JOKERS_AT + 2)
)
"""``_PLAIN_SUIT_OF[card]``: the mask of the card's suit; 0 for a joker."""

_Key = tuple[int, int, int, int, int, int, bool]
"""A table key: each suit's lengths (the trump suit's rank code), the jokers, leader, broken."""

_Entry = tuple[int, int, int, int, int, int, int, int, int]
"""A table entry: the bound, then each suit's shift and the pattern its rank code must show."""


def _rank_code(spread: int) -> int:
    """Who holds each card of one suit still out, highest first, as one number.

    ``spread`` holds the suit's 13-bit holdings of the four seats side by side
    (seat ``s`` at bits ``13 s``). The code starts from a 1 (so the number of
    cards is part of it) and adds two bits, the holder, per card.
    """
    holdings = (spread & _SUIT, (spread >> 13) & _SUIT, (spread >> 26) & _SUIT, spread >> 39)
    out = holdings[0] | holdings[1] | holdings[2] | holdings[3]
    code = 1
    rank = 12
    while rank >= 0:
        bit = 1 << rank
        if out & bit:
            owner = 0
            while not holdings[owner] & bit:
                owner += 1
            code = (code << 2) | owner
        rank -= 1
    return code


class Search:
    """One double-dummy search of a deal: its trumps, who bid Board, and our pair.

    ``trumps`` is the deal's trump mask (jokers included; 0 without trumps),
    ``boards[seat]`` whether that seat bid Board (a Board bidder may lead trumps
    at once), ``pair`` the pair whose tricks are counted (0 North-South, 1
    East-West); :meth:`of` reads the first two from a compact position
    (``core.position``). The transposition table lives as long as the search, so
    every question asked of one deal shares it. ``relevant`` is what the last
    answer of :meth:`can` rested on (the cards whose ranks decided it), ``merged``
    the cards the last ordering left out as equivalent to a card tried.
    ``partner_entries`` whether the quick tricks count the partner's winners
    reached by a lead and the plain suits run by both hands (on by default; off,
    the leader's own winners alone, for tests to compare with), ``capacity``
    the entries the table holds before it is emptied (``entries`` stored since
    it last was, ``emptied`` the times it was).
    """

    def __init__(self, trumps: int, boards: tuple[bool, bool, bool, bool], pair: int) -> None:
        self.trumps = trumps
        self.boards = boards
        self.pair = pair
        self.table: dict[_Key, tuple[list[_Entry], list[_Entry]]] = {}
        self.codes: dict[int, tuple[int, int]] = {}
        self.runs: dict[int, tuple[tuple[int, ...], int]] = {}
        self.lowest: dict[int, int] = {}
        self.trump_suit = next((suit for suit in range(4) if SUIT_MASKS[suit] & trumps), -1)
        self.relevant = 0
        self.bound = 0
        self.killers = [-1] * 14
        self.merged = 0
        self.nodes = 0
        self.partner_entries = True
        self.capacity = _CAPACITY
        self.entries = 0
        self.emptied = 0

    @classmethod
    def of(cls, pos: Position, pair: int) -> Search:
        """A search of the deal of ``pos``, a compact position in play, for ``pair``'s tricks."""
        return cls(pos[TRUMPS], boards(pos), pair)

    # --- the exact count ----------------------------------------------------------

    def value(  # noqa: PLR0913 - the position as plain values, for speed
        self,
        hands: list[int],
        trick: tuple[int, ...],
        leader: int,
        broken: bool,
        guess: int = -1,
        *,
        floor: int = 0,
        ceiling: int = 99,
    ) -> int:
        """The tricks our pair takes from here on (the current trick included), best play.

        ``hands`` are the four seats' masks (changed during the search and given
        back as they were), ``trick`` the cards of the current trick so far,
        ``leader`` its leader, ``broken`` whether a trump or joker was played to an
        earlier trick. ``guess`` (any number) is where the search starts looking;
        ``floor`` and ``ceiling`` are bounds the caller already knows the count
        lies within (a wrong bound gives a wrong count), so no question is asked
        outside them.
        """
        low = max(0, floor)
        high = min(hands[(leader + len(trick)) & 3].bit_count(), ceiling)
        probe = guess
        while low < high:
            # The first question at the guess (else halfway), then a trick at a time
            # away from it: a card's count is mostly near the last card's.
            if probe <= low or probe > high:
                probe = (low + high + 1) >> 1
            # Each answer's bound may settle more than the question asked.
            if self.can(hands, trick, leader, broken, probe):
                low = min(max(probe, self.bound), high)
                probe = low + 1
            else:
                high = max(min(probe - 1, self.bound), low)
                probe = high
        return low

    def after(  # noqa: PLR0913, PLR0917 - the position as plain values, for speed
        self,
        hands: list[int],
        trick: tuple[int, ...],
        leader: int,
        broken: bool,
        card: int,
        guess: int = -1,
        *,
        floor: int = 0,
        ceiling: int = 99,
    ) -> int:
        """The tricks our pair takes from here on if the seat to move plays ``card`` now.

        ``floor`` and ``ceiling`` bound the count as for :meth:`value`.
        """
        seat = (leader + len(trick)) & 3
        bit = 1 << card
        hands[seat] ^= bit
        trick, leader, broken, ours = self._step(trick, leader, broken, card)
        found = ours + self.value(
            hands,
            trick,
            leader,
            broken,
            guess - ours,
            floor=floor - ours,
            ceiling=ceiling - ours,
        )
        hands[seat] ^= bit
        return found

    def can_after(  # noqa: PLR0913, PLR0917 - the position as plain values, for speed
        self,
        hands: list[int],
        trick: tuple[int, ...],
        leader: int,
        broken: bool,
        card: int,
        need: int,
    ) -> bool:
        """Whether our pair still takes ``need`` tricks from here on if ``card`` is played now.

        One question of :meth:`can` (the current trick counted), cheaper than the
        exact count of :meth:`after` when only a threshold matters.
        """
        seat = (leader + len(trick)) & 3
        bit = 1 << card
        hands[seat] ^= bit
        trick, leader, broken, ours = self._step(trick, leader, broken, card)
        found = self.can(hands, trick, leader, broken, need - ours)
        hands[seat] ^= bit
        return found

    def _step(
        self, trick: tuple[int, ...], leader: int, broken: bool, card: int
    ) -> tuple[tuple[int, ...], int, bool, int]:
        """The trick, leader and trumps broken once ``card`` is played, and our trick won by it.

        The last is 1 when ``card`` completes a trick our pair wins, else 0.
        """
        played = (*trick, card)
        if len(played) < 4:
            return played, leader, broken, 0
        winner = (leader + winning_card(played, self.trumps)[1]) & 3
        ours = 1 if winner & 1 == self.pair else 0
        return _NO_TRICK, winner, broken or self._has_trump(played), ours

    def equivalents(
        self, hands: list[int], trick: tuple[int, ...], leader: int, broken: bool
    ) -> list[list[int]]:
        """The seat to move's allowed cards in runs of equivalent ones, the tried card first."""
        seat = (leader + len(trick)) & 3
        allowed = allowed_plays(hands[seat], trick, self.trumps, broken, self.boards[seat])[0]
        out = self._out(hands, seat, trick)
        runs: list[list[int]] = []
        previous = -1
        rest = allowed
        while rest:
            card = rest.bit_length() - 1
            rest ^= 1 << card
            if previous >= 0 and self._same_run(card, previous, out):
                runs[-1].append(card)
            else:
                runs.append([card])
            previous = card
        return runs

    # --- the yes-or-no question ------------------------------------------------------

    def can(
        self, hands: list[int], trick: tuple[int, ...], leader: int, broken: bool, need: int
    ) -> bool:
        """Whether our pair can take ``need`` more tricks (the current one included).

        Leaves in ``self.relevant`` the cards whose ranks decided the answer, and
        in ``self.bound`` the bound it proved: at least ``need`` tricks (a lower
        bound) when it answers yes, fewer (an upper bound) when it answers no.
        """
        if need <= 0:
            self.relevant = 0
            self.bound = 0
            return True
        seat = (leader + len(trick)) & 3
        left = hands[seat].bit_count()
        if need > left:
            self.relevant = 0
            self.bound = left
            return False
        if left == 1:
            return self._last_trick(hands, trick, leader)
        if trick:
            out = hands[0] | hands[1] | hands[2] | hands[3]
            for card in trick:
                out |= 1 << card
            held, held_at = winning_card(trick, self.trumps)
            return self._try_cards(hands, trick, leader, broken, need, seat, out, held, held_at)
        key, codes = self._key(hands, leader, broken)
        slot = self.table.get(key)
        lowers, uppers = slot if slot is not None else self._slot(key)
        c0, c1, c2, c3 = codes
        # Only an entry whose bound answers the question is matched against the ranks.
        for entry in lowers:
            if entry[0] >= need and (
                c0 >> entry[1] == entry[2]
                and c1 >> entry[3] == entry[4]
                and c2 >> entry[5] == entry[6]
                and c3 >> entry[7] == entry[8]
            ):
                self.relevant = self._thresholds(hands, entry)
                self.bound = entry[0]
                return True
        for entry in uppers:
            if entry[0] < need and (
                c0 >> entry[1] == entry[2]
                and c1 >> entry[3] == entry[4]
                and c2 >> entry[5] == entry[6]
                and c3 >> entry[7] == entry[8]
            ):
                self.relevant = self._thresholds(hands, entry)
                self.bound = entry[0]
                return False
        settled = self._settled(hands, leader, broken, left, need)
        if settled >= 0:
            found = settled == 1
        else:
            out = hands[0] | hands[1] | hands[2] | hands[3]
            found = self._try_cards(hands, trick, leader, broken, need, seat, out, -1, -1)
        # Storing the answer leaves its cards and bound as they are.
        self.entries += _store(
            lowers if found else uppers, self._entry(hands, codes, self.relevant, self.bound)
        )
        return found

    def _settled(self, hands: list[int], leader: int, broken: bool, left: int, need: int) -> int:
        """Whether a bound at a trick's start answers the question: 1 yes, 0 no, -1 neither.

        The side on lead takes its quick tricks (:meth:`_quick_tricks`) and each
        pair its sure trumps (:meth:`_sure_trumps`); ``left`` is the tricks left.
        The first bound that answers is the one kept: ``self.bound`` is its count,
        ``self.relevant`` the cards whose ranks decided it, and no other's.
        """
        pair = self.pair
        quick = self._quick_tricks(hands, leader, broken)
        if leader & 1 == pair:
            if quick >= need:
                self.bound = quick
                return 1
        elif left - quick < need:
            self.bound = left - quick
            return 0
        # A pair's sure trumps are no more than one hand's trumps: a count that cannot
        # answer is not made.
        trumps = self.trumps
        if max((hands[pair] & trumps).bit_count(), (hands[pair + 2] & trumps).bit_count()) >= need:
            sure = self._sure_trumps(hands, pair)
            if sure >= need:
                self.bound = sure
                return 1
        if (
            max((hands[1 - pair] & trumps).bit_count(), (hands[3 - pair] & trumps).bit_count())
            > left - need
        ):
            sure = self._sure_trumps(hands, 1 - pair)
            if left - sure < need:
                self.bound = left - sure
                return 0
        return -1

    def _slot(self, key: _Key) -> tuple[list[_Entry], list[_Entry]]:
        """The lower and upper bounds kept under ``key``, new empty lists if none are.

        A table that holds ``capacity`` entries is emptied before a new key goes in,
        so that it cannot grow without end: that loses work, never a count.
        """
        slot = self.table.get(key)
        if slot is not None:
            return slot
        if self.entries >= self.capacity:
            self.table.clear()
            self.codes.clear()
            self.runs.clear()
            self.lowest.clear()
            self.entries = 0
            self.emptied += 1
        slot = ([], [])
        self.table[key] = slot
        return slot

    def _try_cards(  # noqa: PLR0913, PLR0915, PLR0917 - the position as plain values, for speed
        self,
        hands: list[int],
        trick: tuple[int, ...],
        leader: int,
        broken: bool,
        need: int,
        seat: int,
        out: int,
        held: int,
        held_at: int,
    ) -> bool:
        """:meth:`can` of a position with more than one card in each hand, not in the table.

        ``seat`` is the seat to move, ``out`` every card still out: the four hands'
        and the current trick's (the same for every seat within a trick); ``held``
        is the card winning the trick so far and ``held_at`` its place in it (-1
        for both before a lead), carried down the trick rather than found again.
        """
        self.nodes += 1
        pair = self.pair
        ours = seat & 1 == pair
        hand = hands[seat]
        trumps = self.trumps
        # The cards that would take the trick from ``held``: the rule of winning_card as
        # one mask (a higher trump, or with no trump in the trick yet any trump or a
        # higher card of the led suit, which a joker lacks); before a lead, every card.
        if held >= 0:
            above = -(2 << held)
            beats = (
                trumps & above if (1 << held) & trumps else trumps | (_PLAIN_SUIT_OF[held] & above)
            )
        else:
            beats = -1
        at = len(trick)
        if trick and not (1 << trick[0]) & trumps:
            # A plain lead (or a joker without trumps): the rule of allowed_plays without
            # the call, the led suit if the hand holds it, else any card (PLAY-2).
            allowed = hand & _PLAIN_SUIT_OF[trick[0]] or hand
        else:
            allowed = allowed_plays(hand, trick, self.trumps, broken, self.boards[seat])[0]
        left = hand.bit_count()
        if not allowed & (allowed - 1):
            # One card to play.
            card = allowed.bit_length() - 1
            order = [card]
            # Cards standing for a run of equivalent ones: their run may count if all fail.
            merged = 0
        else:
            order = self._ordered(hands, trick, leader, seat, out, allowed, held, held_at, beats)
            merged = self.merged
        if len(order) == 1 and not merged and at < 3 and left > 1:
            # One card to play, standing for no other, and not the trick's last: the
            # answer, its cards and its bound are the next seat's (as the loop below
            # would find them, with nothing to add).
            card = order[0]
            bit = 1 << card
            hands[seat] = hand ^ bit
            if bit & beats:
                found = self._try_cards(
                    hands, (*trick, card), leader, broken, need, (seat + 1) & 3, out, card, at
                )
            else:
                found = self._try_cards(
                    hands, (*trick, card), leader, broken, need, (seat + 1) & 3, out, held, held_at
                )
            hands[seat] = hand
            if found == ours and not trick:
                self.killers[left] = card
            return found
        relevant = 0
        # If all fail, the best of their bounds: the most tricks any card may still
        # give our pair (we move), or the fewest any card surely gives (they move).
        bound = -1 if ours else 99
        # The cards whose answer a card of their suit tried before settled (below).
        settled = 0
        # The trick's last card, or within the trick, the next seat's question: that is
        # :meth:`can`'s, asked here without the call (the same ``need`` for every card,
        # the next hand as long as this one was, so ``need`` fits it, and more than its
        # last card to play).
        last = at == 3
        before = out & ~(hands[0] | hands[1] | hands[2] | hands[3]) if last else 0
        held_by = (leader + held_at) & 3
        inline = left > 1
        after = (seat + 1) & 3
        for card in order:
            bit = 1 << card
            if bit & settled:
                continue
            hands[seat] = hand ^ bit
            if last:
                if bit & beats:
                    best, winner = card, seat
                else:
                    best, winner = held, held_by
                cards = before | bit
                won = 1 if winner & 1 == pair else 0
                found = self.can(
                    hands, _NO_TRICK, winner, broken or bool(cards & trumps), need - won
                )
                decided = self.relevant
                got = self.bound + won
                if _PLAIN_SUIT_OF[best] & cards & ~(1 << best):
                    # Won by rank over a card of its suit: its rank decided the trick.
                    decided |= 1 << best
            elif inline:
                if bit & beats:
                    found = self._try_cards(
                        hands, (*trick, card), leader, broken, need, after, out, card, at
                    )
                else:
                    found = self._try_cards(
                        hands, (*trick, card), leader, broken, need, after, out, held, held_at
                    )
                decided = self.relevant
                got = self.bound
            else:
                found = self.can(hands, (*trick, card), leader, broken, need)
                decided = self.relevant
                got = self.bound
            hands[seat] = hand
            if found == ours:
                if not trick:
                    self.killers[left] = card
                self.relevant = decided
                self.bound = got
                return ours
            relevant |= decided
            if ours:
                if got > bound:  # noqa: PLR1730 - a comparison, not a call: pure, it is faster
                    bound = got
            elif got < bound:
                bound = got
            # The mask of the card's plain suit, 0 for a blooper.
            suit_cards = _PLAIN_SUIT_OF[card]
            if suit_cards:
                # A card below every card of its suit that its answer rested on: any
                # other card of the suit below those gives the same answer (the
                # positions after either agree on every rank that decided it).
                ranked = decided & suit_cards
                if not ranked:
                    settled |= suit_cards
                elif bit < ranked & -ranked:
                    settled |= suit_cards & ((ranked & -ranked) - 1)
        self.relevant = _with_runs(relevant, merged, order)
        self.bound = bound
        return not ours

    def _last_trick(self, hands: list[int], trick: tuple[int, ...], leader: int) -> bool:
        """Whether our pair wins the deal's last trick, every card of it forced.

        Each seat still to play holds one card, and a hand's only card is always
        allowed, so the trick is played out at once.
        """
        played = list(trick)
        for place in range(len(trick), 4):
            played.append(hands[(leader + place) & 3].bit_length() - 1)
        best, best_at = winning_card(played, self.trumps)
        cards = (1 << played[0]) | (1 << played[1]) | (1 << played[2]) | (1 << played[3])
        # Won by rank over a card of its suit: its rank decided the trick.
        self.relevant = (1 << best) if _PLAIN_SUIT_OF[best] & cards & ~(1 << best) else 0
        won = (leader + best_at) & 1 == self.pair
        self.bound = 1 if won else 0
        return won

    # --- helpers ------------------------------------------------------------------

    def _has_trump(self, played: tuple[int, ...]) -> bool:
        trumps = self.trumps
        for card in played:  # noqa: SIM110 - a loop, not a generator: compiled, it is faster
            if (1 << card) & trumps:
                return True
        return False

    @staticmethod
    def _out(hands: list[int], seat: int, trick: tuple[int, ...]) -> int:
        """The cards still out that ``seat`` does not hold: the others' and the trick's."""
        out = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]
        for card in trick:
            out |= 1 << card
        return out

    @staticmethod
    def _same_run(card: int, higher: int, out: int) -> bool:
        """Whether ``card`` and the next higher card tried, ``higher``, are equivalent.

        Both plain cards of one suit with no card still out between them.
        """
        if higher >= _JOKERS_AT or card // 13 != higher // 13:
            return False
        return not out & ((1 << higher) - (1 << (card + 1)))

    def _ordered(  # noqa: PLR0913, PLR0917 - the position as plain values, for speed
        self,
        hands: list[int],
        trick: tuple[int, ...],
        leader: int,
        seat: int,
        left: int,
        allowed: int,
        best: int,
        best_at: int,
        beats: int,
    ) -> list[int]:
        """One card of each run of equivalent ``allowed`` cards, the likeliest best first.

        ``allowed`` holds two cards or more (:func:`allowed_plays`), ``left`` every
        card still out, the trick's included; ``best`` is the card winning the
        trick so far and ``best_at`` its place in it (-1 for both before a lead),
        ``beats`` the cards that would take the trick from it.
        """
        out = left & ~hands[seat]
        # Runs from the top, a suit at a time: the highest card of each stands for the
        # run (:meth:`_runs`, kept per suit's holdings), lowest first.
        runs = self.runs
        tried: list[int] = []
        merged = 0
        top = _SUIT_AT[allowed.bit_length() - 1]
        # Cards of one suit (the common case: following it) ask for that suit alone.
        single = not allowed & ~SUIT_MASKS[top]
        if single:
            shift = 13 * top
            mine = allowed >> shift
            key = (mine << 15) | (((out >> shift) & _SUIT) << 2) | top
            known = runs.get(key)
            if known is None:
                known = runs[key] = _runs(mine, (out >> shift) & _SUIT, shift)
            tried = list(known[0])
            merged = known[1]
        else:
            for suit in range(4):
                shift = 13 * suit
                mine = (allowed >> shift) & _SUIT
                if mine:
                    key = (mine << 15) | (((out >> shift) & _SUIT) << 2) | suit
                    known = runs.get(key)
                    if known is None:
                        known = runs[key] = _runs(mine, (out >> shift) & _SUIT, shift)
                    tried += known[0]
                    merged |= known[1]
            jokers = allowed >> _JOKERS_AT
            if jokers:
                tried += _JOKER_LEADS[jokers]
        self.merged = merged
        if len(tried) == 1:
            return tried
        if not trick:
            return self._ordered_leads(hands, seat, tried, out, allowed & ~merged)
        # Following: by rank, not by suit, so a discard is the lowest card of any suit.
        # Cards of one plain suit are in rank order already (the common case: following).
        if allowed & ~_PLAIN_SUIT_OF[tried[0]]:
            tried.sort(key=_BY_RANK.__getitem__)
        if (leader + best_at) & 3 == seat ^ 2:
            return tried  # the partner wins the trick so far: the lowest first
        # The cards that would win the trick so far (``beats``, one mask rather than a
        # call of winning_card per card). Only the order of the cards tried depends on
        # it, never a count.
        if not allowed & beats or not allowed & ~beats:
            return tried  # no card wins the trick, or every one: the lowest first
        if single:
            # One suit, the lowest first: the winners are the cards above the best.
            cut = bisect.bisect_right(tried, best)
            return tried[cut:] + tried[:cut]
        winners = [card for card in tried if (1 << card) & beats]
        return winners + [card for card in tried if not (1 << card) & beats]

    def _ordered_leads(
        self, hands: list[int], seat: int, tried: list[int], out: int, mine: int
    ) -> list[int]:
        """The leads ``tried`` (lowest first, ``mine`` as a mask) in the order they are searched.

        A card no one still out can beat in its suit first (highest first), then
        the others weighed after DDS (low first, ties by card): a plain suit the
        partner holds the top card of (an entry) or can ruff first, one the next
        hand can ruff (void, holding a trump) last, and one the last hand can ruff
        where the partner cannot late; within those, the lowest card first, and
        trumps and jokers after the plain suits' small cards. Before all, the
        "killer" lead. A top card of a plain suit the next hand can ruff is no sure
        winner: it is weighed with the others. Only the order changes, never a
        count; the weights are found a suit at a time.
        """
        trumps = self.trumps
        left_hand = hands[(seat + 1) & 3]
        right_hand = hands[(seat + 3) & 3]
        partner = hands[seat ^ 2]
        # A top card stands for itself: a card tried above every card of its suit still
        # out (of the trump suit, jokers included; with no trumps, a joker always is).
        if trumps:
            above = (out & trumps).bit_length()
            tops = (mine & trumps) >> above << above
        else:
            tops = mine >> _JOKERS_AT << _JOKERS_AT
        # Each suit's weight (the jokers' last): trumps after the plain suits' small cards.
        adds = [5, 5, 5, 5, 5]
        for suit in range(4):
            mask = SUIT_MASKS[suit]
            if not mine & mask or mask & trumps:
                continue
            add = 0
            left_ruffs = not left_hand & mask and left_hand & trumps
            partner_ruffs = not partner & mask and partner & trumps
            if left_ruffs:
                add += 40
            if not right_hand & mask and right_hand & trumps and not partner_ruffs:
                add += 20
            if partner & mask > (left_hand | right_hand) & mask:
                add -= 30  # the partner holds the suit's top card: an entry
            if partner_ruffs:
                add -= 15
            adds[suit] = add
            if not left_ruffs:
                above = (out & mask).bit_length()
                tops |= (mine & mask) >> above << above
        # Each other card's weight as one int, its card in the low 6 bits: sorted as
        # ints, the lowest weight first and, within a weight, the lowest card first.
        keyed = [
            _LEAD_KEY[card] + 64 * adds[card // 13] for card in tried if not (tops >> card) & 1
        ]
        keyed.sort()
        ordered = [card for card in reversed(tried) if (tops >> card) & 1]
        ordered += [key & 63 for key in keyed]
        # But first the lead that last answered the question with as many tricks
        # left: what made it good in one position is often still there in the next.
        killer = self.killers[hands[seat].bit_count()]
        if killer >= 0 and killer != ordered[0] and (mine >> killer) & 1:
            ordered.remove(killer)
            ordered.insert(0, killer)
        return ordered

    def _quick_tricks(self, hands: list[int], leader: int, broken: bool) -> int:
        """Tricks the leader's pair takes for sure: the leader's top cards, or the partner's.

        The leader's own sure winners are :meth:`_cashing`'s. The partner's count
        too when a lead reaches them: a plain suit the leader holds a card of, in
        which the partner holds the highest card still out and neither opponent
        holding a trump is void (so neither can ruff that first round). The
        partner then wins it and is on lead with their own sure winners, the entry
        among them (the trick is in their count of that suit, and it changes
        neither the trumps nor whether they are broken). The larger of the two
        counts, not their sum: cashing one hand's winners may make the other hand
        discard its own. Leaves in ``self.relevant`` the plain cards the count used.
        """
        own = self._cashing(hands, leader, broken)
        if not self.partner_entries:
            return own
        counted = self.relevant
        partner = leader ^ 2
        theirs = hands[partner]
        mine = hands[leader]
        trumps = self.trumps
        left_hand = hands[(leader + 1) & 3]
        right_hand = hands[(leader + 3) & 3]
        out = mine | theirs | left_hand | right_hand
        for suit in SUIT_MASKS:
            if suit & trumps or not mine & suit:
                continue
            if not theirs & (1 << ((out & suit).bit_length() - 1)):
                continue
            if (left_hand & trumps and not left_hand & suit) or (
                right_hand & trumps and not right_hand & suit
            ):
                continue
            reached = self._cashing(hands, partner, broken)
            if reached > own:
                own = reached
                counted = self.relevant
            break
        joint, joint_counted = self._joint_tricks(hands, leader, own)
        if joint > own:
            self.relevant = joint_counted
            return joint
        self.relevant = counted
        return own

    def _joint_tricks(self, hands: list[int], leader: int, known: int) -> tuple[int, int]:
        """Tricks the leader's pair takes by running one plain suit it holds the top of together.

        In a plain suit (not the trump suit) the leader holds a card of, the pair's
        cards above every card of the suit that an opponent holds (its top cards)
        win every round they are played to, whichever partner plays them and
        whatever the opponents play, unless an opponent ruffs: an opponent holding
        a trump follows suit, so cannot ruff, for as many rounds as it holds cards
        of the suit, and the count is capped there (a joker is a trump). The pair
        can play the rounds in the order of :func:`_joint_rounds`: the most rounds
        in a row that the two hands can win with their top cards, the lead going
        to whichever partner played the higher top card, a hand void in the suit
        discarding elsewhere, and the partner's blocking cards (top cards it must
        play under the leader's) taken into account; it depends only on which
        partner holds each top card and on how many lower cards of the suit each
        holds. The best suit's count, if it beats ``known``, with the top cards
        of that suit as the cards whose ranks decided it (a position that agrees
        on who holds them, and holds the same lengths, has the same top cards or
        more, and more only adds rounds); else ``(0, 0)``.
        """
        trumps = self.trumps
        mine = hands[leader]
        partner = hands[leader ^ 2]
        left_hand = hands[(leader + 1) & 3]
        right_hand = hands[(leader + 3) & 3]
        out = mine | partner | left_hand | right_hand
        best = known
        best_cards = 0
        for suit in SUIT_MASKS:
            ours = mine & suit
            if suit & trumps or not ours:
                continue
            theirs = partner & suit
            held = out & suit
            # The pair's run on top (:func:`_run_on_top`, written out): its cards.
            above = (held & ~(ours | theirs)).bit_length()
            run = held >> above << above
            tops = run.bit_count()
            length = ours.bit_count()
            if tops <= best or max(length, theirs.bit_count()) <= best:
                continue
            # Top cards as bits 0 .. tops - 1, the highest the highest bit.
            pattern = 0
            rest = held
            for place in range(tops - 1, -1, -1):
                top = 1 << (rest.bit_length() - 1)
                rest ^= top
                if top & ours:
                    pattern |= 1 << place
            everyone = (1 << tops) - 1
            led = pattern
            own_low = length - led.bit_count()
            their_low = theirs.bit_count() - (tops - led.bit_count())
            rounds = _joint_rounds(led, own_low, everyone ^ led, their_low)
            if left_hand & trumps:
                rounds = min(rounds, (left_hand & suit).bit_count())
            if right_hand & trumps:
                rounds = min(rounds, (right_hand & suit).bit_count())
            if rounds > best:
                best = rounds
                best_cards = run
        if best_cards:
            return best, best_cards
        return 0, 0

    def _cashing(  # noqa: PLR0915 - one bound's steps together, for speed
        self, hands: list[int], leader: int, broken: bool
    ) -> int:
        """Tricks ``leader``'s pair takes for sure, ``leader`` on lead cashing their top cards.

        In a suit other than trumps, the leader's run of highest cards still out
        wins as many tricks as it has cards, but no more than either opponent
        holding a trump still follows suit. Top trumps count when the leader may
        lead a trump now (asked of ``allowed_plays``); the highest trump wins.
        When they are at least as many as either opponent's trumps, the leader
        draws those first (a trump led must be followed with a trump, jokers
        included, and the top trump wins each round), and the side suits' top
        cards then count in full: no opponent has a trump left to ruff them.
        The leader's trumps that win whatever is played (:func:`_unbeaten`: those
        the opponents' higher trumps cannot all beat, one each; every trump above
        both opponents' among them) add to the side suits' count: each goes to a
        trick other than the ones the leader's side-suit top cards win, the
        leader playing one card a trick (a joker lead forcing one only moves it
        to another trick). When the top trumps draw, the tricks they win are
        tricks of the leader's trumps too, so the larger of the two counts adds.
        Or, the side suits' top cards cashed at once (each suit capped as above),
        the partner's trumps that win whatever is played add instead of the
        leader's: the partner plays no trump to those tricks while it holds a
        card of another suit, and each trump it must play there lowers its
        count by one at most (one trump fewer can be matched no more often).
        Leaves in ``self.relevant`` the plain cards counted.
        """
        trumps = self.trumps
        mine = hands[leader]
        left_hand = hands[(leader + 1) & 3]
        right_hand = hands[(leader + 3) & 3]
        out = hands[0] | hands[1] | hands[2] | hands[3]
        top_trumps = 0
        # A trump may be led now (the lead's rule of allowed_plays, without the call):
        # trumps broken, a Board bidder, or a hand of trumps alone.
        if mine & trumps and (broken or self.boards[leader] or not mine & ~trumps):
            top_trumps = _run_on_top(out & trumps, mine)
        # The trumps the counts below looked at, and the top cards counted: their
        # ranks decide the bound.
        counted = 0
        freed = False
        # The opponents' trumps are drawn by the top trumps when these are as many.
        drawn = top_trumps >= max(
            (left_hand & trumps).bit_count(), (right_hand & trumps).bit_count()
        )
        # The leader's trumps that the opponents' higher trumps cannot all beat
        # (:func:`_unbeaten`) win the tricks they go to, whenever that is, and none
        # goes to a trick the side suits' top cards win (one card a trick): they add
        # to those, led now or not. The top trumps that draw win as many tricks,
        # also tricks of the leader's trumps: the larger of the two counts adds.
        theirs = (left_hand | right_hand) & trumps
        if mine & trumps and theirs:
            unbeaten, looked = _unbeaten(mine & trumps, theirs)
            counted |= looked
        else:
            unbeaten = (mine & trumps).bit_count()  # no trump of theirs: every one wins
        total = top_trumps if top_trumps > unbeaten else unbeaten
        # The side suits' top cards, each suit capped where an opponent could ruff.
        sides = 0
        left_trumps = left_hand & trumps
        right_trumps = right_hand & trumps
        for suit in SUIT_MASKS:
            held = out & suit
            if suit & trumps or not mine & held:
                continue
            # The leader's run on top (:func:`_run_on_top`, written out): its cards.
            above = (held & ~mine).bit_length()
            run = held >> above << above
            if run:
                tops = run.bit_count()
                capped = tops
                if left_trumps:
                    capped = min(capped, (left_hand & suit).bit_count())
                if right_trumps:
                    capped = min(capped, (right_hand & suit).bit_count())
                sides += capped
                # Only the top cards counted decided it: holding more of the run
                # on top would only count more.
                if drawn:
                    total += tops
                    freed = freed or tops > capped
                    counted |= run
                else:
                    total += capped
                    counted |= run if capped == tops else _top_cards(run, capped)
        # Or the side suits cashed at once, and the partner's trumps that the
        # opponents' cannot all beat: the partner plays a card of another suit than
        # trumps to each of those tricks while it holds one, and each trump it must
        # play there instead costs that count one trick at most.
        if top_trumps and (freed or top_trumps > unbeaten):
            # The top trumps counted: drawing trumps freed a side suit, or they won more.
            counted |= _top_cards(out & trumps, top_trumps)
        partner = hands[leader ^ 2]
        if partner & trumps:
            spent = max(0, sides - (partner & ~trumps).bit_count())
            unbeaten, looked = _unbeaten(partner & trumps, theirs)
            counted |= looked
            total = max(total, sides + max(0, unbeaten - spent))
        else:
            total = max(total, sides)  # the partner's trumps add nothing
        # The top cards counted: their ranks decide the bound.
        self.relevant = counted
        return min(total, mine.bit_count())

    def _sure_trumps(self, hands: list[int], pair: int) -> int:
        """Tricks ``pair`` takes for sure with one hand's trumps: those the other pair cannot beat.

        A trump wins the trick it is played to unless a higher trump of the
        other pair is played to the same trick (the highest trump wins, and a
        higher one of the partner's keeps the trick in the pair). One hand's
        trumps go to different tricks, and each trump of the other pair goes to
        one trick, so it beats at most one of them, and only one below it: of a
        hand's ``t`` trumps at least ``t - m`` win, ``m`` the most of them that
        can be matched each to a different higher trump of the other pair (found
        greedily from the top: a trump of the other pair seen is higher than
        every trump after it). Whoever leads, whatever the rules force (a joker
        lead, following suit), every card is played by the deal's end. The
        partners' trumps may meet in one trick (a joker lead forces both
        highest), so the larger of the two hands' counts, not their sum. With
        no trump of the other pair, every trump of the hand counts; a trump
        above all of theirs always does. Leaves in ``self.relevant`` the lowest
        trumps the counts looked at (:func:`_unbeaten`).
        """
        trumps = self.trumps
        theirs = (hands[1 - pair] | hands[3 - pair]) & trumps
        one = hands[pair] & trumps
        other = hands[pair + 2] & trumps
        if other.bit_count() > one.bit_count():
            one, other = other, one
        best, self.relevant = _unbeaten(one, theirs)
        if other.bit_count() > best:
            also, looked = _unbeaten(other, theirs)
            best = max(best, also)
            self.relevant |= looked
        return best

    def _key(self, hands: list[int], leader: int, broken: bool) -> tuple[_Key, list[int]]:
        """The transposition key at the start of a trick, and each suit's rank code.

        The key holds what every entry under it shares: each seat's length in each
        plain suit, the whole trump suit by relative ranks, the jokers as they are,
        the leader and whether trumps are broken. The plain suits' rank codes are
        matched against each entry's patterns (:meth:`_entry`).
        """
        north, east, south, west = hands[0], hands[1], hands[2], hands[3]
        cache = self.codes
        # Each suit's holdings side by side (seat s at bits 13 s), its code and lengths
        # kept per holdings: the suits written out, a loop costs more than their work.
        spread = (
            (north & _SUIT)
            | ((east & _SUIT) << 13)
            | ((south & _SUIT) << 26)
            | ((west & _SUIT) << 39)
        )
        first = cache.get(spread)
        if first is None:
            first = cache[spread] = _suit_code(spread)
        spread = (
            ((north >> 13) & _SUIT)
            | (((east >> 13) & _SUIT) << 13)
            | (((south >> 13) & _SUIT) << 26)
            | (((west >> 13) & _SUIT) << 39)
        )
        second = cache.get(spread)
        if second is None:
            second = cache[spread] = _suit_code(spread)
        spread = (
            ((north >> 26) & _SUIT)
            | (((east >> 26) & _SUIT) << 13)
            | (((south >> 26) & _SUIT) << 26)
            | (((west >> 26) & _SUIT) << 39)
        )
        third = cache.get(spread)
        if third is None:
            third = cache[spread] = _suit_code(spread)
        spread = (
            ((north >> 39) & _SUIT)
            | (((east >> 39) & _SUIT) << 13)
            | (((south >> 39) & _SUIT) << 26)
            | (((west >> 39) & _SUIT) << 39)
        )
        fourth = cache.get(spread)
        if fourth is None:
            fourth = cache[spread] = _suit_code(spread)
        jokers = (
            (north >> _JOKERS_AT)
            | ((east >> _JOKERS_AT) << 2)
            | ((south >> _JOKERS_AT) << 4)
            | ((west >> _JOKERS_AT) << 6)
        )
        key = (first[1], second[1], third[1], fourth[1], jokers, leader, broken)
        return key, [first[0], second[0], third[0], fourth[0]]

    def _entry(self, hands: list[int], codes: list[int], relevant: int, bound: int) -> _Entry:
        """A table entry: ``bound`` for every position whose plain suits match these ranks.

        In each plain suit the entry keeps who holds the cards still out from the
        highest down to the lowest relevant one; below it, only the lengths count
        (they are in the key).
        """
        # The four suits written out, a loop costs more than their work: each suit's
        # shift is twice its cards below the lowest relevant one (all of them, with no
        # relevant card: -(0 & -0) keeps none of the suit's cards still out).
        out = hands[0] | hands[1] | hands[2] | hands[3]
        c0, c1, c2, c3 = codes
        at = relevant & _SUIT
        a = ((c0.bit_length() - 1) >> 1) - (out & _SUIT & -(at & -at)).bit_count()
        at = (relevant >> 13) & _SUIT
        b = ((c1.bit_length() - 1) >> 1) - ((out >> 13) & _SUIT & -(at & -at)).bit_count()
        at = (relevant >> 26) & _SUIT
        c = ((c2.bit_length() - 1) >> 1) - ((out >> 26) & _SUIT & -(at & -at)).bit_count()
        at = (relevant >> 39) & _SUIT
        d = ((c3.bit_length() - 1) >> 1) - ((out >> 39) & _SUIT & -(at & -at)).bit_count()
        a += a
        b += b
        c += c
        d += d
        return (bound, a, c0 >> a, b, c1 >> b, c, c2 >> c, d, c3 >> d)

    def _thresholds(self, hands: list[int], entry: _Entry) -> int:
        """The lowest card still out, in each plain suit, that ``entry`` holds to its rank."""
        out = hands[0] | hands[1] | hands[2] | hands[3]
        cache = self.lowest
        found = 0
        for suit in range(4):
            shift = entry[1 + 2 * suit]
            if shift == _ANY:
                continue
            # Below the lowest card the entry holds: shift / 2 cards, only counted (kept
            # per suit's cards and count, as a shift above the cards leaves them apart).
            key = (out & SUIT_MASKS[suit]) | (shift << 54)
            lowest = cache.get(key)
            if lowest is None:
                rest = _without_lowest(out & SUIT_MASKS[suit], shift >> 1)
                lowest = cache[key] = rest & -rest
            found |= lowest
        return found


def _rank_of(card: int) -> int:
    """A card's rank for the move ordering: 0 for a two, 12 for an ace; jokers above."""
    return card % 13 if card < _JOKERS_AT else card - _JOKERS_AT + 13


_SUIT_AT: Final = tuple(min(card // 13, 3) for card in range(_JOKERS_AT + 2))
"""``_SUIT_AT[card]``: the card's suit, 0-3 (3 for a joker: its mask holds no joker)."""
_BY_RANK: Final = tuple(_rank_of(card) for card in range(_JOKERS_AT + 2))
"""``_BY_RANK[card]``: :func:`_rank_of` looked up."""
_LEAD_KEY: Final = tuple(64 * _rank_of(card) + card for card in range(_JOKERS_AT + 2))
"""``_LEAD_KEY[card]``: a lead's sort key before its suit's weight (64 per rank), card below."""
_JOKER_LEADS: Final[tuple[tuple[int, ...], ...]] = (
    (),
    (_JOKERS_AT,),
    (_JOKERS_AT + 1,),
    (_JOKERS_AT, _JOKERS_AT + 1),
)
"""``_JOKER_LEADS[hand >> 52]``: the jokers of a hand, lowest first (never merged in a run)."""


def _runs(mine: int, others: int, shift: int) -> tuple[tuple[int, ...], int]:
    """One suit's runs of equivalent cards: the cards that stand for them, and those merged.

    ``mine`` are the suit's cards the seat may play and ``others`` its cards still
    out (the other hands' and the current trick's), both as 13 bits; ``shift`` is
    the suit's first card number. A card with no card still out between it and
    the next higher card of ``mine`` is merged into that card's run: the highest
    card of each run stands for it. Returns those cards, lowest first, and the
    mask of the merged ones, both as card numbers.
    """
    tried: list[int] = []
    merged = 0
    previous = -1
    rest = mine
    while rest:
        rank = rest.bit_length() - 1
        rest ^= 1 << rank
        if previous >= 0 and not others & ((1 << previous) - (1 << (rank + 1))):
            merged |= 1 << (rank + shift)
        else:
            tried.append(rank + shift)
        previous = rank
    tried.reverse()
    return tuple(tried), merged


def _with_runs(relevant: int, merged: int, tried: list[int]) -> int:
    """The cards an answer with every card failing rests on: ``relevant``, and runs' cards.

    ``tried`` are the cards that stood for themselves (tried, or settled by a card of
    their suit), ``merged`` the cards that a higher card of their run stood for,
    ``relevant`` what the answers of the cards tried rested on. A position that
    agrees on who holds each card down to the lowest relevant one of each suit
    plays every card above it as here (a run's cards above it are still a run).
    A card below it is covered by any card below it that was tried here (the
    positions after either agree on every rank that decided it): only a suit
    whose cards below it were all merged into a higher card needs its merged
    cards counted, so that no card of the suit lies below the lowest one.
    """
    if not merged:
        return relevant
    stood = 0
    for card in tried:
        stood |= 1 << card
    for suit in SUIT_MASKS:
        if not merged & suit:
            continue
        ranked = relevant & suit
        lowest = ranked & -ranked
        below = suit & (lowest - 1) if ranked else suit
        if not stood & below:
            relevant |= merged & suit
    return relevant


def _store(entries: list[_Entry], entry: _Entry) -> int:
    """Add ``entry`` to a key's entries, in place of one with the same patterns.

    Only a better bound is stored (a lower bound is only ever raised, an upper one
    lowered, for the same positions), so the one kept is the new one. Returns the
    number of entries added: 0 for one replaced, else 1.
    """
    patterns = entry[1:]
    first = entry[2]
    for at, known in enumerate(entries):
        # The first suit's pattern before the whole: most entries differ there already.
        if known[2] == first and known[1:] == patterns:
            entries[at] = entry
            return 0
    entries.append(entry)
    return 1


@functools.cache
def _joint_rounds(mine: int, my_low: int, partners: int, partners_low: int) -> int:
    """The most rounds of one suit in a row that a pair wins from its top cards, ``mine`` to lead.

    ``mine`` and ``partners`` are the top cards each partner holds (bit ``i``
    the ``i``-th lowest of the pair's top cards, all above every card of the
    suit an opponent holds), ``my_low`` and ``partners_low`` how many lower
    cards of the suit each holds. A round is won when either partner plays a
    top card (the opponents' cards of the suit are lower), and the hand that
    played the higher top card leads the next; a round with no top card played
    may be lost and ends the count, and so does a hand on lead with no card of
    the suit left. A partner void in the suit discards another suit's card
    (this count changes nothing there). The pair chooses every card: the most
    rounds over every choice, found by trying them all (cached: the arguments
    are small).
    """
    if not mine and not my_low:
        return 0
    leads = [1 << at for at in range(mine.bit_length()) if mine >> at & 1]
    if my_low:
        leads.append(0)
    follows = [1 << at for at in range(partners.bit_length()) if partners >> at & 1]
    if partners_low:
        follows.append(0)
    if not follows:
        follows.append(-1)  # void: a discard of another suit
    best = 0
    for lead in leads:
        for follow in follows:
            if not lead and follow <= 0:
                continue  # no top card in the round
            rest = mine ^ lead
            rest_low = my_low - (0 if lead else 1)
            other = partners ^ follow if follow > 0 else partners
            other_low = partners_low - (1 if follow == 0 else 0)
            if lead > follow:
                rounds = 1 + _joint_rounds(rest, rest_low, other, other_low)
            else:
                rounds = 1 + _joint_rounds(other, other_low, rest, rest_low)
            best = max(best, rounds)
    return best


def _unbeaten(mine: int, theirs: int) -> tuple[int, int]:
    """How many of one hand's trumps ``mine`` win, at least, against the other pair's ``theirs``.

    Each trump of ``theirs`` goes to one trick, so it beats at most one of
    ``mine``, and only one below it: the count is ``mine``'s trumps less the most
    of them that can be matched each to a different higher trump of ``theirs``,
    found greedily from the top (a trump of ``theirs`` seen is higher than every
    trump after it). See :meth:`Search._sure_trumps`. Also the lowest card the
    count looked at (0 for none): the scan stops once the rest is settled by the
    lengths alone (no trump of ``theirs`` left, or as many seen unmatched as
    ``mine`` has left), so a position with the same lengths whose trumps agree
    on who holds each card down to that one has the same count.
    """
    if not mine or not theirs:
        return mine.bit_count(), 0
    rest = mine | theirs
    left = mine.bit_count()
    unseen = theirs.bit_count()
    higher = 0
    sure = 0
    while rest:
        top = 1 << (rest.bit_length() - 1)
        rest ^= top
        if top & theirs:
            higher += 1
            unseen -= 1
            if not unseen:
                # No trump of theirs below: the ones of ``mine`` left that no trump
                # seen is still matched to win.
                return sure + max(0, left - higher), top
        else:
            left -= 1
            if higher:
                higher -= 1
            else:
                sure += 1
        if higher >= left:
            # Every trump of ``mine`` left can be matched to a higher one seen.
            return sure, top
    return sure, 0


def _top_cards(out: int, count: int) -> int:
    """The mask of the ``count`` highest cards of ``out``."""
    found = 0
    while count > 0 and out:
        top = 1 << (out.bit_length() - 1)
        found |= top
        out ^= top
        count -= 1
    return found


def _without_lowest(cards: int, count: int) -> int:
    """``cards`` without its ``count`` lowest cards (none for a count of 0 or less)."""
    while count > 0:
        cards &= cards - 1
        count -= 1
    return cards


def _suit_code(spread: int) -> tuple[int, int]:
    """One suit's rank code (:func:`_rank_code`) and lengths (:func:`_lengths`)."""
    return _rank_code(spread), _lengths(spread)


def _lengths(spread: int) -> int:
    """The four seats' lengths in one suit (``spread`` as for :func:`_rank_code`), 4 bits each."""
    return (
        (spread & _SUIT).bit_count()
        | (((spread >> 13) & _SUIT).bit_count() << 4)
        | (((spread >> 26) & _SUIT).bit_count() << 8)
        | ((spread >> 39).bit_count() << 12)
    )


def _run_on_top(out: int, mine: int) -> int:
    """How many of the highest of ``out`` (a suit's cards still out) ``mine`` holds in a row.

    Those above the highest card of ``out`` that ``mine`` does not hold (all of
    ``out`` when ``mine`` holds every one).
    """
    return (out >> (out & ~mine).bit_length()).bit_count()
