"""Turn spans from an assistant mask and the per-token broadcast."""

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from planshape.shaping.turns import _broadcast_cumsum, _broadcast_segments, broadcast, turn_spans


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
                _broadcast_segments(values, mask, spans, torch.float32)):
        assert torch.equal(out, torch.from_numpy(expected))


def test_bool_and_int_masks_and_dtype():
    mask = torch.tensor([[True, False, True, True]])
    out = broadcast(np.array([0.5, -2.0]), mask, dtype=torch.float64)
    assert out.dtype == torch.float64 and out.tolist() == [[0.5, 0.0, -2.0, -2.0]]
    assert turn_spans(mask.int()).lengths.tolist() == [1, 2]
