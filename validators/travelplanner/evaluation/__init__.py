"""Evaluation of whole submissions: the official metrics with upstream's fixed denominators (``metrics``),
reading a submission file (``submission``), the report with its progress bar and tables (``report``), and
``planshape explain``'s view of one plan (``explain``)."""
