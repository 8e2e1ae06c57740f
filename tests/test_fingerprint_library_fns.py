"""A library function a kernel holds (a closure cell or a global bound to `asc.adv.gelu`) is keyed by
its name, its closure cells and its defaults, like a library module by its name: the fingerprint does
not walk the package's own state behind it (its source-position cache grows with every traced call
site, which made such a kernel's key change, and cost more, after every other trace)."""
from __future__ import annotations

import asc_trace as asc
from asc_trace.fingerprint import fingerprint
from asc_trace.proxies import source_loc


def _held(fn):
    """A kernel-like function whose closure holds `fn`."""
    def body():
        return fn()
    return body


def test_a_held_library_function_keeps_its_key_while_the_package_caches_grow():
    body = _held(asc.adv.gelu)
    before = fingerprint(body)
    source_loc._cache[(body.__code__, 10_000)] = source_loc.UNKNOWN_LOC    # a new traced call site
    try:
        assert fingerprint(body) == before
    finally:
        del source_loc._cache[(body.__code__, 10_000)]
    assert fingerprint(_held(asc.adv.silu)) != before       # another function is another key


def _factory(scale: float):
    def op():
        return scale
    op.__module__ = "asc_trace.made_up"     # as if the package's own factory had made it
    return op


def test_two_library_functions_of_one_factory_differ_by_their_closures():
    assert fingerprint(_held(_factory(2.0))) == fingerprint(_held(_factory(2.0)))
    assert fingerprint(_held(_factory(2.0))) != fingerprint(_held(_factory(3.0)))

