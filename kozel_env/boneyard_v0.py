"""``boneyard_v0``: Kozel with a boneyard, 2-4 players each for himself, to 101 (seed 001, RULES D5).

Spec:

| | |
|---|---|
| agents | ``player_0`` .. ``player_{n-1}``, clockwise, each for himself (``num_players`` 2, 3 or 4; default 2) |
| actions | ``Discrete(77)``: ``tile * 2 + end`` (end 0 = left, 1 = right; the lead uses end 0); ``56 + k`` (the two-doubles move, only with ``two_doubles=True``) |
| observation | ``{"observation": float32 (see the README table), "action_mask": int8 (77,)}`` |
| episode | the match to 101 (``episode="deal"``: one hand) |
| rewards | ``reward="outcome"``: -1 the goat, +1 the player(s) with the fewest points, 0 the others; ``reward="points"``: zero-sum points per hand |

The game (RULES D5): two players take 7 tiles each, three or four take 5; the rest is the boneyard (D5.1).
The holder of the lowest double leads it (with no double dealt, the heaviest tile); later hands the winner of
the last hand leads any tile (D5.2). A player who cannot play draws one tile at a time until a tile fits or
the boneyard is empty -- the last tile may be drawn -- and then passes (D5.3). Drawing and passing are forced,
so the environment performs them: the drawn tiles are seen by the drawer only, the number drawn is public (the
``drawn`` and ``stock`` parts), passes are public (the ``knocked`` part), and what the table knows about every
hand is the ``lacking`` part. A hand ends when someone plays out or nobody can play with the boneyard empty;
then the player(s) with the fewest pips win (D5.4). Every loser records the pips left on their own tiles; a
total under 13 is remembered and added to that player's next entry until it lands (D5.5). The goat is the
player at 101 or more (several: the most points; still equal: all of them) (D5.6).

Rules options (``env(**options)``; defaults from RULES D5): ``num_players=2`` (2-4); ``hand_sizes=(7, 5, 5)``
(D5.1, per 2/3/4 players; or pass ``hand_size``); ``opening="lowest_double"`` (D5.2; "11_with_four": ``11``
leads with four players, the lowest double when ``11`` lies in the boneyard); ``next_leader="winner"`` (D5.2;
several winners: the first clockwise from the player who made the last move; "last_mover"); ``threshold=13``,
``threshold_mode="accumulate"`` (D5.5; "open", "remember", "none"); ``target=101`` (D5.6);
``lone_double_values=None`` (D5.6: D1.1 off; ``(25, 50)`` on); ``two_doubles=False`` (seed 001 plays one tile
a move; our choice, RULES silent); ``redeal=False`` (seed 001 has no redeal; our choice); ``eggs_carry=False``
(all tied: nobody loses and nothing is carried, seed 001 / D5.4; True: eggs as D1.8), ``eggs_to="each"``.

``reset(options=...)``: ``hands`` (one tile string per seat), ``stock`` (the boneyard in draw order; default:
drawn at random), ``first_deal`` (default True: the opening rule leads), ``leader`` (seat, with
``first_deal=False``), ``scores`` / ``memory`` (per player: recorded and remembered points), ``eggs``.

Move notation: ``35`` leads 35 (or is the only placement of 35); ``35L`` / ``35R`` lays 35 at the left / right
end.

Results as in ``dominoes_ffa_v0`` (per player); the only title is ``goats`` (seed 001 names no naked or bald
goats, RULES D5.6).

Version history: v0 -- first release; v0 (0.2.0) -- one result schema in every game, every deal reported
once in ``infos[agent]["deals"]``, options checked when given, the match record.
"""
from __future__ import annotations

from .core.aec import KozelEnv
from .dominoes.game import DominoesGame
from .dominoes.rules import BONEYARD, make_rules


class raw_env(KozelEnv):
    metadata = {**KozelEnv.metadata, "name": "boneyard_v0"}
    base_rules = BONEYARD

    @classmethod
    def make_game(cls, rules_options: dict) -> DominoesGame:
        return DominoesGame(make_rules(cls.base_rules, rules_options))


def env(**kwargs) -> raw_env:
    """The environment (no wrapper stack: it validates its own input)."""
    return raw_env(**kwargs)
