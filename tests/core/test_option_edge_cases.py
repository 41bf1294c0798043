"""Option values the replay fuzz found raising TypeError instead of InvalidOptionError (issue 33)."""
import pytest

from kozel_env import dominoes_v0, six_of_spades_v0
from kozel_env.core.errors import InvalidOptionError


def test_subset_option_with_an_unhashable_member_is_refused_by_name():
    with pytest.raises(InvalidOptionError, match=r"titles=\[\[1\]\]"):
        dominoes_v0.env(titles=[[1]])


def test_subset_reset_option_with_an_unhashable_member_is_refused_by_name():
    env = six_of_spades_v0.env()
    env.reset(seed=3)
    before = env.unwrapped.record()
    with pytest.raises(InvalidOptionError, match="out"):
        env.reset(seed=3, options={"out": [[]]})
    assert env.unwrapped.record() == before


def test_an_option_named_self_is_an_unknown_option_not_a_type_error():
    with pytest.raises(InvalidOptionError, match="unknown option.*'self'"):
        dominoes_v0.env(**{"self": 1})
