"""Play against the bots in the terminal.

    python -m agents.play --env queens_and_jacks_v0                 # you are player_0, the others "normal"
    python -m agents.play --env dominoes_v0 --seat 2 --bots hard     # your partner and opponents play "hard"
    python -m agents.play --env six_of_spades_v0 --bots easy normal easy --opt num_players=4
    python -m agents.play --env dominoes_v0 --episode deal           # one deal instead of the match

You see only your own view (the game's text table with the other hands hidden), the moves the others make,
and your legal moves in the game's move notation. Type a move (``QC``, ``35L``, ``trump:H``, ...); a move
that is not legal is refused with the reason and the legal moves. Several moves of the same turn may be
typed at once, separated by spaces (e.g. ``7H 8H lead`` where a set of cards is chosen card by card).
``?`` lists the legal moves again, ``quit`` ends the game.

``--bots`` takes one spec for every other seat or one per other seat (clockwise from yours); any agent
spec works (``random``, ``easy``, ``normal``, ``hard``, ``crazy``, ``expert``, ``pimc:n=64``; ``rl`` for the trained
policy shipped with :mod:`agents.rl`, or any name registered with :func:`agents.register`).
"""
from __future__ import annotations

import argparse

from kozel_env.core.errors import IllegalActionError
from kozel_env.registry import ENVIRONMENTS, load

from .base import decide
from .registry import make_agent


def _summary(res: dict) -> str:
    parts = []
    for k, v in res.items():
        if isinstance(v, (list, tuple, dict)) and len(str(v)) > 80:
            continue
        parts.append(f"{k}={v}")
    return ", ".join(parts)


def _parse_moves(env, text: str) -> tuple:
    """The action ids of one or more moves typed in one line, all by the person's seat, validated on a copy
    of the game first so that nothing is played unless every move is legal. Returns ``(actions, rest)``:
    ``rest`` is what was typed after the turn had already ended (e.g. a confirmation the game took by
    itself because it was the only legal move)."""
    u = env.unwrapped
    tokens = text.split()
    if len(tokens) <= 1:
        return [env.move_to_action(text)], []
    st = u.game_state.clone()
    seat = st.current_player
    out = []
    for i, tok in enumerate(tokens):
        if i and st.current_player != seat:
            return out, tokens[i:]
        a = u.game.string_to_action(st, tok)
        st.apply_action(a)
        out.append(a)
    return out, []


def play(env_name: str, seat: int = 0, bots=("normal",), seed: int | None = None, env_options=None,
         episode: str = "match", input_fn=input, print_fn=print) -> dict:
    """Run one interactive episode; returns the engine's match result (or last deal result)."""
    env = load(env_name).env(episode=episode, **(env_options or {}))
    n = len(env.possible_agents)
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1}")
    bots = list(bots)
    others = [(seat + i) % n for i in range(1, n)]
    if len(bots) == 1:
        bots = bots * (n - 1)
    if len(bots) != n - 1:
        raise ValueError(f"give one bot spec or {n - 1} (one per other seat), got {len(bots)}")
    base = 0 if seed is None else seed
    agents = {s: make_agent(spec, env_name, seed=base * 31 + s, env_options=env_options)
              for s, spec in zip(others, bots)}
    labels = {s: spec for s, spec in zip(others, bots)}
    env.reset(seed=seed)
    u = env.unwrapped
    game = u.game
    me = env.possible_agents[seat]
    print_fn(f"{env_name}: you are {me}; " + ", ".join(f"player_{s} = {labels[s]}" for s in others))
    deals = 0
    shown = None
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        st = u.game_state
        if agent == me:
            view = game.render(st, viewer=seat)
            if view != shown:
                print_fn("\n" + view)
                shown = view
            while True:
                print_fn("your moves: " + " ".join(env.legal_moves()))
                text = input_fn(f"{me}> ").strip()
                if text in ("quit", "exit", "q"):
                    print_fn("bye")
                    return {"quit": True}
                if text in ("?", "help", ""):
                    continue
                try:
                    actions, rest = _parse_moves(env, text)
                except IllegalActionError as e:
                    print_fn(f"not accepted: {e}")
                    continue
                if rest:
                    print_fn(f"(your turn ended before {' '.join(rest)!r}: the game played the only legal "
                             f"move itself; ignored)")
                break
            for a in actions:
                env.step(a)
        else:
            s = u.agent_name_mapping[agent]
            a = decide(agents[s], env, obs["observation"], obs["action_mask"])
            print_fn(f"{agent} ({labels[s]}) plays {env.action_to_move(a)}")
            env.step(a)
        st = u.game_state
        for res in st.results[deals:]:  # every deal that ended
            print_fn(f"\n== deal {res['deal']} over: {_summary(res)}")
            shown = None
        deals = len(st.results)
    res = u.game_state.match_result or u.game_state.last_result
    print_fn(f"\n== over: {_summary(res)}")
    return res


def main(argv=None, input_fn=input, print_fn=print) -> dict:
    ap = argparse.ArgumentParser(prog="python -m agents.play", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", required=True, choices=sorted(ENVIRONMENTS))
    ap.add_argument("--seat", type=int, default=0, help="your seat (player_0 ...)")
    ap.add_argument("--bots", nargs="+", default=["normal"], help="bot spec(s) for the other seats")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--episode", choices=("match", "deal"), default="match")
    ap.add_argument("--opt", nargs="*", default=[], help="rules options of the env, key=value")
    args = ap.parse_args(argv)
    from .arena import parse_options

    return play(args.env, seat=args.seat, bots=args.bots, seed=args.seed, env_options=parse_options(args.opt),
                episode=args.episode, input_fn=input_fn, print_fn=print_fn)


if __name__ == "__main__":
    try:
        main()
    except (KeyboardInterrupt, EOFError):
        print()
