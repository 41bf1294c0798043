"""The batched queens-and-jacks engine (:mod:`kozel_env.vector.queens_and_jacks`) plays exactly the scalar
engine (seed 003, RULES C2): a batch of games stepped beside scalar states with the same seeds and random
legal actions gives, after every step and for every game, the same observation, legal mask, oracle view and
seat to move, the same deal results (C2.5) and match results (C2.6); finished matches restart on both sides
with new seeds. A few live games are restarted too, so that the games of a batch drift apart (some name the
trump suit or finish a trick or a hand while the others play on)."""
import numpy as np
import pytest

from kozel_env.cards.queens_and_jacks import QueensAndJacksGame
from kozel_env.vector.queens_and_jacks import BatchedQueensAndJacks
from kozel_env.vector.rng import seeds_from

VARIANTS = [("clubs", 36, 12), ("named", 36, 12), ("clubs", 32, 6), ("named", 32, 12)]
B = 32


def _sides_mask(sides) -> list:
    return [s in sides for s in range(2)]


def _compare_views(game, eng, states, live):
    obs = eng.observe()
    mask = eng.legal_mask()
    orc = eng.oracle()
    assert obs.dtype == np.float32 and obs.shape == (B, game.obs_spec.size)
    assert mask.dtype == np.int8 and mask.shape == (B, game.num_actions)
    assert orc.dtype == np.float32 and orc.shape == (B, game.oracle_spec.size)
    live = list(live)
    want_obs = np.stack([game.observe(states[b], states[b].current_player) for b in live])
    want_mask = np.zeros((len(live), game.num_actions), np.int8)
    for k, b in enumerate(live):
        want_mask[k, states[b].legal_actions()] = 1
    want_orc = np.stack([game.oracle(states[b]) for b in live])
    want_cp = [states[b].current_player for b in live]
    for what, got, want in (("seat to move", eng.current_player[live], want_cp), ("observation", obs[live], want_obs),
                            ("legal mask", mask[live], want_mask), ("oracle", orc[live], want_orc)):
        if not np.array_equal(got, want):
            bad = [b for k, b in enumerate(live) if not np.array_equal(got[k], want[k])]
            pytest.fail(f"{what} differs in games {bad}")


def _run(trumps, deck, target, single_deal, steps, seed):
    game = QueensAndJacksGame(trumps=trumps, deck=deck, target=target)
    eng = BatchedQueensAndJacks(game, B, single_deal=single_deal)
    setup = {"single_deal": True} if single_deal else None
    seeds = seeds_from(seed, B)
    fresh = iter(seeds_from(seed + 1, 100_000))
    states = [game.new_state(int(s), setup) for s in seeds]
    eng.start(np.arange(B), seeds)
    gen = np.random.default_rng(seed)
    everyone = range(B)
    _compare_views(game, eng, states, everyone)
    deals = matches = eggs = 0
    for _ in range(steps):
        mask = eng.legal_mask()
        actions = np.argmax(mask * gen.random(mask.shape), axis=1)
        before = [len(st.results) for st in states]
        eng.apply(actions)
        for b, st in enumerate(states):
            st.apply_action(int(actions[b]))
        for b, st in enumerate(states):
            ended = len(st.results) > before[b]
            assert eng.deal_ended[b] == ended, f"game {b}: deal end"
            if ended:
                deals += 1
                res = st.results[-1]
                assert eng.deal_written[b].tolist() == res["written"]
                assert eng.deal_scores[b].tolist() == res["scores"]
                assert eng.seat_points[b].tolist() == res["seat_points"]
                assert eng.deal_winners[b].tolist() == _sides_mask(res["winners"])
                assert bool(eng.deal_eggs[b]) == res["eggs"]
                eggs += res["eggs"]
            assert eng.match_over[b] == st.terminal, f"game {b}: match end"
            if st.terminal:
                matches += 1
                mr = st.match_result
                assert eng.returns[b].tolist() == mr["returns"]
                assert eng.match_winners[b].tolist() == _sides_mask(mr["winners"])
                assert eng.current_player[b] == st.current_player == -1
        done = np.flatnonzero(eng.match_over)
        _compare_views(game, eng, states, [b for b in everyone if not states[b].terminal])
        if gen.random() < 0.15:  # restart a live game: the batch drifts out of step
            live = np.flatnonzero(~eng.match_over)
            done = np.union1d(done, gen.choice(live, 1))
        if done.size:
            new = np.array([next(fresh) for _ in done], np.uint64)
            eng.start(done, new)
            for b, s in zip(done, new):
                states[b] = game.new_state(int(s), setup)
            _compare_views(game, eng, states, everyone)
    return deals, matches, eggs


@pytest.mark.parametrize("single_deal", [False, True])
@pytest.mark.parametrize(("trumps", "deck", "target"), VARIANTS)
def test_batched_queens_and_jacks_plays_the_scalar_engine(trumps, deck, target, single_deal):
    hand = deck // 4 * 4 + (trumps == "named")  # decisions in one hand
    steps = 3 * hand if single_deal else (6 if target == 12 else 3) * hand
    deals, matches, eggs = _run(trumps, deck, target, single_deal, steps, seed=deck * 100 + target + single_deal)
    assert deals >= 2 * B and matches >= (2 * B if single_deal else 3), (deals, matches)
    assert eggs >= 1, "no 60:60 hand (C2.5 eggs) in this run: pick another seed"


def test_state_fits_in_a_kilobyte():
    for trumps, deck, target in VARIANTS:
        eng = BatchedQueensAndJacks(QueensAndJacksGame(trumps=trumps, deck=deck, target=target), 8)
        assert eng.state_nbytes() <= 1024
