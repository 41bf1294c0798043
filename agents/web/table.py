"""The tables of the web server: one :class:`Table` per game being played or watched, the per-seat views that
go on the wire, and the :class:`Tables` store (unguessable ids, seat tokens, idle expiry, a bound on memory).

What a seat receives is built only from what that seat may see:

* ``text`` -- the engine's own text table for that viewer, ``game.render(state, viewer=seat)`` (the other
  hands as ``??``): the engine decides visibility, the server does not re-derive it;
* ``hand`` -- the seat's own hand (``state.hands[seat]``), the one hidden thing a seat always sees;
* ``counts``, ``ends`` (dominoes), ``to_move``, the deal results and the match result -- public facts the
  text table shows too;
* ``log`` -- for every step: who moved; the move's text only where the move is public (a tile laid face up in
  the dominoes family, or the seat's own move); the engine's events with their ``public`` part, and the
  ``private`` part only for the seat it belongs to;
* ``line`` (dominoes) -- the tiles along the line, rebuilt from those public moves;
* ``legal`` -- the seat's legal moves, only when it is that seat's turn.

The spectator's view (``viewer=None``: every hand face up) is served only for tables with no human seat.
"""
from __future__ import annotations

import secrets
import threading
import time

from kozel_env.cards.deck import cards_str
from kozel_env.core.errors import IllegalActionError, InvalidOptionError, KozelError
from kozel_env.core.game import State
from kozel_env.core.record import event_dict
from kozel_env.dominoes.engine import DEAD, NONE
from kozel_env.dominoes.tiles import tiles_str
from kozel_env.registry import ENVIRONMENTS, make

from ..base import decide
from ..registry import make_agent

BOTS = ("random", "easy", "normal", "greedy", "hard", "crazy", "expert", "expert_fast", "rl")
"""The bot names a seat may take (plus ``"human"`` and ``"checkpoint:<path to .npz>"``)."""
HUMAN = "human"
CHECKPOINT = "checkpoint:"


class BadRequest(Exception):
    """Bad input from a client: the message says what was wrong and what is allowed; nothing changed."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def seat_spec(spec, env_name: str) -> str:
    """The agent spec of a seat choice: ``"human"``, a bot name of :data:`BOTS`, or ``"checkpoint:PATH"``
    (a trained policy file, played as ``rl:path=PATH``)."""
    if not isinstance(spec, str):
        raise BadRequest(f"a seat must be a string: 'human', one of {list(BOTS)} or 'checkpoint:PATH'; got {spec!r}")
    if spec == HUMAN or spec in BOTS:
        return spec
    if spec.startswith(CHECKPOINT):
        path = spec[len(CHECKPOINT):].strip()
        if not path.endswith(".npz"):
            raise BadRequest(f"checkpoint path {path!r} must name a .npz policy file")
        return "rl:path=" + path
    raise BadRequest(f"unknown seat {spec!r}: 'human', one of {list(BOTS)} or 'checkpoint:PATH.npz'")


def _tokens(game, mask: int) -> list:
    text = tiles_str(mask) if game.family == "dominoes" else cards_str(mask)
    return text.split()


def _end(v: int) -> str:
    return "dead" if v == DEAD else ("" if v == NONE else str(v))


def state_view(game, st, viewer: int | None) -> dict:
    """What ``viewer`` (a seat, or None for the spectator) may see of ``st`` now, as JSON data."""
    n = game.num_players
    hands = {}
    for q in range(n):
        if viewer is None or viewer == q:
            hands[str(q)] = _tokens(game, st.hands[q])
    view = {
        "text": game.render(st, viewer),
        "to_move": -1 if st.terminal else int(st.current_player),
        "terminal": bool(st.terminal),
        "deal": st.deals_played + (0 if st.terminal else 1),
        "counts": [st.hands[q].bit_count() for q in range(n)],
        "hands": hands,
        "results": [dict(r) for r in st.results],
        "match": dict(st.match_result) if st.terminal and st.match_result else None,
    }
    if game.family == "dominoes":
        view["ends"] = [{"slot": game.slot_names[i], "value": _end(v)} for i, v in enumerate(st.ends)]
    return view


def _public_events(raw: list, results: tuple, viewer: int | None) -> list:
    """The engine events of one step as ``viewer`` sees them: the private part only for its own seat."""
    out = []
    for ev in raw:
        d = event_dict(ev, results)
        if d["type"] == "deal" and viewer is not None:  # the dealt hands are private to each seat
            hands = d.get("private", {}).get("hands")
            d.pop("private", None)
            if hands is not None:
                d["private"] = {"hand": hands[viewer]}
        elif "private" in d and (viewer is not None and d.get("seat") != viewer):
            d.pop("private")
        out.append(d)
    return out


class Table:
    """One game at one table: the AEC env, an agent per bot seat, the per-seat logs.

    ``seats`` lists each seat's choice (``"human"`` or a bot). Bots move only when :meth:`advance` is called
    (the client calls it at its own pace: pause, step and speed live in the browser). ``setup``: reset
    options fixing the deal (the game's set-up keys), for tests and analysis."""

    def __init__(self, env_name: str, options: dict | None = None, seats=None, episode: str = "deal",
                 seed: int | None = None, setup: dict | None = None):
        if env_name not in ENVIRONMENTS:
            raise BadRequest(f"unknown game {env_name!r}; known: {sorted(ENVIRONMENTS)}")
        if episode not in ("deal", "match"):
            raise BadRequest(f"episode must be 'deal' or 'match', got {episode!r}")
        options = dict(options or {})
        if not all(isinstance(k, str) for k in options):
            raise BadRequest("rules options must be an object with string keys")
        for k in ("render_mode", "episode", "reward", "infos", "illegal_action"):
            if k in options:
                raise BadRequest(f"option {k!r} is the server's, not a rules option")
        try:
            self.env = make(env_name, episode=episode, **options)
        except (KozelError, TypeError, ValueError) as e:
            raise BadRequest(f"bad rules options for {env_name}: {e}") from None
        u = self.env.unwrapped
        self.game = u.game
        n = self.game.num_players
        seats = list(seats) if seats is not None else [HUMAN] + ["normal"] * (n - 1)
        if len(seats) != n:
            raise BadRequest(f"{env_name} with these options has {n} seats; got {len(seats)} seat choices")
        self.specs = [seat_spec(s, env_name) for s in seats]
        self.seed = secrets.randbits(63) if seed is None else seed
        if type(self.seed) is not int or not 0 <= self.seed < 1 << 63:
            raise BadRequest(f"seed must be an int in 0..2**63-1, got {seed!r}")
        self.env_name = env_name
        self.options = options
        self.episode = episode
        self.agents = {}
        for q, spec in enumerate(self.specs):
            if spec != HUMAN:
                try:
                    self.agents[q] = make_agent(spec, env_name, seed=self.seed * 31 + q, env_options=options)
                except (KeyError, ValueError, OSError) as e:
                    raise BadRequest(f"seat {q}: cannot build {spec!r}: {e}") from None
        self.humans = [q for q, s in enumerate(self.specs) if s == HUMAN]
        self.tokens = {q: secrets.token_urlsafe(18) for q in self.humans}
        self.expert = None
        """The hint's expert, built on the first hint."""
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        try:
            self.env.reset(seed=self.seed, options=setup)
        except KozelError as e:
            raise BadRequest(f"bad set-up for {env_name}: {e}") from None
        for a in self.agents.values():
            if hasattr(a, "reset"):
                a.reset()
        self.viewers = list(range(n)) + ([None] if not self.humans else [])
        self.logs = {v: [] for v in self.viewers}
        self.line = self._empty_line()
        self._log_step(None, None, u.game_state.events)

    # ---------------------------------------------------------------- logs
    def _empty_line(self) -> dict | None:
        if self.game.family != "dominoes":
            return None
        return {"center": None, "arms": {s: [] for s in self.game.slot_names}}

    def _track_line(self, move: str, before: list, after: list) -> None:
        """The dominoes line from a public move (``"35L"``: tile 35 at the end L; the opening tile has no end;
        Donkey's ``x`` closes a double; ``"33+44"`` lays two doubles, each at the end of its number): each arm
        lists its tiles outward, each as ``[inner, outer]`` halves."""
        if self.line is None or not move[:2].isdigit():
            return
        if "+" in move:
            for part in move.split("+"):
                v = int(part[0])
                i = next((i for i, e in enumerate(before) if e == v), None)
                if i is not None:
                    self.line["arms"][self.game.slot_names[i]].append([v, v])
            return
        a, b = int(move[0]), int(move[1])
        slot = move[2:].rstrip("x")
        if self.line["center"] is None or not slot:
            self.line = self._empty_line()
            self.line["center"] = [a, b]
            return
        i = self.game.slot_names.index(slot)
        outer = after[i]
        tile = [b, a] if outer == a and a != b else [a, b]
        if outer not in (a, b):  # a closed or dead end: keep the tile as written
            tile = [a, b] if before[i] != b else [b, a]
        self.line["arms"][slot].append(tile)

    def _log_step(self, seat, action, raw_events) -> None:
        st = self.env.unwrapped.game_state
        move = None if action is None else self.game.action_to_string(self._before, action)
        public = self.game.family == "dominoes"
        for v in self.viewers:
            entry = {"i": len(self.logs[v])}
            if seat is not None:
                entry["seat"] = seat
                if public or v is None or v == seat:
                    entry["move"] = move
            events = _public_events(raw_events, st.results, v)
            if events:
                entry["events"] = events
            self.logs[v].append(entry)

    # ---------------------------------------------------------------- acting
    @property
    def state(self) -> State:
        return self.env.unwrapped.game_state

    def _step(self, action: int) -> None:
        u = self.env.unwrapped
        st = u.game_state
        seat = st.current_player
        self._before = st.clone()
        ends_before = list(st.ends) if self.line is not None else None
        self.env.step(action)
        st = u.game_state
        if self.line is not None:  # a deal's line stays shown until the next deal's opening tile
            self._track_line(self.game.action_to_string(self._before, action), ends_before, list(st.ends))
        self._log_step(seat, action, st.events)
        while self.env.agents and (self.env.terminations[self.env.agent_selection]
                                   or self.env.truncations[self.env.agent_selection]):
            self.env.step(None)

    def human_move(self, seat: int, move, expect: int | None) -> None:
        """Play ``move`` (text in the game's notation, or an action id) for human ``seat``; ``expect`` is the
        step the client saw (a stale one is refused)."""
        st = self.state
        if expect is not None and expect != self.steps:
            raise BadRequest(f"stale move: the table is at step {self.steps}, you sent one for step {expect}",
                             409)
        if st.terminal:
            raise BadRequest("the game is over: no move can be played", 409)
        if st.current_player != seat:
            raise BadRequest(f"it is player_{st.current_player}'s turn, not yours (player_{seat})", 409)
        try:
            if isinstance(move, str):
                action = self.game.string_to_action(st, move)
            else:
                action = self.game.check_action(st, move, f"player_{seat}")
        except IllegalActionError as e:
            raise BadRequest(f"illegal move {move!r}: {e}", 422) from None
        self._step(action)

    def advance(self, n: int = 1) -> int:
        """Let up to ``n`` bots move (stopping at a human's turn or the end); returns how many moved."""
        done = 0
        while done < n:
            st = self.state
            if st.terminal or st.current_player in self.tokens:
                break
            agent = self.agents[st.current_player]
            self._step(decide(agent, self.env))
            done += 1
        return done

    @property
    def steps(self) -> int:
        return len(self.logs[self.viewers[0]])

    # ---------------------------------------------------------------- views
    def check_viewer(self, seat, token) -> int | None:
        """The viewer a request may see as: a human seat with its token; any seat, or the spectator
        (``seat`` None), at a table with no human seat."""
        n = self.game.num_players
        if seat is not None and (type(seat) is not int or not 0 <= seat < n):
            raise BadRequest(f"seat must be 0..{n - 1} (or absent for the spectator), got {seat!r}")
        if self.humans:
            if seat is None:
                raise BadRequest("a table with a human seat has no spectator view: give your seat and token", 403)
            if seat in self.tokens:
                if not isinstance(token, str) or not secrets.compare_digest(token, self.tokens[seat]):
                    raise BadRequest(f"wrong or missing token for seat {seat}", 403)
            else:
                raise BadRequest(f"seat {seat} is a bot's at a table with human players: only the human seats "
                                 f"{self.humans} can be viewed", 403)
        return seat

    def view(self, viewer: int | None, since: int = 0) -> dict:
        """The response for ``viewer``: the table now and its log from step ``since``."""
        if type(since) is not int or since < 0:
            raise BadRequest(f"since must be an int >= 0, got {since!r}")
        st = self.state
        out = {"env": self.env_name, "options": self.options, "episode": self.episode,
               "seats": ["human" if s == HUMAN else s for s in self.specs],
               "viewer": viewer, "sides": list(self.game.sides), "family": self.game.family,
               "steps": self.steps, "since": since, "log": self.logs[viewer][since:],
               **state_view(self.game, st, viewer)}
        if self.line is not None:
            out["line"] = self.line
        out["legal"] = []
        if viewer is not None and not st.terminal and st.current_player == viewer:
            out["legal"] = [{"action": a, "move": self.game.action_to_string(st, a)} for a in st.legal_actions()]
        out["bot_to_move"] = bool(not st.terminal and st.current_player not in self.tokens)
        return out

    def record(self) -> dict:
        return self.env.unwrapped.record()


class Tables:
    """The tables in memory: at most ``max_tables`` (the least recently used goes first), each forgotten
    after ``ttl`` seconds without a request."""

    def __init__(self, max_tables: int = 200, ttl: float = 1800.0):
        self.max_tables = max_tables
        self.ttl = ttl
        self.items: dict = {}
        self.lock = threading.Lock()

    def _expire(self) -> None:
        now = time.monotonic()
        for k in [k for k, t in self.items.items() if now - t.touched > self.ttl]:
            del self.items[k]

    def add(self, item) -> str:
        with self.lock:
            self._expire()
            while len(self.items) >= self.max_tables:
                oldest = min(self.items, key=lambda k: self.items[k].touched)
                del self.items[oldest]
            key = secrets.token_urlsafe(16)
            item.touched = time.monotonic()
            self.items[key] = item
            return key

    def get(self, key: str) -> object:
        with self.lock:
            self._expire()
            item = self.items.get(key)
            if item is None:
                raise BadRequest(f"unknown or expired id {key!r}", 404)
            item.touched = time.monotonic()
            return item

    def __len__(self) -> int:
        return len(self.items)


__all__ = ["BOTS", "BadRequest", "InvalidOptionError", "Table", "Tables", "seat_spec", "state_view"]
