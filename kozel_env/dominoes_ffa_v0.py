"""``dominoes_ffa_v0``: Kozel every man for himself, 2-4 players with a stock, to 101 (seed 000 §9, RULES D2).

Spec:

| | |
|---|---|
| agents | ``player_0`` .. ``player_{n-1}``, clockwise, each for himself (``num_players`` 2, 3 or 4; default 2) |
| actions | ``Discrete(77)``: ``tile * 2 + end`` (end 0 = left, 1 = right; the lead uses end 0), ``56 + k`` the two-doubles move of pair k |
| observation | ``{"observation": float32 (see the README table), "action_mask": int8 (77,)}`` |
| episode | the match to 101 (``episode="deal"``: one deal) |
| rewards | ``reward="outcome"``: -1 the goat, +1 the player(s) with the fewest points, 0 the others; ``reward="points"``: zero-sum points per deal |

The game (RULES D2): 7 tiles each, the stock holds 14 / 7 / 0 tiles with 2 / 3 / 4 players (D2.1). A player
who cannot play draws one tile at a time while the stock holds two or more; the last tile is never drawn (D2.2).
Drawing is forced, so the environment performs it: the drawn tiles go to the drawer's hand (only the drawer
sees them), the number drawn is public (the ``drawn`` and ``stock`` parts); with the stock down to one tile a
player who cannot play knocks (automatic, public, the ``knocked`` part). What the table knows about every hand
from knocks, draws and the opening is the ``lacking`` part (kozel_env.dominoes.knowledge). The first deal of
a match opens with ``11`` (four players) or the lowest double, with no double dealt the heaviest tile (D2.3);
later deals the player who played the last tile leads anything. Fish: nobody can play and nobody may draw
(D2.4); the lowest hand total wins (all tied for lowest win). Every other player writes their own hand
(lone ``00`` = 25, ``66`` = 50) with their own threshold of 13 (D2.5); all tied: eggs (D1.8). The goat is the
player at 101 or more (several: the most points; still equal: all of them), places by points (D2.6).

Rules options (``env(**options)``; defaults from RULES D2): ``num_players=2`` (2-4, seed 000 §9);
``opening="11_with_four"`` (D2.3; "lowest_double" or "11"); ``lone_double_values=(25, 50)`` (D1.1; None = plain
pips); ``two_doubles=True`` (D1.2); ``redeal=True`` (D1.6, tested on the dealt hands only, never after draws;
RULES silent, our choice); ``threshold=13``, ``threshold_mode="open"`` (D1.7; "remember", "accumulate",
"none"); ``target=101``; ``next_leader="last_mover"`` (seed 000 §4; "winner": the winner of the deal leads);
``eggs_carry=True`` (D1.8); ``eggs_to="each"`` (RULES silent: after eggs every loser of the next decided deal
adds the carried total; "highest": only the loser(s) with the highest amount); ``hand_size=7``.

``reset(options=...)``: ``hands`` (one tile string per seat, e.g. ``"00 11 35 ..."``), ``stock`` (the other tiles
in the order they will be drawn; default: drawn at random), ``first_deal`` (default True: the opening rule
leads), ``leader`` (seat, with ``first_deal=False``), ``scores`` / ``opened`` / ``memory`` (per player), ``eggs``.

Move notation (``env.unwrapped.legal_moves()``, ``move_to_action``, ``action_to_move``): ``35`` leads 35 (or
is the only placement of 35); ``35L`` / ``35R`` lays 35 at the left / right end; ``33+66`` the two-doubles
move.

Results as in ``dominoes_v0``, a side being one player (``hand_totals``, ``amounts``, ``written`` per player);
the match's ``places``: 1 = best, by points, fewer is better, equal points share a place, the goat(s) last
(D2.6); ``winners`` the player(s) with the fewest points; titles as in ``dominoes_v0`` (seed 000 §9: "the
basic rules are the same").

Version history: v0 -- first release; v0 (0.2.0) -- one result schema in every game, every deal reported
once in ``infos[agent]["deals"]``, options checked when given, the match record.
"""
from __future__ import annotations

from .core.aec import KozelEnv
from .dominoes.game import DominoesGame
from .dominoes.rules import FFA, make_rules


class raw_env(KozelEnv):
    metadata = {**KozelEnv.metadata, "name": "dominoes_ffa_v0"}
    base_rules = FFA

    @classmethod
    def make_game(cls, rules_options: dict) -> DominoesGame:
        return DominoesGame(make_rules(cls.base_rules, rules_options))


def env(**kwargs) -> raw_env:
    """The environment (no wrapper stack: it validates its own input)."""
    return raw_env(**kwargs)
