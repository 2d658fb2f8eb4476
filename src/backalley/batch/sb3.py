"""The batch engine's vector environment as a Stable-Baselines3 ``VecEnv``.

:class:`SeatVecEnv` is :class:`~backalley.batch.vector.SeatVectorEnv` (one seat of
N matches, the other seats played inside the compiled step) in the API that
Stable-Baselines3's and sb3-contrib's algorithms train on: ``reset()`` gives the
observations, ``step(actions)`` the observations, rewards, ``dones`` and one info
dict per lane, an ended lane starting its next match in the same step, its last
observation in ``infos[i]["terminal_observation"]`` (and
``"TimeLimit.truncated"`` for a lane that ran out of spare deals), as SB3's own
``DummyVecEnv`` does. :meth:`SeatVecEnv.action_masks` gives each lane's legal
actions, and ``env_method("action_masks")`` answers as sb3-contrib's
``MaskablePPO`` asks, so it trains on the fast path as shipped:

>>> from sb3_contrib import MaskablePPO  # doctest: +SKIP
>>> env = SeatVecEnv(64, schedule="short", seed=1)  # doctest: +SKIP
>>> MaskablePPO("MultiInputPolicy", env, n_steps=64).learn(20_000)  # doctest: +SKIP

Settings are :class:`SeatVectorEnv`'s (``seat``, ``rules`` or ``schedule``,
``rewards``, ``opponent``, ``partner``, ``illegal``, ``illegal_reward``, ``spare_deals``);
``seed`` seeds the first reset (lane ``i`` plays seed + i), as ``seed()`` does for
the next. Needs the ``batch``, ``pettingzoo`` and ``rl`` extras. See
``docs/pettingzoo.md``, "Many tables at once".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._extras import require_extra

require_extra("backalley.batch.sb3", "rl", ["stable_baselines3"])

import gymnasium  # noqa: E402 -- only once the extra is known to be there
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from stable_baselines3.common.vec_env.base_vec_env import VecEnv  # noqa: E402

from .vector import SeatVectorEnv  # noqa: E402

__all__ = ["SeatVecEnv"]


class SeatVecEnv(VecEnv):  # type: ignore[misc]
    """One seat of ``num_envs`` matches as a Stable-Baselines3 ``VecEnv`` (see the module)."""

    def __init__(self, num_envs: int, *, seed: int | None = None, **settings: Any) -> None:
        if "autoreset_mode" in settings:
            raise ValueError("SeatVecEnv resets an ended lane in the same step, as SB3 does")
        self.vector = SeatVectorEnv(num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **settings)
        super().__init__(
            num_envs,
            self.vector.single_observation_space,
            self.vector.single_action_space,
        )
        self._seed = seed
        self._actions: npt.NDArray[np.int64] | None = None

    def reset(self) -> dict[str, npt.NDArray[Any]]:
        """Start a match in every lane (the seed given, if any: lane ``i`` plays seed + i)."""
        observations, _ = self.vector.reset(seed=self._seed)
        self._seed = None
        return observations

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next reset: lane ``i`` plays the match of ``seed + i``."""
        self._seed = seed
        return [None if seed is None else seed + lane for lane in range(self.num_envs)]

    def step_async(self, actions: npt.ArrayLike) -> None:
        """Take one action index per lane (any integer array of N entries)."""
        self._actions = np.asarray(actions).reshape(-1)

    def step_wait(
        self,
    ) -> tuple[
        dict[str, npt.NDArray[Any]],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        list[dict[str, Any]],
    ]:
        """Play the actions; ended lanes start again, their last observation in their info."""
        if self._actions is None:
            raise ValueError("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        observations, reward, terminated, truncated, infos = self.vector.step(actions)
        dones = terminated | truncated
        lanes: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for lane in np.flatnonzero(dones).tolist():
            final = infos["final_obs"]
            lanes[lane]["terminal_observation"] = {
                name: value[lane] for name, value in final.items()
            }
            lanes[lane]["TimeLimit.truncated"] = bool(truncated[lane] and not terminated[lane])
            if "illegal_action" in infos and infos["_illegal_action"][lane]:
                lanes[lane]["illegal_action"] = int(infos["illegal_action"][lane])
                lanes[lane]["reason"] = str(infos["reason"][lane])
        return observations, reward.astype(np.float32), dones, lanes

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The agent's legal actions in each lane: (N, 68) booleans."""
        return self.vector.action_masks()

    def close(self) -> None:
        """Nothing to release: the lanes live in one JAX state."""

    # --- SB3's per-lane access, for the lanes' shared attributes ----------------------

    def _lanes(self, indices: int | Iterable[int] | None) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: int | Iterable[int] | None = None) -> list[Any]:
        """An attribute of the vector environment, once per lane asked (all lanes share it)."""
        if attr_name == "action_masks":
            masks = self.action_masks()
            return [masks[lane] for lane in self._lanes(indices)]
        value = getattr(self.vector, attr_name)
        return [value for _ in self._lanes(indices)]

    def set_attr(
        self, attr_name: str, value: Any, indices: int | Iterable[int] | None = None
    ) -> None:
        """Refused: the lanes share one compiled environment, set at construction."""
        raise AttributeError(
            f"SeatVecEnv's lanes share their settings: make a new one to change {attr_name!r}"
        )

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: int | Iterable[int] | None = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks`` per lane (what MaskablePPO calls); other methods, once per lane."""
        if method_name == "action_masks":
            return self.get_attr("action_masks", indices)
        method = getattr(self.vector, method_name)
        result = method(*method_args, **method_kwargs)
        return [result for _ in self._lanes(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: int | Iterable[int] | None = None
    ) -> list[bool]:
        """No lane is wrapped: the lanes are one compiled environment."""
        return [False for _ in self._lanes(indices)]

    def __repr__(self) -> str:
        return f"<SeatVecEnv over {self.vector!r}>"
