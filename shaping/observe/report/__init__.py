"""``planshape report``: a verdict log turned into failure-mode curves, figures and one HTML page.

``data`` reads and summarises the log, ``figures`` draws (matplotlib, the ``report`` extra), ``page`` writes
the self-contained HTML, ``cli`` wires the commands.
"""
