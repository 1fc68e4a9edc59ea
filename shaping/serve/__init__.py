"""``planshape serve``: the reward server for trainers that score over HTTP (OpenRLHF, slime/miles, NeMo Gym),
and as a Ray Serve deployment. One module per concern: ``wire`` (the formats), ``routes`` (the service, free of
any web framework), ``worker`` (a scoring process's per-sample work), ``pool`` (the scoring processes of one
front), ``fronts`` (several front processes on one port), ``app`` (the HTTP front, over httptools), ``codec``,
``auth``, ``limits``, ``metrics``, ``verdicts``, ``startup``, ``client``, ``ray_deployment`` and ``cli``. Needs
the ``serve`` extra; nothing here loads at import."""
