"""The elements of the shared tmp (work) buffer that the vendor's A2 ReduceSum / ReduceMax / ReduceMin mask form
touches (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h), read from its steps:

- ReduceSum: one vcadd result per repeat (ReduceSumFirstStep), then sums of those in place: `repeat` elements.
- ReduceMax / Min without the index: a (value, index) pair per repeat (ReduceImplFirstStep), then pairs of pairs
  in place: 2 * repeat; one repeat also writes its pair there.
- with the index: one repeat writes dst only; more: the pairs (2 * repeat), then each further level's pairs at
  the next 32-byte boundary (ReduceImplSecondStep / ThirdStep: secondStartPos, thirdStartPos, fourthStartPos),
  the last level's one pair ending the footprint.

The simulator bounds the work tensor by this and the CPU-debug stub layer's API hook (toolchain/stub/src/
api_hooks.cpp CheckFunReduceImpl) by its C++ twin, so that a work tensor too small for the vendor's steps is
refused alike (OutOfBoundsError)."""
from __future__ import annotations

PAIR = 2      # VREDUCE_PER_REP_OUTPUT: a max / min instruction writes (value, index)


def _up(n: int, per_block: int) -> int:
    return -(-n // per_block) * per_block


def _level(data: int, per: int) -> int:
    """Results (pairs, in elements) of one ReduceImplSecondStep over `data` elements of pairs."""
    return (data // per) * PAIR + (PAIR if data % per else 0)


def work_elements(kind: str, with_index: bool, repeat: int, itemsize: int) -> int:
    """Elements from the work tensor's start the vendor's steps touch (0: none)."""
    if repeat <= 0:
        return 0
    per, per_block = 256 // itemsize, 32 // itemsize
    if kind == "reduce_sum":
        return repeat
    if not with_index:
        return PAIR * repeat
    if repeat == 1:
        return 0
    data = PAIR * repeat
    second = _up(data, per_block)
    data = _level(data, per)
    if data == PAIR:
        return second + PAIR
    third = _up(second + data, per_block)
    if data > per:
        data = _level(data, per)
        return _up(third + data, per_block) + PAIR
    return third + PAIR


def count_form_work_elements(kind: str, with_index: bool, count: int, itemsize: int) -> int:
    """Elements of the work tensor the vendor's dav_c220 count form touches (kernel_operator_vec_reduce_intf_impl.h).

    ReduceSum is one counter-mode vcadd into dst (ReduceSumImpl(dst, src, count)): none. ReduceMax / Min run the
    mask form's steps over max(1, count // per) whole repeats, then, with a tail, a one-repeat step and two
    SetValue writes at work[0] and work[1] (ReduceTailCompute)."""
    if count <= 0 or kind == "reduce_sum":
        return 0
    per = 256 // itemsize
    body = work_elements(kind, with_index, max(1, count // per), itemsize)
    return max(body, PAIR) if count > per and count % per else body
