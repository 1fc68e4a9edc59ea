"""The plan format and its gate: the upstream string format and the structured (Planner-R1) JSON format with
its published schema (``formats``), the one-to-one conversion between them (``conversion``), the size limits
checked before any schema runs (``json_limits``), and the ``<answer>`` block of a model's output (``answer``)."""
