"""The trained player: its shipped weights load without JAX or torch, and it plays legal
moves over whole matches; its features are seat- and trump-relative as documented."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from backalley import Rules, Seat, apply, legal_actions, new_match, seeded_deal  # noqa: E402
from backalley.engine.view import view  # noqa: E402
from backalley.players import (  # noqa: E402
    PLAYER_KINDS,
    HeuristicPlayer,
    RandomPlayer,
    play_match,
)
from backalley.players.learned import (  # noqa: E402
    FEATURES,
    WEIGHTS,
    LearnedPlayer,
    Network,
    card_order,
    features,
)

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "backalley" / "players"


def test_the_shipped_weights_are_small_and_in_the_package() -> None:
    path = PACKAGE / WEIGHTS
    assert path.stat().st_size < 1_000_000
    with zipfile.ZipFile(path) as saved:
        names = sorted(saved.namelist())
    assert names[0] == "b0.npy" and "w0.npy" in names
    network = Network.load()
    assert network.layers[0][0].shape[0] == FEATURES
    assert network.layers[-1][0].shape[1] == 68


def test_the_player_loads_and_plays_without_jax_or_torch() -> None:
    # A fresh interpreter in which importing JAX or torch fails: the player must not need them.
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('jax', 'jaxlib', 'torch', 'optax'):\n"
        "            raise ImportError(f'{name} is blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "from backalley import Rules\n"
        "from backalley.players import PLAYER_KINDS, RandomPlayer, play_match\n"
        "state = play_match([PLAYER_KINDS['learned'](), RandomPlayer(1)] * 2,"
        " Rules(schedule=[3, 2]), seed=5)\n"
        "print(state.is_over, sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('jax', 'torch')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True []"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_player_plays_only_legal_actions_over_whole_matches(seed: int) -> None:
    # play_match refuses any action that is not legal (PlayerError): a whole short match
    # with the learned player at two seats, against the heuristic and random pairs.
    learned = PLAYER_KINDS["learned"]()
    assert isinstance(learned, LearnedPlayer)
    opponents = HeuristicPlayer() if seed % 2 else RandomPlayer(seed)
    seen = []

    class Watching:
        def __call__(self, view_, legal):  # type: ignore[no-untyped-def]
            chosen = learned(view_, legal)
            seen.append(chosen in legal)
            return chosen

    state = play_match([Watching(), opponents] * 2, Rules(schedule="short"), seed=seed)
    assert state.is_over
    assert len(seen) > 50 and all(seen)


def test_the_features_are_the_same_for_every_seat_and_for_renamed_suits() -> None:
    # The features of a position are its viewer's: a seat's own hand is at the
    # hand's offset whoever the seat, and the trump suit is renamed first.
    state = new_match(Rules(schedule=[5]), seed=8)
    state = apply(state, seeded_deal(state))
    trump = state.deal.trump
    order = card_order(None if trump is None else int(trump))
    for seat in Seat:
        seen = view(state, seat)
        out = features(seen)
        assert out.shape == (FEATURES,)
        hand = np.flatnonzero(out[:54]).tolist()
        assert hand == sorted(order[card] for card in seen.hand)
    if trump is not None:
        first = [card for card in range(54) if order[card] < 13]
        assert all(card // 13 == int(trump) for card in first)


def test_the_network_refuses_layers_of_the_wrong_shape() -> None:
    with pytest.raises(ValueError, match="features"):
        Network([(np.zeros((3, 68)), np.zeros(68))])
    with pytest.raises(ValueError, match="68 scores"):
        Network([(np.zeros((FEATURES, 4)), np.zeros(4))])


def test_the_player_takes_the_legal_action_of_highest_score() -> None:
    state = new_match(Rules(schedule=[3]), seed=2)
    state = apply(state, seeded_deal(state))
    seat = state.to_move
    legal = tuple(legal_actions(state))
    # A network whose scores are the action slots' numbers picks the highest legal slot.
    weights = np.zeros((FEATURES, 68), np.float32)
    biases = np.arange(68, dtype=np.float32)
    player = LearnedPlayer(Network([(weights, biases)]))
    assert player(view(state, seat), legal) == legal[-1]  # Board, slot 13, while bidding


BLOCK_NUMPY = (
    "import sys\n"
    "class Block:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] == 'numpy':\n"
    "            raise ImportError('blocked')\n"
    "sys.meta_path.insert(0, Block())\n"
    "from backalley.cli import main\n"
)


@pytest.mark.parametrize(
    "arguments",
    [["simulate", "--ns", "learned", "--matches", "2"], ["play", "--opponents", "learned"]],
)
def test_the_command_line_names_the_extra_when_numpy_is_missing(arguments: list[str]) -> None:
    code = BLOCK_NUMPY + f"sys.exit(main({arguments!r}))\n"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "pip install 'backalley[learned]'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
