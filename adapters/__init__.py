"""Thin per-trainer layers (VERL, TRL, OpenRLHF) over ``planshape.shaping``; each imports its own trainer."""
