"""sb3-contrib's MaskablePPO trains on SeatEnv as it comes: no wrapper, never an illegal action.

The training and evaluation are those of ``benchmarks/maskable_ppo.py``, the script
that ``docs/pettingzoo.md`` shows, run here for a few thousand steps.
"""
# ruff: noqa: E402 -- the frameworks are imported only after importorskip has found them

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.utils import is_masking_supported
from stable_baselines3.common.callbacks import BaseCallback

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "maskable_ppo.py"


def _script():
    spec = importlib.util.spec_from_file_location("maskable_ppo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Refusals(BaseCallback):
    """Counts the steps, and the ones the environment ended as illegal."""

    def __init__(self):
        super().__init__()
        self.steps = 0
        self.illegal = 0

    def _on_step(self):
        self.steps += 1
        self.illegal += sum("reason" in info for info in self.locals["infos"])
        return True


def test_maskable_ppo_trains_a_few_thousand_steps_with_no_wrapper():
    script = _script()
    env = script.make_env()
    assert is_masking_supported(env)  # sb3-contrib finds action_masks() on the env itself
    torch.set_num_threads(1)
    from sb3_contrib import MaskablePPO  # noqa: PLC0415 -- after importorskip

    model = MaskablePPO("MultiInputPolicy", env, n_steps=512, seed=1, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    refusals = _Refusals()
    model.learn(total_timesteps=2048, callback=refusals)
    assert refusals.steps >= 2048
    assert refusals.illegal == 0  # the masks kept every sampled action legal
    after = list(model.policy.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after, strict=True))
    # The script's evaluation plays whole matches with the masked policy.
    wins, draws, losses = script.evaluate(model, matches=6, seed=5)
    assert wins + draws + losses == 6
