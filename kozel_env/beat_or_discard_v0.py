"""``beat_or_discard_v0``: card Kozel "beat or discard" -- lead, beat every top card or discard, claims of
the lead, trump from the stock's bottom card; pairs or every player for themselves, six or four cards
(seed 002, RULES C1).

Spec:

| | |
|---|---|
| agents | ``player_0`` .. ``player_{n-1}``, clockwise; pairs (0, 2) and (1, 3) in ``mode="pairs"`` |
| actions | ``Discrete(40)``: ``0..35`` pick that card (id ``suit * 9 + rank``, notation ``QC``, ``TS``) for the move being built, ``36`` ``lead``/``beat`` (play the picked cards face up), ``37`` ``discard`` (lay them face down), ``38`` ``pass``/``done``, ``39`` ``claim`` (announces N, your longest suit) |
| observation | ``{"observation": float32 (see the README table), "action_mask": int8 (40,)}`` |
| episode | the match: to 12 penalty points (pairs: the goat; solo: the last player left wins) (``episode="deal"``: one game) |
| rewards | ``reward="outcome"``: +1 winners / -1 goats at the end; ``reward="points"``: zero-sum penalty points per game |

A lead, a beat, a discard and the equalising after a trick are sets of cards: pick the cards one at a
time (in increasing card id; the mask offers only cards that can still complete a legal move) and confirm
with ``lead``/``beat`` or ``discard``. Every legal set is reachable and nothing else; forced steps (a
single legal action) are played automatically, except a claim question (C1.13): every seat that could
claim by the public counts (enough cards, not the leader, not yet acted) is asked -- before the lead and
with its answer -- whatever it holds, so being asked says nothing; without four of a suit it can only pass.
A turn skipped because the seat cannot beat and owes nothing (C1.5) is public by that rule. The rules and
the action design are documented in :mod:`kozel_env.cards.beat_or_discard`; its worked example of one round
is repeated at the end here.

Rules options (defaults from RULES C1): ``mode="pairs"`` (``"solo"``: every player for themselves, C1.16),
``num_players=4`` (solo: 2-4), ``hand_size=6`` (``4``: the quick game, C1.15), ``target=12``,
``penalties=(0, 2, 4, 6)`` (C1.1: 61+, 31-60, 30 or less, no trick), ``claims=True`` (C1.13),
``claim_min=4``, ``four_of_a_kind=True`` (C1.14).

``reset(options=...)``: ``hands`` (one card string or None per seat, e.g. ``"7C 9C KC 6D 8H JS"``),
``stock`` (draw order, the last card is the bottom card), ``piles`` (per side, cards already taken),
``first_game`` (default True), ``leader`` (seat), ``trump`` (``"C"``..``"S"``, a later game's trump),
``scores`` (penalty points per side), ``eggs`` (eggs in a row: this game counts ``2 ** eggs``).

Results (the keys every game shares: README "Infos, results and the match record"): a game adds ``points``
and ``tricks`` per side, ``penalties`` (per side, before the multiplier), ``multiplier``,
``next_multiplier``, ``trump``, ``last_taker``; a game ended by four aces or sixes (C1.14) has ``ended_by``
``"four_aces"`` / ``"four_sixes"``, ``holder`` and ``hand``. The match's title is ``goats``: the side at the
target (pairs, C1.17), everyone but the holder's side after four of a kind (C1.14), the first player(s) out
(solo, C1.16).

Version history: v0 -- first release; v0 (0.2.0) -- one result schema in every game, every deal reported
once in ``infos[agent]["deals"]``, options checked when given, the match record.
"""
from __future__ import annotations

from .cards.beat_or_discard import CLASSIC, WORKED_EXAMPLE, BeatOrDiscardGame, make_rules
from .core.aec import KozelEnv

__doc__ += "\n" + WORKED_EXAMPLE


class raw_env(KozelEnv):
    metadata = {**KozelEnv.metadata, "name": "beat_or_discard_v0"}
    base_rules = CLASSIC

    @classmethod
    def make_game(cls, rules_options: dict) -> BeatOrDiscardGame:
        return BeatOrDiscardGame(make_rules(cls.base_rules, rules_options))


def env(**kwargs) -> raw_env:
    """The environment (no wrapper stack: it validates its own input)."""
    return raw_env(**kwargs)
