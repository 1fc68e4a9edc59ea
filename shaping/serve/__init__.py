"""``planshape serve``: the reward server for trainers that score over HTTP (OpenRLHF, slime/miles, NeMo Gym),
and as a Ray Serve deployment. One module per concern: ``wire`` (the formats), ``routes`` (the service, free of
any web framework), ``scoring`` (requests batched into ``Shaper.score_batch``), ``auth``, ``limits``, ``metrics``,
``app`` (the HTTP front, over httptools), ``ray_deployment`` and ``cli``. Needs the ``serve`` extra; nothing here
loads at import."""
