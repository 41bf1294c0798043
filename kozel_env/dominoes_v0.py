"""``dominoes_v0``: Kozel dominoes, four players in two pairs, to 101 (seed 000 §1-8, RULES D1).

Spec:

| | |
|---|---|
| agents | ``player_0`` .. ``player_3``, clockwise; pairs (0, 2) and (1, 3) |
| actions | ``Discrete(77)``: ``tile * 2 + end`` (end 0 = left, 1 = right; the lead uses end 0), ``56 + k`` the two-doubles move of pair k |
| observation | ``{"observation": float32 (see the README table), "action_mask": int8 (77,)}`` |
| episode | the match to 101 (``episode="deal"``: one deal) |
| rewards | ``reward="outcome"``: +1 winners / -1 goats at the end; ``reward="points"``: zero-sum points per deal |

Rules options (defaults from RULES D1): ``lone_double_values=(25, 50)`` (D1.1; None = plain pips),
``two_doubles=True`` (D1.2), ``redeal=True`` (D1.6), ``threshold=13`` (D1.7), ``target=101`` (D1.9).

``reset(options=...)``: ``hands`` (4 tile strings, e.g. ``"00 11 35 ..."``), ``first_deal`` (default True: the
holder of 11 leads it), ``leader`` (seat, with ``first_deal=False``), ``scores`` / ``opened`` (per pair),
``eggs`` (carried points).

Move notation (``env.unwrapped.legal_moves()``, ``move_to_action``, ``action_to_move``): ``35`` leads 35 (or
is the only placement of 35); ``35L`` / ``35R`` lays 35 at the left / right end; ``33+66`` the two-doubles
move. Knocks are automatic and public (the ``knocked`` part of every observation).

Rewards arrive on the step that ends the match (``outcome``) or each deal (``points``). Results (the keys
every game shares: README "Infos, results and the match record"): a deal result (``ended_by`` "out" or
"fish") adds ``last_mover`` (who went out or made the fish), ``final_move``, ``hands`` (left at the end),
``hand_totals`` (plain pips per pair), ``amounts`` (what each losing pair counts, D1.1), ``eggs_carried_in`` /
``eggs_carried_out``, ``instant_win`` (always False here); the match's ``titles`` are ``goats``, ``naked_goats``
(the winners wrote nothing in the whole match) and ``bald_goats`` (ended by going out with ``00`` in the final
move), RULES D1.9.

Version history: v0 -- first release; v0 (0.2.0) -- one result schema in every game, every deal reported
once in ``infos[agent]["deals"]``, options checked when given, the match record.
"""
from __future__ import annotations

from .core.aec import KozelEnv
from .dominoes.game import DominoesGame
from .dominoes.rules import PAIRS, make_rules


class raw_env(KozelEnv):
    metadata = {**KozelEnv.metadata, "name": "dominoes_v0"}
    base_rules = PAIRS

    @classmethod
    def make_game(cls, rules_options: dict) -> DominoesGame:
        return DominoesGame(make_rules(cls.base_rules, rules_options))


def env(**kwargs) -> raw_env:
    """The environment (no wrapper stack: it validates its own input)."""
    return raw_env(**kwargs)
