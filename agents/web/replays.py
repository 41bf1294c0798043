"""Replays and hints for the web server: a record rebuilt move by move (forward and back, as any viewer), and
the trained network's and the expert's advice for a seat to move."""
from __future__ import annotations

import time

from kozel_env.core.record import InvalidRecordError, check_record, short
from kozel_env.registry import ENVIRONMENTS
from kozel_env.replay import ReplayMismatch, parse, replay

from ..base import decide
from ..registry import make_agent
from .table import BadRequest, state_view


class Replay:
    """A record, read and checked by :mod:`kozel_env.replay` (``parse`` for its JSON text, ``check_record``
    for a parsed object, then ``replay``), with the engine state after every move. Anything that is not a
    complete and consistent record of a known game is :class:`BadRequest` with one line naming the problem."""

    def __init__(self, record, expect_env: str | None = None):
        try:
            record = parse(record) if isinstance(record, (bytes, bytearray, str)) else check_record(record)
        except InvalidRecordError as e:
            raise BadRequest(f"not a record: {e}") from None
        env_name = record["env"]
        if env_name not in ENVIRONMENTS:
            raise BadRequest(f"the record's game {short(env_name)} is not one of {sorted(ENVIRONMENTS)}")
        if expect_env is not None and env_name != expect_env:
            raise BadRequest(f"this record is of {env_name}, not of {expect_env}")
        try:
            env, _trace = replay(record)
        except ReplayMismatch as e:
            raise BadRequest(f"the record does not rebuild: {e}") from None
        except InvalidRecordError as e:
            raise BadRequest(f"malformed record: {e}") from None
        u = env.unwrapped
        self.env_name = env_name
        self.record = record
        self.game = u.game
        moves = [e for e in record["events"] if e["type"] == "move"]
        st = self.game.new_state(int(record["engine_seed"]), {**record["setup"], **(
            {"single_deal": True} if record["options"].get("episode") == "deal" else {})})
        self.states = [st.clone()]
        self.moves = []
        for e in moves:
            self.moves.append({"seat": e["seat"], "move": e["move"]})
            st.apply_action(e["action"])
            self.states.append(st.clone())
        self.touched = time.monotonic()

    def view(self, step, viewer) -> dict:
        n = self.game.num_players
        if type(step) is not int or not 0 <= step < len(self.states):
            raise BadRequest(f"step must be 0..{len(self.states) - 1}, got {step!r}")
        if viewer is not None and (type(viewer) is not int or not 0 <= viewer < n):
            raise BadRequest(f"seat must be 0..{n - 1} (or absent for the spectator), got {viewer!r}")
        shown = [m if viewer is None or m["seat"] == viewer or self.game.family == "dominoes"
                 else {"seat": m["seat"]} for m in self.moves[:step]]
        return {"env": self.env_name, "step": step, "steps": len(self.states) - 1, "viewer": viewer,
                "family": self.game.family, "sides": list(self.game.sides), "moves": shown,
                **state_view(self.game, self.states[step], viewer)}


def hints(table, seat: int) -> dict:
    """For the human ``seat`` to move at ``table``: the shipped network's probability of each legal move (when
    a network fits the game's options) and the expert's move. Both read only that seat's observation (the
    expert's search: ``game.sample_consistent``, as every search bot)."""
    st = table.state
    if st.terminal or st.current_player != seat:
        raise BadRequest(f"hints are for the seat to move; it is not player_{seat}'s turn", 409)
    env = table.env
    u = env.unwrapped
    obs = env.observe(u.possible_agents[seat])
    legal = st.legal_actions()
    out = {"policy": None, "policy_note": "", "expert": None, "expert_note": ""}
    try:
        import agents.rl

        pol = agents.rl.load(table.env_name).policy
        if pol.obs_dim != u.game.obs_spec.size or pol.num_actions != u.game.num_actions:
            raise ValueError("the shipped network does not fit these rules options")
        p = pol.probs(obs["observation"][None], obs["action_mask"][None])[0]
        out["policy"] = sorted(({"move": table.game.action_to_string(st, a), "p": round(float(p[a]), 4)}
                                for a in legal), key=lambda d: -d["p"])
    except (FileNotFoundError, ValueError) as e:
        out["policy_note"] = str(e)
    try:
        if table.expert is None:
            table.expert = make_agent("expert", table.env_name, seed=table.seed, env_options=table.options)
        a = decide(table.expert, env)
        out["expert"] = table.game.action_to_string(st, a)
    except (KeyError, ValueError, FileNotFoundError) as e:
        out["expert_note"] = str(e)
    return out


__all__ = ["Replay", "hints"]
