"""The double-dummy solver: equal to a plain minimax over ``apply``, consistent, careful with input.

The reference below knows nothing of the solver: it plays every legal action
through ``apply`` and ``legal_actions`` to the end of the deal, each pair
maximizing its own tricks (the count of one pair is the hand size less the
other's, so that is one minimax), remembering positions it has already valued.
Hypothesis draws positions at every hand size up to four cards and at every
point of a deal: first leads, mid-trick, joker leads, Board bidders, no-trump
deals and tiebreak deals.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Card, MatchState, Phase, Play, Rules, Seat, apply, legal_actions, new_match
from backalley.core import position as P
from backalley.engine.state import DealResult
from backalley.solver import Search, Solution, SolveError, position_in_play, solve, solve_position
from backalley.solver.search import _unbeaten
from backalley.strategies import states
from decks import position
from helpers import little_lead, minimax

RuleSet = st.SearchStrategy[Rules]


def _reference_counts(state: MatchState) -> dict[Play, int]:
    """Each legal play's tricks for the mover's pair in the deal, by minimax over ``apply``."""
    mover = state.to_move
    assert mover is not None
    pair = mover % 2
    memo: dict[object, int] = {}

    def tricks(result: DealResult) -> int:
        return result.deal.tricks_won[pair]

    counts = {}
    for action in legal_actions(state):
        assert isinstance(action, Play)
        counts[action] = minimax(apply(state, action), pair, tricks, memo)
    return counts


def _in_play(size: int, **steer: object) -> st.SearchStrategy[MatchState]:
    return states(st.just(Rules(schedule=[size])), phase=Phase.PLAY, **steer)  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [1, 2, 3, 4])
@settings(max_examples=250)
@given(data=st.data())
def test_it_equals_minimax_over_apply_at_every_hand_size(size: int, data: st.DataObject) -> None:
    steer = data.draw(
        st.sampled_from(
            [
                {},
                {"trick_boundary": True},
                {"trick_boundary": False},
                {"boards": True},
                {"no_trump": True},
                {"joker_lead": True},
            ]
        )
    )
    state = data.draw(_in_play(size, **steer))
    solution = solve(state)
    assert dict(solution.items()) == _reference_counts(state)
    assert list(solution) == list(legal_actions(state))


@settings(max_examples=60)
@given(
    state=states(
        st.sampled_from(
            [
                Rules(schedule=[2, 1, 1, 2], tie="tiebreak-deal"),
                Rules(schedule=[3, 3], tie="tiebreak-deal"),
            ]
        ),
        phase=Phase.PLAY,
        tiebreak=True,
    )
)
def test_it_equals_minimax_in_a_tiebreak_deal(state: MatchState) -> None:
    assert dict(solve(state).items()) == _reference_counts(state)


@settings(max_examples=100)
@given(state=_in_play(4) | _in_play(3, trick_boundary=False) | _in_play(4, joker_lead=True))
def test_the_best_card_keeps_the_value_and_no_card_raises_it(state: MatchState) -> None:
    solution = solve(state)
    mover = state.to_move
    assert mover is not None
    for play in solution:
        after = apply(state, play)
        assert solution[play] <= solution.value
        if after.deal is None or len(after.history) > len(state.history):
            continue  # the deal is over: the count is the tricks taken
        follower = after.to_move
        assert follower is not None
        following = solve(after)
        # The same pair's count, seen from the next mover (the other pair's is the rest).
        ours = following.value if follower % 2 == mover % 2 else state.hand_size - following.value
        assert ours == solution[play]
        if play in solution.best:
            assert ours == solution.value


def test_a_joker_lead_wins_where_a_plain_lead_would_not() -> None:
    # Spades trumps, North (left of the dealer West) bid Board and leads. LITTLE
    # led forces East's only trump, the 2S, so North's LITTLE wins and North then
    # cashes AC: two tricks. Led first, AC is ruffed by East's 2S (void in clubs).
    state = little_lead()
    assert state.to_move is Seat.NORTH
    solution = solve(state)
    assert solution[Play(Seat.NORTH, Card.LITTLE)] == 2
    assert solution[Play(Seat.NORTH, Card.CA)] == 1
    assert solution.value == 2
    assert solution.best == (Play(Seat.NORTH, Card.LITTLE),)


def test_the_trump_lead_ban_holds_without_a_board() -> None:
    # Same cards, North bid 1, not Board: it may not lead LITTLE (a trump) yet.
    state = little_lead(bids=[1, 0, 0, 0])
    solution = solve(state)
    assert list(solution) == [Play(Seat.NORTH, Card.CA)]
    assert solution.value == 1


def test_tricks_already_taken_are_counted() -> None:
    state = position(
        {
            Seat.NORTH: ["AC", "KC"],
            Seat.EAST: ["2C", "3C"],
            Seat.SOUTH: ["4C", "5C"],
            Seat.WEST: ["6C", "7C"],
        },
        turned="9S",
        bids=[1, 0, 0, 0],
        dealer=Seat.WEST,
        plays=["AC", "2C", "4C", "6C"],
    )
    solution = solve(state)
    assert state.tricks_won == (1, 0)
    assert solution.value == 2
    assert solution[Play(Seat.NORTH, Card.CK)] == 2


def test_the_solution_is_a_mapping_of_the_legal_plays() -> None:
    state = position(
        {
            Seat.NORTH: ["AC", "2D"],
            Seat.EAST: ["2C", "3D"],
            Seat.SOUTH: ["4C", "5C"],
            Seat.WEST: ["6C", "7C"],
        },
        turned="9S",
        bids=[1, 0, 0, 0],
        dealer=Seat.WEST,
    )
    solution = solve(state)
    assert isinstance(solution, Solution)
    assert len(solution) == 2
    assert Play(Seat.NORTH, Card.CA) in solution
    assert Play(Seat.EAST, Card.CA) not in solution
    with pytest.raises(KeyError):
        solution[Play(Seat.NORTH, Card.HA)]
    assert solution.seat is Seat.NORTH


def test_it_refuses_a_state_out_of_play_with_a_reason() -> None:
    state = new_match(Rules(schedule=[2]), seed=1)
    with pytest.raises(SolveError) as refusal:
        solve(state)
    assert refusal.value.reason == "not_in_play"
    assert "play phase" in str(refusal.value)
    with pytest.raises(SolveError) as wrong:
        solve("a state")  # type: ignore[arg-type]
    assert wrong.value.reason == "not_a_state"
    assert "str" in str(wrong.value)


def test_the_position_reads_the_board_bidder_and_the_trick() -> None:
    state = little_lead(plays=["AC"])
    pos = position_in_play(state)
    assert P.boards(pos) == (True, False, False, False)
    assert pos[P.TRICK] == (int(Card.CA),)
    assert pos[P.LEADER] == 0
    assert P.to_move(pos) == 1


def _entry_position(west: list[str]) -> tuple[Search, list[int], int, bool]:
    # Hearts trumps; North (left of the dealer West) leads with no winner of its
    # own, South holds the top three clubs and North a club to reach them.
    state = position(
        {
            Seat.NORTH: ["2C", "3D", "4D"],
            Seat.EAST: ["5C", "6D", "7D"],
            Seat.SOUTH: ["AC", "KC", "QC"],
            Seat.WEST: west,
        },
        turned="9H",
        bids=[1, 0, 0, 0],
        dealer=Seat.WEST,
    )
    pos = position_in_play(state)
    return Search.of(pos, 0), list(pos[P.HANDS]), pos[P.LEADER], pos[P.BROKEN]


def test_the_quick_tricks_count_the_partners_winners_reached_by_a_lead() -> None:
    # West holds a trump and two clubs: South's clubs win twice before West can ruff.
    search, hands, leader, broken = _entry_position(["8C", "9C", "2H"])
    assert search._quick_tricks(hands, leader, broken) == 2
    # The two clubs counted decided it; the third, which West could ruff, did not.
    assert search.relevant == (1 << Card.CA) | (1 << Card.CK)
    search.partner_entries = False
    assert search._quick_tricks(hands, leader, broken) == 0


def test_no_partner_entry_where_an_opponent_can_ruff_the_lead() -> None:
    # West, void in clubs with a trump, could ruff the club led to South.
    search, hands, leader, broken = _entry_position(["2H", "8D", "9D"])
    assert search._quick_tricks(hands, leader, broken) == 0


@settings(max_examples=60, deadline=None)
@given(
    state=st.sampled_from([5, 6, 7]).flatmap(
        lambda size: _in_play(size) | _in_play(size, no_trump=True) | _in_play(size, boards=True)
    )
)
def test_the_partner_entry_bound_and_a_full_table_change_no_count(state: MatchState) -> None:
    # Against the search without the partner-entry bound and with a table that never fills.
    pos = position_in_play(state)
    pair = P.to_move(pos) % 2
    plain = Search.of(pos, pair)
    plain.partner_entries = False
    expected = solve_position(pos, plain)
    assert solve_position(pos, Search.of(pos, pair)) == expected
    for capacity in (40, 0):
        small = Search.of(pos, pair)
        small.capacity = capacity
        assert solve_position(pos, small) == expected
    # With no room, every new key empties the table first: it holds one key at most.
    assert len(small.table) <= 1
    assert small.emptied >= len(small.table)


def _drawing(
    north: list[str], east: list[str], decided: list[str], *, board: bool = True
) -> tuple[MatchState, int]:
    # Hearts trumps; North bid Board (it may lead a trump at once; else it bid 1,
    # the highest) and leads, with the top two clubs. The state and North's quick
    # tricks; ``decided`` are the cards whose ranks decided the count (the top
    # cards counted, and the lowest trump each sure-trump count looked at).
    state = position(
        {
            Seat.NORTH: [*north, "AC", "KC"],
            Seat.EAST: [*east, "4D", "5D"],
            Seat.SOUTH: ["6D", "7D", "8D", "9D"],
            Seat.WEST: ["TD", "JD", "QD", "3S"],
        },
        turned="9H",
        bids=["board" if board else 1, 0, 0, 0],
        dealer=Seat.WEST,
    )
    pos = position_in_play(state)
    assert P.to_move(pos) == Seat.NORTH
    search = Search.of(pos, 0)
    quick = search._cashing(list(pos[P.HANDS]), pos[P.LEADER], pos[P.BROKEN])
    assert search.relevant == sum(1 << Card.parse(card) for card in decided)
    return state, quick


def test_the_quick_tricks_count_side_winners_once_the_top_trumps_draw_the_opponents() -> None:
    # North's AH KH against East's one trump: cashed at once the clubs are ruffed,
    # but two rounds of trumps draw East's first, and then the clubs win.
    # North's trumps are settled once its last is seen: East's 2H never counts.
    state, quick = _drawing(["AH", "KH"], ["2H", "3D"], ["AC", "KC", "AH", "KH"])
    assert quick == 4
    assert solve(state).value == 4
    assert dict(solve(state).items()) == _reference_counts(state)


def test_too_few_top_trumps_draw_nothing() -> None:
    # East's two trumps against North's one top trump (its 2H is below both of
    # East's): the clubs stay capped by East's length in them (none).
    # North's 2H is matched to East's 4H, whatever lies below: the 3H never counts,
    # and neither do the clubs East ruffs (the AH, above the 4H, is held to its rank).
    state, quick = _drawing(["AH", "2H"], ["3H", "4H"], ["4H"])
    assert quick == 1
    assert dict(solve(state).items()) == _reference_counts(state)


@pytest.mark.parametrize(
    "size", [5, pytest.param(6, marks=[pytest.mark.slow, pytest.mark.timeout(900)])]
)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_it_equals_minimax_over_apply_on_larger_hands(size: int, data: st.DataObject) -> None:
    # The bounds and the table at the sizes where they start to cut: first leads
    # and later tricks, with trumps (Board bidders, who may lead one at once) and
    # without. The minimax of a six-card deal takes seconds: that size runs with
    # the slow tests.
    steer = data.draw(
        st.sampled_from([{}, {"trick_boundary": True}, {"boards": True}, {"no_trump": True}])
    )
    state = data.draw(_in_play(size, **steer))
    assert dict(solve(state).items()) == _reference_counts(state)


def test_the_leaders_sure_trumps_add_to_the_side_winners_before_trumps_may_be_led() -> None:
    # No Board: North may not lead its AH yet. AC wins (East, with a trump, follows
    # once, then ruffs), and the AH, above East's 2H, wins whenever it is played:
    # two tricks, counted before any card is tried (one before the bound).
    state, quick = _drawing(["AH", "2S"], ["2H", "3C"], ["AC", "AH"], board=False)
    assert quick == 2
    assert solve(state).value == 2
    assert dict(solve(state).items()) == _reference_counts(state)


def _at_a_tricks_start(sizes: list[int]) -> st.SearchStrategy[MatchState]:
    return st.sampled_from(sizes).flatmap(
        lambda size: (
            _in_play(size, trick_boundary=True)
            | _in_play(size, trick_boundary=True, boards=True)
            | _in_play(size, trick_boundary=True, no_trump=True)
        )
    )


@pytest.mark.timeout(600)  # hundreds of minimaxes: a loaded machine may need minutes
@settings(max_examples=200, deadline=None)
@given(state=_at_a_tricks_start([2, 3, 4]))
def test_the_bounds_at_a_tricks_start_hold_against_the_minimax(state: MatchState) -> None:
    _check_the_bounds(state)


@pytest.mark.slow
@pytest.mark.timeout(3600)  # minutes on a quiet machine; a loaded one needs more
@settings(max_examples=3000, deadline=None)
@given(state=_at_a_tricks_start([3, 4]))
def test_the_bounds_hold_against_the_minimax_on_thousands_of_positions(
    state: MatchState,
) -> None:
    _check_the_bounds(state)


def _check_the_bounds(state: MatchState) -> None:
    # The quick tricks (the leader's pair takes at least so many: its own top
    # cards, the partner's reached by a lead, a suit run by both hands) and each
    # pair's sure trumps, against the count of the minimax over apply.
    pos = position_in_play(state)
    assert not pos[P.TRICK]
    leader = P.to_move(pos)
    pair = leader % 2
    search = Search.of(pos, pair)
    hands = list(pos[P.HANDS])
    ours = max(_reference_counts(state).values()) - P.tricks_won(pos)[pair]
    theirs = hands[leader].bit_count() - ours
    assert search._quick_tricks(hands, leader, pos[P.BROKEN]) <= ours
    assert search._cashing(hands, leader, pos[P.BROKEN]) <= ours
    assert search._sure_trumps(hands, pair) <= ours
    assert search._sure_trumps(hands, 1 - pair) <= theirs
    assert search._joint_tricks(hands, leader, 0)[0] <= ours


def _joint(hands: dict[Seat, list[str]], turned: str = "9H") -> tuple[Search, MatchState, int]:
    # North (left of the dealer West) bid 1 and leads: the state and its pair's
    # tricks from one suit run by both hands.
    state = position(hands, turned=turned, bids=[1, 0, 0, 0], dealer=Seat.WEST)
    pos = position_in_play(state)
    assert P.to_move(pos) == Seat.NORTH
    search = Search.of(pos, 0)
    return search, state, search._joint_tricks(list(pos[P.HANDS]), pos[P.LEADER], 0)[0]


def test_a_suit_run_by_both_hands_counts_every_top_card_it_can_cash() -> None:
    # Hearts trumps, none held. North leads KC (South under it with 3C), then 7C
    # to South's AC, and South cashes QC: three club tricks, where North's own top
    # cards (KC) count one and South's reached by a lead (AC) one.
    search, state, joint = _joint(
        {
            Seat.NORTH: ["KC", "7C", "2D"],
            Seat.EAST: ["JC", "2C", "3D"],
            Seat.SOUTH: ["AC", "QC", "3C"],
            Seat.WEST: ["4D", "5D", "6D"],
        }
    )
    assert joint == 3
    pos = position_in_play(state)
    assert search._quick_tricks(list(pos[P.HANDS]), pos[P.LEADER], pos[P.BROKEN]) == 3
    # The ranks that decided it: the pair's top clubs, above East's JC.
    assert search.relevant == (1 << Card.CA) | (1 << Card.CK) | (1 << Card.CQ)
    assert solve(state).value == 3
    assert dict(solve(state).items()) == _reference_counts(state)


def test_a_blocked_suit_counts_only_the_rounds_the_hands_can_win_in_a_row() -> None:
    # North's KC QC and South's bare AC: the ace must fall on a club led, South
    # then has no club to lead, so the suit gives one trick, not two.
    _, state, joint = _joint(
        {
            Seat.NORTH: ["KC", "QC", "2D"],
            Seat.EAST: ["JC", "2C", "3D"],
            Seat.SOUTH: ["AC", "4D", "5D"],
            Seat.WEST: ["6D", "7D", "8D"],
        }
    )
    assert joint == 1
    assert dict(solve(state).items()) == _reference_counts(state)


def test_an_opponents_ruff_caps_a_suit_run_by_both_hands() -> None:
    # West holds a trump and one club: the run stops after the first round.
    _, state, joint = _joint(
        {
            Seat.NORTH: ["KC", "7C", "2D"],
            Seat.EAST: ["JC", "2C", "3D"],
            Seat.SOUTH: ["AC", "QC", "4D"],
            Seat.WEST: ["3C", "2H", "6D"],
        }
    )
    assert joint == 1
    assert dict(solve(state).items()) == _reference_counts(state)


def test_a_hands_trumps_count_less_the_higher_trumps_of_the_other_pair() -> None:
    # Clubs trumps (the 9C turned): East's JC 9C 8C against North's BIG and
    # South's LITTLE, each able to beat one of them; the third wins, whoever leads.
    state = position(
        {
            Seat.NORTH: ["BIG", "8S", "KS"],
            Seat.EAST: ["JC", "9C", "8C"],
            Seat.SOUTH: ["LITTLE", "TD", "KD"],
            Seat.WEST: ["2D", "3D", "4D"],
        },
        turned="7C",
        bids=["board", 0, 0, 0],
        dealer=Seat.WEST,
    )
    pos = position_in_play(state)
    search = Search.of(pos, 0)
    hands = list(pos[P.HANDS])
    assert search._sure_trumps(hands, 1) == 1
    assert search._sure_trumps(hands, 0) == 1  # BIG, above every trump of East-West
    assert dict(solve(state).items()) == _reference_counts(state)


def test_the_leaders_side_winners_add_the_partners_trumps_that_win_whatever_is_played() -> None:
    # Clubs trumps, none held by East-West. North cashes 10S and 8S (South
    # discards 7D, then must ruff its partner's winner with 3C) and South's KC
    # still wins a trick: three, where North's own count is two.
    state = position(
        {
            Seat.NORTH: ["KH", "8S", "TS"],
            Seat.EAST: ["6H", "8H", "AH"],
            Seat.SOUTH: ["3C", "KC", "7D"],
            Seat.WEST: ["2H", "5H", "QH"],
        },
        turned="9C",
        bids=[1, 0, 0, 0],
        dealer=Seat.WEST,
    )
    pos = position_in_play(state)
    search = Search.of(pos, 0)
    assert search._cashing(list(pos[P.HANDS]), pos[P.LEADER], pos[P.BROKEN]) == 3
    assert search._sure_trumps(list(pos[P.HANDS]), 0) == 2
    assert dict(solve(state).items()) == _reference_counts(state)


def _matched_greedily(mine: int, theirs: int) -> int:
    # The sure-trump count scanned to the end: a trump of ``theirs`` seen beats
    # one lower trump of ``mine``.
    higher = sure = 0
    for card in range(63, -1, -1):
        if theirs >> card & 1:
            higher += 1
        elif mine >> card & 1:
            if higher:
                higher -= 1
            else:
                sure += 1
    return sure


@settings(max_examples=300, deadline=None)
@given(
    cards=st.permutations(range(16)),
    mine=st.integers(0, 7),
    theirs=st.integers(0, 7),
    data=st.data(),
)
def test_a_sure_trump_count_rests_only_on_the_trumps_down_to_where_it_stopped(
    cards: list[int], mine: int, theirs: int, data: st.DataObject
) -> None:
    # The search keeps the count under the ranks down to the lowest card it looked
    # at: any hands of the same lengths that agree on who holds every card from
    # there up must give the same count, however the cards below lie.
    ours = sum(1 << card for card in cards[:mine])
    other = sum(1 << card for card in cards[mine : mine + theirs])
    count, looked = _unbeaten(ours, other)
    assert count == _matched_greedily(ours, other)
    below = looked - 1 if looked else -1  # no card looked at: all of them may move
    held = (ours | other) & below
    free = [card for card in range(16) if (1 << card) & below]
    moved = data.draw(st.permutations(free))
    low_mine = (ours & below).bit_count()
    new_mine = (ours & ~below) | sum(1 << card for card in moved[:low_mine])
    new_theirs = (other & ~below) | sum(1 << card for card in moved[low_mine : held.bit_count()])
    assert _unbeaten(new_mine, new_theirs)[0] == count
