"""Turn spans from an assistant mask and the per-token broadcast."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.shaping.advantages import turns as turns_module
from planshape.shaping.advantages.turns import _broadcast_cpu, _broadcast_cumsum, _spans_torch, broadcast, turn_spans


def test_spans_of_a_verl_style_mask():
    # notes/verl.md §2.4: [1,1,1,0,0,1,1,0,...] -> spans (0,3), (5,7)
    mask = torch.tensor([[1, 1, 1, 0, 0, 1, 1, 0, 0, 0], [0] * 10, [1] * 10])
    spans = turn_spans(mask)
    assert spans.turns.tolist() == [2, 0, 1]
    assert list(zip(spans.starts.tolist(), spans.ends.tolist(), strict=True)) == [(0, 3), (5, 7), (0, 10)]
    assert spans.lengths.tolist() == [3, 2, 10]


masks = st.integers(1, 5).flatmap(lambda b: st.integers(1, 40).flatmap(
    lambda w: st.lists(st.lists(st.integers(0, 1), min_size=w, max_size=w), min_size=b, max_size=b)))


@settings(max_examples=300, deadline=None)
@given(masks)
def test_each_turn_value_lands_on_exactly_its_tokens(rows):
    mask = torch.tensor(rows, dtype=torch.float32)
    spans = turn_spans(mask)
    values = np.arange(1, len(spans.starts) + 1, dtype=np.float32) * 1.5
    # reference: walk every row by hand
    expected = np.zeros(mask.shape, dtype=np.float32)
    k = 0
    for i, row in enumerate(rows):
        j = 0
        while j < len(row):
            if row[j] == 1:
                start = j
                while j < len(row) and row[j] == 1:
                    j += 1
                expected[i, start:j] = values[k]
                k += 1
            else:
                j += 1
    assert k == len(values)
    assert spans.turns.sum().item() == k
    for out in (broadcast(values, mask, spans), _broadcast_cumsum(values, mask, spans, torch.float32),
                _broadcast_cpu(values, mask, spans, torch.float32)):
        assert torch.equal(out, torch.from_numpy(expected))


def test_bool_and_int_masks_and_dtype():
    mask = torch.tensor([[True, False, True, True]])
    out = broadcast(np.array([0.5, -2.0]), mask, dtype=torch.float64)
    assert out.dtype == torch.float64 and out.tolist() == [[0.5, 0.0, -2.0, -2.0]]
    assert turn_spans(mask.int()).lengths.tolist() == [1, 2]


def _reference_spans(rows):
    """Runs of nonzero (NaN counts as nonzero, as ``bool``) per row, walked by hand."""
    out = []
    for i, row in enumerate(rows):
        j = 0
        while j < len(row):
            if row[j] != 0:
                start = j
                while j < len(row) and row[j] != 0:
                    j += 1
                out.append((i, start, j))
            else:
                j += 1
    return out


valued_masks = st.integers(1, 4).flatmap(lambda b: st.integers(1, 40).flatmap(
    lambda w: st.lists(st.lists(st.sampled_from([0.0, 1.0, 1.0, 2.0, -0.0, float("nan"), 0.5]), min_size=w,
                                max_size=w), min_size=b, max_size=b)))


@settings(max_examples=300, deadline=None)
@given(valued_masks, st.sampled_from([torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                      torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool,
                                      torch.complex64]))
def test_spans_of_any_mask_values_and_dtype_are_the_runs_of_nonzero(rows, dtype):
    mask = torch.tensor(rows, dtype=torch.float64).to(dtype)
    flags = mask.bool().tolist()
    spans = turn_spans(mask)
    got = list(zip(spans.rows.tolist(), spans.starts.tolist(), spans.ends.tolist(), strict=True))
    assert got == _reference_spans(flags)
    on_device = _spans_torch(mask)  # the accelerator path, run here on CPU tensors
    for field in ("turns", "rows", "starts", "ends"):
        assert torch.equal(getattr(on_device, field), getattr(spans, field)), field
    assert spans.turns.tolist() == [sum(1 for r, _, _ in got if r == i) for i in range(len(rows))]
    values = np.arange(1, len(got) + 1, dtype=np.float32)
    expected = torch.zeros(mask.shape)
    for v, (r, s, e) in zip(values, got, strict=True):
        expected[r, s:e] = float(v)
    assert torch.equal(broadcast(values, mask, spans), expected)
    assert torch.equal(_broadcast_cumsum(values, mask, spans, torch.float32), expected)


@pytest.mark.parametrize("width", [1, 7, 8, 9, 63])
def test_alternating_and_full_rows(width):
    alternating = (torch.arange(width) % 2 == 0).float().repeat(3, 1)
    spans = turn_spans(alternating)
    assert spans.turns.tolist() == [(width + 1) // 2] * 3
    assert spans.lengths.tolist() == [1] * (3 * ((width + 1) // 2))
    full = torch.ones(2, width)
    assert turn_spans(full).lengths.tolist() == [width, width]


runs = st.lists(st.tuples(st.integers(0, 60), st.integers(1, 60)), max_size=8)  # (gap, turn) lengths


@settings(max_examples=300, deadline=None)
@given(st.lists(runs, min_size=1, max_size=4), st.integers(0, 40), st.sampled_from([torch.float32, torch.bool]))
def test_sparse_masks_with_long_and_short_runs(rows_runs, padding, dtype):
    """Long rows with few runs: blocks of 64 tokens with no boundary, one, or several."""
    rows = []
    for row_runs in rows_runs:
        row = []
        for gap, turn in row_runs:
            row += [0] * gap + [1] * turn
        rows.append(row + [0] * padding)
    width = max(1, max(len(r) for r in rows))
    rows = [r + [0] * (width - len(r)) for r in rows]
    mask = torch.tensor(rows, dtype=dtype)
    spans = turn_spans(mask)
    got = list(zip(spans.rows.tolist(), spans.starts.tolist(), spans.ends.tolist(), strict=True))
    assert got == _reference_spans(rows)
    assert torch.equal(_spans_torch(mask).starts, spans.starts)


def test_a_mask_holding_other_values_than_one_is_read_by_zero_or_not():
    """2 next to 1 is no boundary, -0.0 is zero and NaN is not, in every width; a float mask of 0s and 1s with
    turns ending at a row's last token, next to rows starting with one, keeps its rows apart."""
    assert turn_spans(torch.tensor([[1.0, 2.0, 0.0, 1.0]])).lengths.tolist() == [2, 1]
    assert turn_spans(torch.tensor([[-0.0, float("nan"), -0.0, -3.0]])).lengths.tolist() == [1, 1]
    mask = torch.tensor([[0, 1, 1, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 0, 0, 1]], dtype=torch.float32)
    spans = turn_spans(mask)
    assert list(zip(spans.rows.tolist(), spans.starts.tolist(), spans.ends.tolist(), strict=True)) == [
        (0, 1, 3), (0, 4, 6), (1, 0, 2), (1, 4, 6), (2, 0, 1), (2, 5, 6)]


def test_a_non_contiguous_mask_is_read_as_its_values():
    mask = torch.tensor([[1, 0, 1], [1, 1, 0], [0, 1, 1]], dtype=torch.float32).t()  # columns become rows
    assert not mask.is_contiguous()
    spans = turn_spans(mask)
    assert list(zip(spans.rows.tolist(), spans.starts.tolist(), spans.ends.tolist(), strict=True)) == [
        (0, 0, 2), (1, 1, 3), (2, 0, 1), (2, 2, 3)]
    assert broadcast(np.array([1.0, 2.0, 3.0, 4.0]), mask, spans).tolist() == [
        [1.0, 1.0, 0.0], [0.0, 2.0, 2.0], [3.0, 0.0, 4.0]]


@pytest.mark.parametrize("width", [1, 15, 16, 17, 64, 65, 1000])
def test_more_boundaries_than_the_first_buffer_holds_are_scanned_again(width):
    """The first buffer holds one boundary per 16 tokens; the alternating mask has one at every token."""
    mask = (torch.arange(width) % 2 == 0).repeat(5, 1)
    spans = turn_spans(mask)
    assert spans.turns.tolist() == [(width + 1) // 2] * 5
    assert torch.equal(spans.starts, _spans_torch(mask).starts)
    assert torch.equal(broadcast(torch.ones(len(spans.starts)), mask, spans), mask.float())


def test_without_numba_the_cpu_takes_the_torch_path(monkeypatch):
    mask = torch.tensor([[1, 1, 0, 1], [0, 1, 1, 1]])
    expected = [[1.0, 1.0, 0.0, 2.0], [0.0, 3.0, 3.0, 3.0]]
    assert broadcast(np.array([1.0, 2.0, 3.0]), mask).tolist() == expected
    monkeypatch.setattr(turns_module, "_kernels", None)
    spans = turn_spans(mask)
    assert spans.flat is None and spans.lengths.tolist() == [2, 1, 3]
    assert broadcast(np.array([1.0, 2.0, 3.0]), mask, spans).tolist() == expected


def test_a_large_sparse_mask_matches_the_accelerator_path():
    """Long rows with few boundaries, against the torch path (independent code)."""
    rng = np.random.default_rng(0)
    mask = torch.from_numpy(np.cumsum(rng.random((12, 100_000)) < 0.001, axis=1) % 2 == 1).float()
    mask[3] = 1.0  # a row that is one turn, between rows of many
    mask[7, -1] = 1.0  # a turn ending at the row's last token, before a row that starts with one
    mask[8, 0] = 1.0
    mask[10] = 0.0  # and a row with none
    spans, reference = turn_spans(mask), _spans_torch(mask)
    for field in ("turns", "rows", "starts", "ends"):
        assert torch.equal(getattr(spans, field), getattr(reference, field)), field
    values = np.arange(1, len(spans.starts) + 1, dtype=np.float32)
    assert torch.equal(broadcast(values, mask, spans), _broadcast_cumsum(values, mask, reference, torch.float32))


@pytest.mark.parametrize("seed", range(3))
def test_rows_of_every_density_in_any_order_match_the_accelerator_path(seed):
    """The CPU scan reads a row after a dense one (a boundary per 64 tokens or more) with its dense reader, else
    with its sparse one: rows from one turn to one every few tokens, in a random order, give the torch path's
    spans, and the broadcast its values (turns and gaps of 1 to 40 tokens: fill's whole-block writes spill into
    the next segment, which must overwrite them)."""
    rng = np.random.default_rng(seed)
    width, rows = 3_001, 24
    mask = np.zeros((rows, width), dtype=np.float32)
    for row, mean in enumerate(rng.permutation(np.geomspace(2, 3_000, rows))):
        runs = np.maximum(1, rng.exponential(mean, width).astype(np.int64))
        ends = np.cumsum(runs)
        starts = ends - runs
        on = (np.arange(len(runs)) + rng.integers(2)) % 2 == 1
        for start, end in zip(starts[on], ends[on], strict=False):
            if start >= width:
                break
            mask[row, start:min(end, width)] = 1.0
    mask = torch.from_numpy(mask)
    spans, reference = turn_spans(mask), _spans_torch(mask)
    for field in ("turns", "rows", "starts", "ends"):
        assert torch.equal(getattr(spans, field), getattr(reference, field)), field
    values = rng.normal(size=len(reference.starts)).astype(np.float32)
    assert torch.equal(broadcast(values, mask, spans), _broadcast_cumsum(values, mask, reference, torch.float32))


def test_fill_refuses_an_output_without_room_for_its_last_block():
    from planshape.shaping.advantages.turn_kernels import BLOCK, fill

    bounds = np.array([0, 2, 5, 10], dtype=np.int64)
    with pytest.raises(ValueError, match="room past its last bound"):
        fill(np.ones(1, dtype=np.float32), bounds, np.empty(10, dtype=np.float32))
    out = np.empty(10 + BLOCK - 1, dtype=np.float32)
    fill(np.ones(1, dtype=np.float32), bounds, out)
    assert out[:10].tolist() == [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]
