"""Back Alley written again from the documentation alone, to check the conformance files.

An outside implementer trusts ``conformance/``: so every value in it is recomputed
here from ``docs/rules.md``, ``docs/dealing.md`` and ``docs/records.md`` (the
rule IDs below are theirs), never from the library. Cards are their codes
(``"10H"``, ``"BIG"``), seats their letters, hands lists: nothing of
``backalley`` is imported, so a slip shared by the generator and the engine (a
seat 0 taken as "no winner") cannot hide here.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "CDHS"
CODES = [rank + suit for suit in SUITS for rank in RANKS] + ["LITTLE", "BIG"]
"""Card-number order (docs/dealing.md, "Card numbers"): 2C ... AS, LITTLE, BIG."""
NUMBER = {code: index for index, code in enumerate(CODES)}
SEATS = "NESW"
NAMED = {
    "standard": [*range(13, 0, -1), *range(1, 14)],
    "twenty-five": [*range(13, 0, -1), *range(2, 14)],
    "short": [*range(7, 0, -1), *range(1, 8)],
}
"""SCHED-1 to SCHED-3."""


REFUSAL_ORDER = [
    "match_over",
    "wrong_phase",
    "not_your_turn",
    "bid_out_of_range",
    "card_not_in_hand",
    "big_joker_forces_highest",
    "little_joker_forces_lowest",
    "must_follow_trump",
    "must_follow_suit",
    "trumps_not_broken",
]
"""docs/conformance.md, "The order of refusal reasons": when several apply, the first wins."""


def is_joker(card: str) -> bool:
    return card in ("BIG", "LITTLE")


def suit_of(card: str) -> str | None:
    return None if is_joker(card) else card[-1]


def plain_rank(card: str) -> int:
    return RANKS.index(card[:-1]) + 2


def trump_rank(card: str) -> int:
    """CARD-3: BIG > LITTLE > A > ... > 2 of trumps."""
    return {"LITTLE": 15, "BIG": 16}.get(card) or plain_rank(card)


def pair_of(seat: int) -> int:
    """TABLE-2: North-South 0, East-West 1."""
    return seat % 2


# --- seeded dealing (docs/dealing.md) -------------------------------------------------


def _words(seed: int, number: int, block: int) -> list[int]:
    digest = hashlib.sha256(
        b"backalley-deal-v1"
        + seed.to_bytes(8, "big")
        + number.to_bytes(4, "big")
        + block.to_bytes(4, "big")
    ).digest()
    return [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4)]


def seeded_deck(seed: int, number: int) -> list[str]:
    """The shuffle of docs/dealing.md: Fisher-Yates with rejection, top card first."""
    stream: list[int] = []
    block = 0
    deck = list(CODES)
    for i in range(53, 0, -1):
        n = i + 1
        limit = 2**32 - 2**32 % n
        while True:
            if not stream:
                stream = _words(seed, number, block)
                block += 1
            word = stream.pop(0)
            if word < limit:
                break
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# --- a match ---------------------------------------------------------------------------


class Refused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Match:
    """A match from its rules and seed, stepped by actions in the notation's canonical form."""

    def __init__(self, rules: dict[str, Any], seed: int) -> None:
        schedule = rules["schedule"]
        self.schedule: list[int] = NAMED[schedule] if isinstance(schedule, str) else list(schedule)
        self.tie: str = rules["tie"]
        self.first_dealer = SEATS.index(rules["first_dealer"])
        self.seed = seed
        self.finished: list[dict[str, Any]] = []
        self.counted = 0
        self.totals = [0, 0]
        self.outcome: dict[str, Any] | None = None
        self.deal: dict[str, Any] | None = None

    # -- what follows from the history ------------------------------------------------

    @property
    def deal_number(self) -> int:
        """The current deal, or the next one, counting every deal from 0."""
        return len(self.finished)

    def dealer_of(self, number: int) -> int:
        """MATCH-2: the deal passes clockwise after every deal."""
        return (self.first_dealer + number) % 4

    @property
    def in_tiebreak(self) -> bool:
        return self.counted == len(self.schedule)

    def next_hand_size(self) -> int:
        """MATCH-3/4: thrown-in deals do not count; END-3: the largest hand size."""
        return max(self.schedule) if self.in_tiebreak else self.schedule[self.counted]

    @property
    def phase(self) -> str:
        if self.outcome is not None:
            return "over"
        if self.deal is None:
            return "deal"
        return "play" if self.deal["leader"] is not None else "bid"

    def to_move(self) -> int | None:
        deal = self.deal
        if deal is None or self.outcome is not None:
            return None
        if deal["leader"] is None:
            return (deal["dealer"] + 1 + len(deal["bids"])) % 4  # BID-1
        return (deal["trick_leader"] + len(deal["trick"])) % 4  # PLAY-1

    # -- dealing -------------------------------------------------------------------------

    def apply_deal(self, deck: list[str]) -> None:
        """DEAL-1 to DEAL-4, DEAL-6; END-3 for a tiebreak deal."""
        number = len(self.finished)
        dealer = self.dealer_of(number)
        size = self.next_hand_size()
        hands: list[list[str]] = [[], [], [], []]
        for k in range(4 * size):
            hands[(dealer + 1 + k) % 4].append(deck[k])
        turned = deck[4 * size]
        swap = None
        if is_joker(turned):
            trump = None
            other = "BIG" if turned == "LITTLE" else "LITTLE"
            for seat in range(4):
                if other in hands[seat]:
                    received = deck[4 * size + 1]
                    hands[seat][hands[seat].index(other)] = received
                    swap = {"seat": SEATS[seat], "joker": other, "received": received}
        else:
            trump = suit_of(turned)
        tiebreak = self.in_tiebreak
        self.deal = {
            "dealer": dealer,
            "hand_size": size,
            "hands": [sorted(hand, key=NUMBER.__getitem__) for hand in hands],
            "turned": turned,
            "trump": trump,
            "swap": swap,
            "bids": [],
            "tiebreak": tiebreak,
            "leader": (dealer + 1) % 4 if tiebreak else None,
            "trick_leader": (dealer + 1) % 4 if tiebreak else None,
            "trick": [],
            "tricks": [],
            "broken": False,
        }

    # -- bidding -------------------------------------------------------------------------

    def contracts(self) -> list[dict[str, int]] | None:
        """BID-4 to BID-6: the k-th Board is worth k; a pair's Board alone counts."""
        deal = self.deal
        if deal is None or deal["tiebreak"] or len(deal["bids"]) < 4:
            return None
        found = []
        for pair in (0, 1):
            boards = []
            target = 0
            count = 0
            for index, call in enumerate(deal["bids"]):
                seat = (deal["dealer"] + 1 + index) % 4
                if call == "board":
                    count += 1
                if pair_of(seat) != pair:
                    continue
                if call == "board":
                    boards.append(count)
                elif call != "pass":
                    target += int(call)
            found.append(
                {"target": 0, "multiplier": max(boards)}
                if boards
                else {"target": target, "multiplier": 0}
            )
        return found

    def _bid(self, seat: int, call: str) -> None:
        deal = self.deal
        assert deal is not None
        deal["bids"].append(call)
        if len(deal["bids"]) < 4:
            return
        seats = [(deal["dealer"] + 1 + i) % 4 for i in range(4)]
        calls = deal["bids"]
        if all(call == "pass" for call in calls):
            self._finish(thrown_in=True)  # MATCH-3
            return
        boards = [i for i, call in enumerate(calls) if call == "board"]
        if boards:
            leader = seats[boards[-1]]  # BID-8: the last Board bidder
        else:
            numbers = [int(call) if call != "pass" else 0 for call in calls]
            leader = seats[numbers.index(max(numbers))]  # the earliest of equal bids
        deal["leader"] = deal["trick_leader"] = leader

    # -- play ------------------------------------------------------------------------------

    def is_trump(self, card: str) -> bool:
        trump = self.deal["trump"] if self.deal is not None else None
        return trump is not None and (is_joker(card) or suit_of(card) == trump)

    def allowed(self, seat: int) -> tuple[list[str], str | None]:
        """PLAY-2 to PLAY-6, JOKER-1 to JOKER-4: the cards allowed, and the reason for the rest."""
        deal = self.deal
        assert deal is not None
        hand = deal["hands"][seat]
        trumps = [card for card in hand if self.is_trump(card)]
        trick = deal["trick"]
        if not trick:
            personally_board = (
                not deal["tiebreak"] and deal["bids"][(seat - deal["dealer"] - 1) % 4] == "board"
            )
            if deal["broken"] or personally_board or len(trumps) == len(hand):
                return hand, None
            return [card for card in hand if not self.is_trump(card)], "trumps_not_broken"
        led = trick[0]
        if self.is_trump(led):
            if led == "BIG" and trumps:
                return [max(trumps, key=trump_rank)], "big_joker_forces_highest"
            if led == "LITTLE" and trumps:
                return [min(trumps, key=trump_rank)], "little_joker_forces_lowest"
            return (trumps, "must_follow_trump") if trumps else (hand, None)
        following = [card for card in hand if suit_of(card) == suit_of(led)]
        return (following, "must_follow_suit") if following else (hand, None)

    def winner(self, leader: int, cards: list[str]) -> int:
        """PLAY-7: the highest trump; with none, the highest card of the led suit."""
        trumps = [i for i, card in enumerate(cards) if self.is_trump(card)]
        if trumps:
            best = max(trumps, key=lambda i: trump_rank(cards[i]))
        else:
            led = suit_of(cards[0])
            best = max(
                (i for i, card in enumerate(cards) if suit_of(card) == led),
                key=lambda i: plain_rank(cards[i]),
            )
        return (leader + best) % 4

    def _play(self, seat: int, card: str) -> None:
        deal = self.deal
        assert deal is not None
        deal["hands"][seat].remove(card)
        deal["trick"].append(card)
        if len(deal["trick"]) < 4:
            return
        leader = deal["trick_leader"]
        won = self.winner(leader, deal["trick"])
        if any(self.is_trump(card) for card in deal["trick"]):
            deal["broken"] = True  # PLAY-4: played to a completed trick
        deal["tricks"].append({"leader": leader, "cards": deal["trick"], "winner": won})
        deal["trick"] = []
        deal["trick_leader"] = won  # PLAY-8
        if len(deal["tricks"]) == deal["hand_size"]:
            self._finish(thrown_in=False)

    def tricks_won(self) -> list[int]:
        won = [0, 0]
        for trick in self.deal["tricks"] if self.deal is not None else []:
            won[pair_of(trick["winner"])] += 1
        return won

    # -- the end of a deal and of the match ---------------------------------------------

    @staticmethod
    def points(contract: dict[str, int], size: int, tricks: int) -> int:
        """SCORE-2 to SCORE-4."""
        multiplier, target = contract["multiplier"], contract["target"]
        if multiplier:
            return (1 if tricks == size else -1) * 10 * size * multiplier
        if target == 0:
            return tricks
        return 5 * target + (tricks - target) if tricks >= target else -5 * target

    def _finish(self, *, thrown_in: bool) -> None:
        deal = self.deal
        assert deal is not None
        contracts = self.contracts()  # a thrown-in deal has two contracts of 0, unscored
        won = self.tricks_won()
        if thrown_in or deal["tiebreak"]:
            scores = [0, 0]
        else:
            assert contracts is not None
            scores = [self.points(contracts[p], deal["hand_size"], won[p]) for p in (0, 1)]
        self.finished.append(
            {
                **deal,
                "thrown_in": thrown_in,
                "contracts": contracts,
                "tricks_won": won,
                "scores": scores,
            }
        )
        self.deal = None
        if thrown_in:
            return
        if deal["tiebreak"]:
            if won[0] != won[1]:  # END-3; END-4: level tricks deal again
                self.outcome = {
                    "termination": "tiebreak-deal",
                    "winner": "NS" if won[0] > won[1] else "EW",
                }
            return
        self.totals = [self.totals[0] + scores[0], self.totals[1] + scores[1]]
        self.counted += 1
        if self.counted < len(self.schedule):
            return
        ns, ew = self.totals
        if ns != ew:  # END-1
            self.outcome = {"termination": "score", "winner": "NS" if ns > ew else "EW"}
        elif self.tie == "draw":  # END-2
            self.outcome = {"termination": "draw", "winner": None}

    # -- actions ---------------------------------------------------------------------------

    def reasons(self, action: str) -> list[str]:
        """Every refusal reason that applies to an action, each rule checked on its own.

        Not only the first: an action can break several rules at once (a bid during play
        by a seat whose turn it is not), and docs/conformance.md ranks them (REFUSAL_ORDER).
        """
        found = []
        if self.outcome is not None:
            found.append("match_over")
        if action == "deal":
            return [*found, "wrong_phase"] if self.deal is not None or found else found
        seat_letter, what = action.split(" ")
        seat = SEATS.index(seat_letter)
        is_bid = what in ("pass", "board") or what.isdigit()
        if self.phase != ("bid" if is_bid else "play"):
            found.append("wrong_phase")
        to_move = self.to_move()
        if to_move is not None and seat != to_move:
            found.append("not_your_turn")
        deal = self.deal
        if deal is None or self.outcome is not None:
            return found
        if is_bid:
            if what.isdigit() and int(what) >= deal["hand_size"]:
                found.append("bid_out_of_range")
            return found
        hand = deal["hands"][seat]
        if what not in hand:
            found.append("card_not_in_hand")
        if self.phase == "play":
            found += self._play_reasons(seat, what)
        return found

    def _play_reasons(self, seat: int, card: str) -> list[str]:
        """PLAY-2 to PLAY-6, JOKER-1 and JOKER-2, each on its own, for ``seat`` playing next."""
        deal = self.deal
        assert deal is not None
        hand = deal["hands"][seat]
        trumps = [held for held in hand if self.is_trump(held)]
        trick = deal["trick"]
        found = []
        if not trick:
            personally_board = (
                not deal["tiebreak"] and deal["bids"][(seat - deal["dealer"] - 1) % 4] == "board"
            )
            exempt = deal["broken"] or personally_board or len(trumps) == len(hand)
            if self.is_trump(card) and not exempt:
                found.append("trumps_not_broken")
            return found
        led = trick[0]
        if led in ("BIG", "LITTLE") and trumps:
            pick = max if led == "BIG" else min
            if card != pick(trumps, key=trump_rank):
                found.append(
                    "big_joker_forces_highest" if led == "BIG" else "little_joker_forces_lowest"
                )
        if self.is_trump(led):
            if trumps and not self.is_trump(card):
                found.append("must_follow_trump")
        elif suit_of(card) != suit_of(led) and any(suit_of(held) == suit_of(led) for held in hand):
            found.append("must_follow_suit")
        return found

    def refusal(self, action: str) -> str | None:
        """The reason code an action is refused with: the first that applies in REFUSAL_ORDER."""
        found = self.reasons(action)
        return min(found, key=REFUSAL_ORDER.index) if found else None

    def apply(self, action: str | list[str]) -> None:
        """A deal (its deck, or ``"deal"`` for the seeded one), a bid or a play."""
        if isinstance(action, list) or action == "deal":
            if self.refusal("deal") is not None:
                raise Refused(self.refusal("deal") or "")
            deck = action if isinstance(action, list) else seeded_deck(self.seed, self.deal_number)
            self.apply_deal(deck)
            return
        reason = self.refusal(action)
        if reason is not None:
            raise Refused(reason)
        seat_letter, what = action.split(" ")
        if what in ("pass", "board") or what.isdigit():
            self._bid(SEATS.index(seat_letter), what)
        else:
            self._play(SEATS.index(seat_letter), what)

    def legal(self) -> list[str]:
        """ENGINE-2: the seeded deal between deals; bids Pass, 1, ..., Board; cards in order."""
        if self.outcome is not None:
            return []
        if self.deal is None:
            return ["deal"]
        seat = self.to_move()
        assert seat is not None
        letter = SEATS[seat]
        if self.phase == "bid":
            size = self.deal["hand_size"]
            return [f"{letter} pass", *(f"{letter} {n}" for n in range(1, size)), f"{letter} board"]
        cards, _ = self.allowed(seat)
        return [f"{letter} {card}" for card in sorted(cards, key=NUMBER.__getitem__)]

    def view(self, seat: int) -> dict[str, Any]:
        """DEAL-5, as docs/protocol.md's VIEW says: the seat's hand, and its own swap alone."""
        deal = self.deal
        if deal is None:
            return {"seat": SEATS[seat], "hand": [], "swap": None}
        swap = deal["swap"]
        mine = None
        if swap is not None and swap["seat"] == SEATS[seat]:
            mine = {"gave": swap["joker"], "took": swap["received"]}
        return {"seat": SEATS[seat], "hand": list(deal["hands"][seat]), "swap": mine}

    def copy(self) -> Match:
        return copy.deepcopy(self)

    # -- what the files show -------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """docs/conformance.md, "The snapshot"."""
        deal = self.deal
        number = self.deal_number
        over = self.outcome is not None
        trick = None
        if deal is not None and deal["leader"] is not None:
            trick = {
                "leader": SEATS[deal["trick_leader"]],
                "cards": list(deal["trick"]),
                "winner": None,
            }
        return {
            "phase": self.phase,
            "deal_number": number,
            "counted_deals": self.counted,
            "dealer": SEATS[self.dealer_of(number)],
            "hand_size": None if over else (deal["hand_size"] if deal else self.next_hand_size()),
            "to_move": None if self.to_move() is None else SEATS[self.to_move()],
            "trump": deal["trump"] if deal else None,
            "turned": deal["turned"] if deal else None,
            "hands": {SEATS[s]: list(deal["hands"][s]) if deal else [] for s in range(4)},
            "bids": list(deal["bids"]) if deal else [],
            "contracts": self.contracts(),
            "tricks": [_trick_json(trick) for trick in deal["tricks"]] if deal else [],
            "current_trick": trick,
            "tricks_won": self.tricks_won(),
            "totals": list(self.totals),
            "outcome": self.outcome,
        }


def _trick_json(trick: dict[str, Any]) -> dict[str, Any]:
    return {
        "leader": SEATS[trick["leader"]],
        "cards": list(trick["cards"]),
        "winner": SEATS[trick["winner"]],
    }


def replay(record: dict[str, Any]) -> Match:
    """The match a game record (docs/records.md) reaches; its claims are not looked at."""
    match = Match(record["rules"], record.get("seed", 0))
    for deal in record["deals"]:
        match.apply("deal" if deal["deck"] == "seed" else list(deal["deck"]))
        for call in deal["bids"]:
            match.apply(f"{SEATS[match.to_move()]} {call}")
        for card in deal["plays"]:
            match.apply(f"{SEATS[match.to_move()]} {card}")
    return match


def perft(match: Match, depth: int) -> int:
    """Distinct legal action sequences of exactly ``depth`` actions (docs/conformance.md)."""
    if depth == 0:
        return 1
    total = 0
    for action in match.legal():
        after = match.copy()
        after.apply(action)
        total += perft(after, depth - 1)
    return total
