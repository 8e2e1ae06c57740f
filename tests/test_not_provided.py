"""pyasc names asc_trace deliberately does not provide: a NotProvidedError (also an AttributeError) at the
user's line that names the alternative, in a kernel and outside one."""
from __future__ import annotations

import pytest

import asc_trace as asc
from asc_trace.errors import NotProvidedError
from asc_trace.proxies.not_provided import ADV_NOT_PROVIDED, NOT_PROVIDED


@pytest.mark.parametrize("name", sorted(NOT_PROVIDED))
def test_each_name_names_its_alternative(name):
    with pytest.raises(NotProvidedError) as e:
        getattr(asc, name)
    _why, instead = NOT_PROVIDED[name]
    assert f"asc.{name}" in str(e.value) and instead in str(e.value)
    assert not hasattr(asc, name)          # still an AttributeError for hasattr / from-imports


def test_inside_a_kernel_the_error_is_at_the_users_line():
    @asc.jit
    def k():
        asc.get_system_cycle()

    with pytest.raises(NotProvidedError) as e:
        k[1]()
    message, _, where = str(e.value).partition("-->")
    assert "cycle counter" in message
    assert "test_not_provided.py" in where and "get_system_cycle()" in where


def test_an_unknown_name_is_a_plain_attribute_error():
    with pytest.raises(AttributeError) as e:
        asc.no_such_name_here
    assert not isinstance(e.value, NotProvidedError)


def test_no_listed_name_is_provided():
    """A name that becomes provided must leave the table (its entry would be dead text)."""
    assert [n for n in NOT_PROVIDED if n in vars(asc)] == []


@pytest.mark.parametrize("name", sorted(ADV_NOT_PROVIDED))
def test_adv_absent_names_name_the_alternative(name):
    with pytest.raises(NotProvidedError, match=rf"asc.adv.{name} is not provided") as e:
        getattr(asc.adv, name)
    assert "hint:" in str(e.value)
    assert not hasattr(asc.adv, name)
    with pytest.raises(AttributeError) as e2:
        asc.adv.no_such_function
    assert not isinstance(e2.value, NotProvidedError)
