"""A scoring worker's pipe in ``multiprocessing.Connection``'s frames (``planshape.shaping.frames``): what
``send_frame`` writes a ``Connection`` reads and the other way round, and a reader fed in any pieces gives back
each whole frame once, in order, keeping the partial one."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import random
import struct

from planshape.shaping.frames import READ_BYTES, FrameReader, send_frame


def test_frames_cross_with_multiprocessing_connections_both_ways():
    ours, theirs = multiprocessing.Pipe()
    try:
        for payload in ({"small": 1}, ("reply", ("",), b"x" * 100_000)):  # one under 16 KiB, one over
            send_frame(ours.fileno(), pickle.dumps(payload))
            assert theirs.recv() == payload
            theirs.send(payload)
            reader = FrameReader()
            while not (messages := reader.messages()):
                reader.feed(os.read(ours.fileno(), reader.want()))
            assert messages == [payload]
    finally:
        ours.close()
        theirs.close()


def test_a_reader_fed_in_any_pieces_gives_each_frame_once_in_order():
    rng = random.Random(7)
    payloads = [("job", i, b"y" * rng.choice((0, 10, 70_000))) for i in range(40)]
    stream = b"".join(struct.pack("!i", len(p)) + p for p in map(pickle.dumps, payloads))
    stream += struct.pack("!i", -1) + struct.pack("!Q", len(last := pickle.dumps("long"))) + last  # the >2 GiB form
    reader, got, at = FrameReader(), [], 0
    while at < len(stream):
        step = rng.choice((1, 3, 4, 5, 11, 4096, 70_000))
        reader.feed(stream[at:at + step])
        at += step
        got += reader.messages()
    assert got == [*payloads, "long"] and not reader.buffer


def test_the_reader_asks_for_the_rest_of_a_long_frame_at_once():
    reader = FrameReader()
    assert reader.want() == READ_BYTES
    reader.feed(struct.pack("!i", 1_000_000) + b"z" * 10)
    assert reader.want() == 1_000_000 - 10 and reader.messages() == []
