"""Properties of bidding: the circuit, the bids allowed, Boards, contracts and the opening lead."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from backalley import Bid, Contract, IllegalAction, MatchState, Phase, Reason, Seat, apply
from backalley import legal_actions as legal
from backalley.core.actions import shared_bid
from backalley.core.bidding import (
    BOARD,
    bid_code,
    bid_in_range,
    bid_of_code,
    board_multipliers,
    contracts,
    opening_leader,
    overbids,
)
from backalley.engine.match import _out_of_range
from backalley.strategies import BID_AMOUNTS, states
from rules_oracle import leader_of, pair_contract


@st.composite
def circuits(draw: st.DrawFn, max_bids: int = 4) -> tuple[int, list[Bid]]:
    """A hand size and a (possibly partial) circuit of in-range bids from a drawn first bidder."""
    size = draw(st.integers(1, 13))
    first = draw(st.sampled_from(list(Seat)))
    count = draw(st.integers(0, max_bids))
    bids = []
    for k in range(count):
        seat = first.after(k)
        if draw(st.integers(0, 3)) == 0:
            bids.append(Bid(seat, board=True))
        else:
            bids.append(Bid(seat, draw(st.integers(0, size - 1))))
    return size, bids


def last_bid(state: MatchState) -> Bid:
    """The last bid made, also when it was the fourth pass that threw the deal in."""
    bids = state.bids if state.deal is not None else state.history[-1].deal.bids
    return bids[-1]


full_circuits = circuits().filter(lambda c: len(c[1]) == 4)


@pytest.mark.rule("BID-1")
@given(states(phase=Phase.BID))
def test_bidding_starts_left_of_the_dealer_and_ends_with_the_dealer(state: MatchState) -> None:
    """The k-th bidder sits k+1 seats left of the dealer, so the dealer bids fourth and last."""
    assert state.deal is not None
    dealer = state.deal.setup.dealer
    assert state.to_move == dealer.after(len(state.bids) + 1)
    assert [bid.seat for bid in state.bids] == [dealer.after(k + 1) for k in range(len(state.bids))]
    while state.phase is Phase.BID:
        seat = state.to_move
        state = apply(state, legal(state)[-1])
        if len(state.bids) == 4:
            assert seat == dealer
    assert state.phase is Phase.PLAY


@pytest.mark.rule("BID-2", "SCOPE-1")
@given(states(phase=Phase.BID))
def test_the_bids_are_pass_one_to_hand_size_less_one_and_board(state: MatchState) -> None:
    """The legal bids are exactly Pass, 1 .. hand size - 1 and Board, for the seat to move."""
    seat = state.to_move
    assert seat is not None
    expected = [Bid(seat, n) for n in range(state.hand_size)] + [Bid(seat, board=True)]
    assert list(legal(state)) == expected
    for amount in BID_AMOUNTS:
        action = Bid(seat, amount)
        if action in expected:
            assert last_bid(apply(state, action)) == action
        else:
            with pytest.raises(IllegalAction) as refused:
                apply(state, action)
            assert refused.value.reason is Reason.BID_OUT_OF_RANGE


@pytest.mark.rule("BID-2")
@given(st.integers(1, 13), st.sampled_from(list(Seat)), st.sampled_from(list(BID_AMOUNTS)))
def test_bid_in_range_is_pass_to_hand_size_less_one(size: int, seat: Seat, amount: int) -> None:
    """`bid_in_range` accepts 0 .. size - 1 and Board only; one card leaves Pass and Board."""
    assert bid_in_range(Bid(seat, amount), size) == (0 <= amount < size)
    assert bid_in_range(Bid(seat, board=True), size)
    if size == 1:
        assert bid_in_range(Bid(seat, amount), size) == (amount == 0)


@pytest.mark.rule("BID-3")
@given(states(phase=Phase.BID), st.data())
def test_bids_need_not_increase(state: MatchState, data: st.DataObject) -> None:
    """Whatever was bid before, every in-range number stays legal, lower ones included."""
    seat = state.to_move
    assert seat is not None
    amount = data.draw(st.integers(0, state.hand_size - 1))
    assert Bid(seat, amount) in legal(state)
    assert last_bid(apply(state, Bid(seat, amount))).amount == amount


@pytest.mark.rule("BID-4")
@given(circuits())
def test_the_kth_board_has_multiplier_k(circuit: tuple[int, list[Bid]]) -> None:
    """Board multipliers number the Boards of the circuit 1, 2, 3, 4 in the order said."""
    _, bids = circuit
    board_seats = [bid.seat for bid in bids if bid.board]
    assert board_multipliers(bids) == {seat: k + 1 for k, seat in enumerate(board_seats)}


@pytest.mark.rule("BID-5", "BID-6")
@given(circuits())
def test_contracts_match_an_independent_reading(circuit: tuple[int, list[Bid]]) -> None:
    """Each pair's contract is its highest Board, else the sum of its numbers."""
    _, bids = circuit
    assert contracts(bids) == (pair_contract(bids, 0), pair_contract(bids, 1))


@pytest.mark.rule("BID-5")
@given(full_circuits)
def test_a_board_ignores_the_partners_bid(circuit: tuple[int, list[Bid]]) -> None:
    """Changing the number bid by a Board bidder's partner changes nothing of the contract."""
    size, bids = circuit
    for i, bid in enumerate(bids):
        partner = next(b for b in bids if b.seat == bid.seat.partner)
        if bid.board and not partner.board:
            changed = [Bid(b.seat, (b.amount + 1) % size) if b is partner else b for b in bids]
            assert contracts(changed)[bid.seat.pair] == contracts(bids)[bid.seat.pair]
            assert contracts(bids)[bid.seat.pair].is_board
        del i


@pytest.mark.rule("BID-5")
def test_no_pair_inherits_the_other_pairs_multiplier() -> None:
    """000 §06: West Board, North Board, East pass, South Board: NS ×3, EW keep ×1."""
    bids = [
        Bid(Seat.WEST, board=True),
        Bid(Seat.NORTH, board=True),
        Bid(Seat.EAST),
        Bid(Seat.SOUTH, board=True),
    ]
    assert contracts(bids) == (Contract(0, 3), Contract(0, 1))


@pytest.mark.rule("BID-6")
@given(full_circuits)
def test_a_numeric_target_is_the_sum_of_both_bids(circuit: tuple[int, list[Bid]]) -> None:
    """Without a Board, a pair's target adds its two bids, Pass counting 0."""
    _, bids = circuit
    for pair in (0, 1):
        own = [bid for bid in bids if bid.seat % 2 == pair]
        if not any(bid.board for bid in own):
            assert contracts(bids)[pair] == Contract(sum(bid.amount for bid in own))


@pytest.mark.rule("BID-7")
@given(circuits())
@example((4, [Bid(Seat.NORTH, 2), Bid(Seat.EAST), Bid(Seat.SOUTH, 2), Bid(Seat.WEST, 3)]))
@example((3, [Bid(Seat.NORTH, 2), Bid(Seat.EAST), Bid(Seat.SOUTH, 2), Bid(Seat.WEST, 2)]))
def test_overbids_are_warnings_listing_targets_above_the_hand_size(
    circuit: tuple[int, list[Bid]],
) -> None:
    """A pair's numeric target above the hand size is reported, and only then."""
    size, bids = circuit
    warned = {o.pair: o for o in overbids(bids, size)}
    for pair in (0, 1):
        c = pair_contract(bids, pair)
        assert (pair in warned) == (not c.is_board and c.target > size)
        if pair in warned:
            warning = warned[pair]
            assert (warning.pair, warning.target, warning.hand_size) == (pair, c.target, size)
            label = "NS" if pair == 0 else "EW"
            assert warning.message == (
                f"{label} have bid {c.target} tricks, but only {size} will be played."
            )


@pytest.mark.rule("BID-7")
@given(states(phase=Phase.BID))
def test_an_overbid_is_never_refused(state: MatchState) -> None:
    """The top bid stays legal whatever the partner bid, and the state reports the warning."""
    top = legal(state)[-2]
    if top.is_pass:
        return  # one card: no number to overbid with
    after = apply(state, top)
    assert after.deal is not None
    assert after.deal.warnings == overbids(after.bids, after.hand_size)


@pytest.mark.rule("BID-8")
@given(full_circuits)
def test_the_opening_leader_matches_an_independent_reading(
    circuit: tuple[int, list[Bid]],
) -> None:
    """Last Board bidder, else the earliest of the highest numbers; nobody after four passes."""
    _, bids = circuit
    assert opening_leader(bids) == leader_of(bids)


@pytest.mark.rule("BID-8", "PLAY-1")
@given(states(phase=Phase.PLAY, trick_boundary=True))
def test_the_opening_leader_leads_the_first_trick(state: MatchState) -> None:
    """In play, the first trick is led by the opening leader of the circuit."""
    assert state.deal is not None
    first = state.completed_tricks[0] if state.completed_tricks else state.current_trick
    assert first is not None
    if not state.in_tiebreak:
        assert first.leader == leader_of(list(state.bids))


@pytest.mark.rule("BID-5", "BID-6")
@given(circuits())
def test_a_contract_says_what_it_needs(circuit: tuple[int, list[Bid]]) -> None:
    """A Board contract needs every trick and reads "board ×m"; a target needs itself."""
    size, bids = circuit
    for contract in contracts(bids):
        if contract.is_board:
            assert contract.tricks_needed(size) == size
            assert str(contract) == f"board ×{contract.multiplier}"
        else:
            assert contract.tricks_needed(size) == contract.target
            assert str(contract) == str(contract.target)
        assert repr(contract) == f"Contract({contract})"


@pytest.mark.rule("BID-1")
@given(states(phase=Phase.PLAY))
def test_each_seats_bid_is_found_by_seat(state: MatchState) -> None:
    """`bid_of(seat)` is the bid that seat made (None in a tiebreak deal, which has no bids)."""
    assert state.deal is not None
    for seat in Seat:
        mine = [bid for bid in state.bids if bid.seat == seat]
        assert state.deal.bid_of(seat) == (mine[0] if mine else None)


@pytest.mark.rule("BID-1")
@given(states(phase=Phase.BID))
def test_seats_yet_to_bid_have_no_bid(state: MatchState) -> None:
    """During bidding, the seats that have not bid yet have no bid."""
    assert state.deal is not None
    said = {bid.seat for bid in state.bids}
    for seat in Seat:
        assert (state.deal.bid_of(seat) is None) == (seat not in said)


@pytest.mark.rule("BID-2", "ENGINE-3")
@given(states(phase=Phase.BID), st.sampled_from(list(BID_AMOUNTS)))
def test_an_out_of_range_bid_says_what_may_be_bid(state: MatchState, amount: int) -> None:
    """The refusal of an out-of-range bid lists the bids the hand size allows."""
    seat, size = state.to_move, state.hand_size
    assert seat is not None
    if 0 <= amount < size:
        return
    with pytest.raises(IllegalAction) as refused:
        apply(state, Bid(seat, amount))
    if size == 1:
        expected = f"With one card you may bid Pass or Board, not {amount}."
    elif size == 2:
        expected = f"With 2 cards you may bid Pass, 1, or Board, not {amount}."
    else:
        expected = f"With {size} cards you may bid Pass, 1 to {size - 1}, or Board, not {amount}."
    assert refused.value.message == expected


@pytest.mark.rule("BID-2", "ENGINE-3")
@given(st.integers(1, 13), st.integers(-3, 16))
def test_the_out_of_range_sentence_for_every_hand_size(size: int, amount: int) -> None:
    """The sentence lists Pass, the numbers 1 to size - 1 (none with one card) and Board."""
    numbers = {1: "", 2: ", 1,"}.get(size, f", 1 to {size - 1},")
    cards = "one card" if size == 1 else f"{size} cards"
    expected = f"With {cards} you may bid Pass{numbers} or Board, not {amount}."
    assert _out_of_range(size, amount) == expected


@pytest.mark.rule("BID-2", "SCOPE-1")
@given(st.sampled_from(list(Seat)), st.integers(1, 14))
def test_a_board_bid_has_no_number(seat: Seat, amount: int) -> None:
    """Board with a number is not a bid of the game: refused when the action is built."""
    with pytest.raises(ValueError) as refused:
        Bid(seat, amount, board=True)
    assert str(refused.value) == "a Board bid has no number: write Bid(seat, board=True)"


@pytest.mark.rule("BID-2")
@given(st.sampled_from(list(Seat)), st.one_of(st.booleans(), st.floats(), st.text(max_size=2)))
def test_a_bid_amount_is_a_whole_number(seat: Seat, amount: object) -> None:
    """A bid's amount must be an int (not a bool, float or string): a TypeError says so."""
    with pytest.raises(TypeError) as refused:
        Bid(seat, amount)  # type: ignore[arg-type]
    assert str(refused.value) == (
        f"a bid's amount must be a whole number of tricks, not {amount!r}"
    )


def test_bid_of_code_is_the_shared_bid_whose_code_it_is() -> None:
    """``bid_of_code`` undoes ``bid_code`` for every seat and every bid a deal allows."""
    for seat in Seat:
        for code in (*range(13), BOARD):
            bid = bid_of_code(seat, code)
            assert bid.seat is seat and bid_code(bid) == code
            assert bid is (
                shared_bid(seat, 0, board=True) if code == BOARD else shared_bid(seat, code)
            )
