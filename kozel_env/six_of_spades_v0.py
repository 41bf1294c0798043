"""``six_of_spades_v0``: card Kozel with the six of spades, Moskva and Molodka; 2 or 3 players alone or
4 in two pairs (seed 004, RULES C3).

Spec:

| | |
|---|---|
| agents | ``player_0`` .. ``player_{n-1}`` (``num_players`` 2, 3 or 4), clockwise; with 4, pairs (0, 2) and (1, 3) |
| actions | ``Discrete(42)``: ``0..35`` choose that card (id ``suit * 9 + rank``: ``7H``, ``TS``, ``6S``); ``36`` ``lead``; ``37`` ``beat``; ``38`` ``down``; ``39`` ``moskva``; ``40`` ``molodka``; ``41`` ``pass`` |
| observation | ``{"observation": float32 0/1 (see the README table), "action_mask": int8 (42,)}`` |
| episode | the match: out at 12 penalty points, last side left wins, at most 25 deals (``episode="deal"``: one deal) |
| rewards | ``reward="outcome"``: +1 first place / -1 last place at the end; ``reward="points"``: zero-sum, from minus the penalty of each deal |

Action design. A lead or an answer is a *set* of cards (a lead: 1 to 4 cards of one suit, ``6S`` may
join, capped by the smallest hand still holding cards; an answer: as many cards as the lead). The seat
builds it one card at a time, in increasing card id, then confirms: ``lead``, ``beat`` (on top: only
when the set beats every top card one for one) or ``down`` (face down). At the start of the turn the
engine lists the legal sets; the mask offers a card only if some legal set has the cards chosen so far
as its smallest members and that card as its next one, and a confirmation only when the chosen cards
form a legal set for it. So every legal set is reachable, by exactly one path, and nothing else is.
Action ids name cards and moves, never seats. When only one action is legal the engine takes it (a
one-card lead, an answer that must be the whole hand, a complete answer that cannot beat goes down), so
the agent to move has a real choice -- except a call question. Chosen cards stay in the hand and are
visible only to their owner until the set is laid. Calls (C3.5): before a lead with four cards in every
hand, every holder is asked once, clockwise from the scheduled leader, whatever it holds: ``moskva`` /
``molodka`` (only a call that beats the one standing: Moskva beats Molodka, an earlier equal call stands)
or ``pass`` (a seat with no call can only pass); after a Moskva nobody else is asked, and when all have
been asked the standing call leads its four cards.

Hidden information: the observation shows face-up cards only. Face-down cards are known to their owner
alone (the taker never sees them; every player sees how many each side took unseen). The trump card is
public, and so is who drew it. Calls are public and shown until the lead is laid; being asked, or passing,
says nothing about a hand. What a spectator counting the steps of one seat's turn could learn: the engine
plays a seat's forced card choices for it, so the number of actions within one turn depends on that seat's
cards (no other seat observes or acts in between; the cards laid are shown face up or counted face down).

Results (the keys every game shares: README "Infos, results and the match record"): a deal adds ``points``
(card points per side), ``tricks``, ``trump``, ``trump_card``, ``last_taker``, ``lone_take``, ``out`` (sides
that went out), ``all_reached_target``; the deal's ``winners`` are the side with the most points when it is
alone. Seed 004 and RULES C3 name no goats: the match's ``goats`` and ``titles`` are empty, its ``losers``
the last place.

Rules options (defaults from RULES C3): ``num_players=4`` (C3.1), ``calls="offer"`` (C3.5; ``"auto"``:
the first holder in precedence always calls; ``"off"``), ``may_decline_beat=True`` (a player able to beat
may lay face down instead; ``False``: must beat), ``refill="fill_each"`` (C3.4: each player from the taker
fills up in turn; ``"round_robin"``: one card at a time), ``line=31`` / ``line_three=21`` (C3.6: the line
with two / three sides in the deal), ``penalties=(2, 4, 6)``, ``tie_penalty=2`` (C3.6), ``target=12``,
``max_deals=25`` (C3.7).

Choices where the rules are silent: players with no cards sit a round out and the lead passes clockwise
to the next player holding cards; a lone player still holding cards takes them as a last trick; calls
need every player still holding cards to hold four; with three sides of which one is out the line is 31;
when everyone left reaches 12 together the highest goes out (tied highest: the side of the last trick's
taker stays, the others go out) and the rest play on; places rank sides still in first, then the later
out; ties at the deal limit share first place (all returns 0 when everyone shares it).

``reset(options=...)``: ``hands`` (a card string per seat, e.g. ``"AS TS 6S KH"``, or None),
``trump_card`` (e.g. ``"9D"``), ``stock`` (draw order, without the trump card), ``taken`` (per side),
``dealer`` or ``leader``, ``scores`` (per side), ``out`` (sides already out, three players),
``deals_played``.

Version history: v0 -- first release; v0 (0.2.0) -- one result schema in every game, every deal reported
once in ``infos[agent]["deals"]``, options checked when given, the match record.
"""
from __future__ import annotations

from .cards.six_of_spades import CLASSIC, SixOfSpadesGame, make_rules
from .core.aec import KozelEnv


class raw_env(KozelEnv):
    metadata = {**KozelEnv.metadata, "name": "six_of_spades_v0"}
    base_rules = CLASSIC

    @classmethod
    def make_game(cls, rules_options: dict) -> SixOfSpadesGame:
        return SixOfSpadesGame(make_rules(cls.base_rules, rules_options))


def env(**kwargs) -> raw_env:
    """The environment (no wrapper stack: it validates its own input)."""
    return raw_env(**kwargs)
