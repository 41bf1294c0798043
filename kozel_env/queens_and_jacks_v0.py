"""``queens_and_jacks_v0``: card Kozel with queens and jacks always trump, four players in two pairs
(seed 003, RULES C2).

Spec:

| | |
|---|---|
| agents | ``player_0`` .. ``player_3``, clockwise; pairs (0, 2) and (1, 3) |
| actions | ``Discrete(40)``: ``0..35`` play that card (id ``suit * 9 + rank``, notation ``QC``, ``TS``), ``36..39`` name the trump suit C D H S (``trump:C`` .. ``trump:S``, named rule only) |
| observation | ``{"observation": float32 (see the README table), "action_mask": int8 (40,)}`` |
| episode | the match to 12 (or 6) points (``episode="deal"``: one hand) |
| rewards | ``reward="outcome"``: +1 winners / -1 goats at the end; ``reward="points"``: zero-sum points per hand |

Rules options (defaults from RULES C2): ``trumps="clubs"`` (C2.3; ``"named"``: the player left of the
dealer names the suit after seeing the hand, before the first lead), ``deck=36`` (C2.1; ``32``: no sixes,
eight cards each), ``target=12`` (C2.6; ``6`` for the short match).

``reset(options=...)``: ``hands`` (4 card strings or None, e.g. ``"QC JD AC 7H ..."``), ``dealer`` or
``leader`` (seat; the leader sits left of the dealer), ``trump`` (``"C"``.. ``"S"``: the first hand's trump,
named rule), ``scores`` (per pair, below the target), ``eggs`` (eggs in a row before the first hand: it
counts ``2 ** eggs``).

Results (the keys every game shares: README "Infos, results and the match record"): a hand adds ``how``
(``won`` 2, ``losers_30_or_fewer`` 4, ``losers_no_trick`` 6, ``eggs``), ``eyes`` and ``tricks`` per pair,
``raw`` (the points before the multiplier), ``multiplier``, ``next_multiplier``, ``trump``, ``dealer``; the
match's titles are ``goats`` and ``bare_goats`` (the goats finish with 0, C2.6).

Version history: v0 -- first release; v0 (0.2.0) -- one result schema in every game, every deal reported
once in ``infos[agent]["deals"]``, options checked when given, the match record.
"""
from __future__ import annotations

from .cards.queens_and_jacks import CLASSIC, QueensAndJacksGame, make_rules
from .core.aec import KozelEnv


class raw_env(KozelEnv):
    metadata = {**KozelEnv.metadata, "name": "queens_and_jacks_v0"}
    base_rules = CLASSIC

    @classmethod
    def make_game(cls, rules_options: dict) -> QueensAndJacksGame:
        return QueensAndJacksGame(make_rules(cls.base_rules, rules_options))


def env(**kwargs) -> raw_env:
    """The environment (no wrapper stack: it validates its own input)."""
    return raw_env(**kwargs)
