"""``sea_goat_v0``: Sea Goat, Kozel in pairs with one score for both, to 125 (seed 000 §10, RULES D3).

Spec:

| | |
|---|---|
| agents | ``player_0`` .. ``player_3``, clockwise; pairs (0, 2) and (1, 3) |
| actions | ``Discrete(77)``: ``tile * 2 + end`` (end 0 = left, 1 = right; the lead uses end 0), ``56 + k`` the two-doubles move of pair k |
| observation | ``{"observation": float32 (see the README table), "action_mask": int8 (77,)}`` |
| episode | the match to 125 (``episode="deal"``: one deal) |
| rewards | ``reward="outcome"``: +1 winners / -1 sea goats at the end; ``reward="points"``: zero-sum points per deal |

The game is ``dominoes_v0`` (four players in pairs, 7 tiles each, first move ``11``; RULES D1) except (D3):
only one pair has a score at any time: a losing pair that has 25 or more in a deal (carried eggs included)
wipes the other pair's score and opens its own with that amount; less than 25 changes nothing; the pair whose
score is open writes any amount (D3.2, the ``opened`` part shows which). Going out with ``00`` among the tiles
of the final move (also ``00`` + ``66`` together) wins the match at once for the pair that went out (D3.3).
Going out with ``66`` in the final move (and no ``00``) makes the losing pair write 100 instead of its hand,
plus any carried eggs (D3.4). A pair at 125 or more are the sea goats (D3.5); a lone ``00`` / ``66`` counts 25 /
50 (D1.1).

Rules options (``env(**options)``; defaults from RULES D3): ``threshold=25``, ``threshold_mode="shared"``
(D3.2), ``target=125`` (D3.5), ``out_00_wins_match=True`` (D3.3), ``out_66_amount=100`` (D3.4; None = off),
``lone_double_values=(25, 50)`` (D1.1), ``two_doubles=True`` (D1.2), ``redeal=True`` (D1.6),
``next_leader="last_mover"`` (D1.5), ``eggs_carry=True`` (D1.8).

``reset(options=...)``: ``hands`` (4 tile strings), ``first_deal`` (default True: the holder of 11 leads it),
``leader`` (seat, with ``first_deal=False``), ``scores`` (per pair; only one pair may have points), ``opened``,
``eggs`` (carried points).

Move notation: ``35`` leads 35 (or is the only placement of 35); ``35L`` / ``35R`` lays 35 at the left /
right end; ``33+66`` the two-doubles move.

Results as in ``dominoes_v0``: the deal's ``instant_win`` is True when going out on ``00`` ended the match,
which then ends with ``ended_by="instant_win"`` (the other pair lose and are the goats); the match's titles
are ``sea_goats`` (D3.5), ``naked_goats`` (the winners wrote nothing in the whole match: a pair that wrote and
was wiped by D3.2 did write) and ``bald_goats`` (RULES D1.9, inherited by D3).

Version history: v0 -- first release; v0 (0.2.0) -- one result schema in every game, every deal reported
once in ``infos[agent]["deals"]``, options checked when given, the match record.
"""
from __future__ import annotations

from .core.aec import KozelEnv
from .dominoes.game import DominoesGame
from .dominoes.rules import SEA_GOAT, make_rules


class raw_env(KozelEnv):
    metadata = {**KozelEnv.metadata, "name": "sea_goat_v0"}
    base_rules = SEA_GOAT

    @classmethod
    def make_game(cls, rules_options: dict) -> DominoesGame:
        return DominoesGame(make_rules(cls.base_rules, rules_options))


def env(**kwargs) -> raw_env:
    """The environment (no wrapper stack: it validates its own input)."""
    return raw_env(**kwargs)
