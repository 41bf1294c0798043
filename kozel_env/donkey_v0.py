"""``donkey_v0``: Donkey ("Cross"), pairs Kozel with a four-sided house and closed doubles (seed 000 §11, RULES D4).

Spec:

| | |
|---|---|
| agents | ``player_0`` .. ``player_3``, clockwise; pairs (0, 2) and (1, 3) |
| actions | ``Discrete(141)``: ``tile * 4 + end`` lays a tile (a double open) at end ``end`` (0-3 = L R U D; the lead uses 0); ``112 + n * 4 + end`` lays the double ``nn`` closed; ``140`` "done" ends a move of doubles |
| observation | ``{"observation": float32 (see the README table), "action_mask": int8 (141,)}`` |
| episode | the match to 101 (``episode="deal"``: one deal) |
| rewards | ``reward="outcome"``: +1 winners / -1 goats at the end; ``reward="points"``: zero-sum points per deal |

The game is ``dominoes_v0`` (four players in pairs, 7 tiles each, first move ``11``, losers write, to 101;
RULES D1) except (D4): the first double played in a deal is the house, open on four sides: led as the first
tile it gives four ends of its number, laid later at an end that end becomes three ends of its number (D4.1).
A move lays one tile, or one to four doubles, each at its own end that showed its number at the start of the
move (D4.2); the environment takes such a move as consecutive actions of the same player: after a double the
mask offers the doubles that may still join (at the ends in the ``move_slots`` part) and "done"; when no
double can join, the move ends by itself. The first double laid in a move that holds the deal's first double
is the house. Every double is laid open or closed (face down): a closed double is a dead end, a closed house
kills all its free sides (D4.3). Fish: nobody can play at the open ends; a move that leaves no open end is a
fish at once and its player the fisher (D4.4). Threshold 13 in every deal: a losing pair under 13 writes
nothing and remembers the amount, added to its next loss; the memory is cleared when that pair does not lose
the next decided deal; eggs (D1.8) keep it and are combined before the test (D4.5). Lone ``00`` / ``66``
count 25 / 50 (D1.1). Knocks are automatic and public.

Rules options (``env(**options)``; defaults from RULES D4): ``house=True`` (D4.1), ``max_doubles=4`` (D4.2;
1-4), ``closing=True`` (D4.3), ``close_lead=False`` (RULES silent; seed 000 §11: a house led first gives "four
ends at once", so a lead is always open; True: it may be closed, a fish at once by D4.4),
``threshold=13``, ``threshold_mode="remember"`` (D4.5; "open" as Kozel, "accumulate"), ``target=101``,
``lone_double_values=(25, 50)`` (D1.1), ``redeal=True`` (D1.6), ``next_leader="last_mover"`` (D1.5),
``eggs_carry=True`` (D1.8).

``reset(options=...)``: ``hands`` (4 tile strings), ``first_deal`` (default True: the holder of 11 leads it),
``leader`` (seat, with ``first_deal=False``), ``scores`` / ``opened`` / ``memory`` (per pair), ``eggs``.

Move notation (``env.unwrapped.legal_moves()``, ``move_to_action``, ``action_to_move``): ``35`` leads 35 (or is
the only placement of 35); ``35L``, ``35R``, ``35U``, ``35D`` lays 35 at an end; a suffix ``x`` lays a double
closed (``33Lx``; ``11x`` a closed lead); ``done`` ends a move of doubles. The ``ends`` part shows each end
(7 = dead), ``house`` whether the house is down, ``move_tiles`` / ``move_slots`` the move being made.

Results as in ``dominoes_v0`` (``final_move`` lists every double of a move of doubles; titles ``goats``,
``naked_goats``, ``bald_goats``). A move of doubles asks its player again ("done" or another double) whenever
the table cannot rule another double out, even when the player holds none: whose turn it is shows nothing of
the hand (RULES D4.2; ``move_slots`` is public).

Version history: v0 -- first release; v0 (0.2.0) -- one result schema in every game, every deal reported
once in ``infos[agent]["deals"]``, options checked when given, the match record.
"""
from __future__ import annotations

from .core.aec import KozelEnv
from .dominoes.donkey import DonkeyGame
from .dominoes.rules import DONKEY, make_rules


class raw_env(KozelEnv):
    metadata = {**KozelEnv.metadata, "name": "donkey_v0"}
    base_rules = DONKEY

    @classmethod
    def make_game(cls, rules_options: dict) -> DonkeyGame:
        return DonkeyGame(make_rules(cls.base_rules, rules_options))


def env(**kwargs) -> raw_env:
    """The environment (no wrapper stack: it validates its own input)."""
    return raw_env(**kwargs)
