"""The Planner-R1 reward, in one room: model text to a finished ``SampleScore``.

    r = schema · (λ1·cs_micro + λ2·hard_micro + λ3·cs_macro + λ4·hard_macro + λ5·pass)

``Scorer`` (``scorer.py``), built from a ``ShapingConfig`` (``Scorer.from_config``) or from a store, owns every part
of it: the reading of model text (the plugins' answer extractor, then the schema gate), the plugins' checks in the
config's mode (with the reward-hacking monitor's official verdict beside them), the weighing of the components by
the schedule's stage (``weighing.py``), the success rule (``success.py``) and the metric names; ``score`` returns
each sample's score once, finished, and ``unscored`` the one zero score of a sample that could not be scored. Samples
checked at one step and weighed at another travel as ``carried`` columns (``carried.py``): the verdicts do not depend
on the step, only the stage's weights do. A trainer's query label is read here too (``labels.py``), once.

Per plan: ``cs_micro`` = passed / applicable commonsense checks; ``hard_micro`` = passed / applicable hard checks,
where hard checks that were not run (Complete Information or Within Sandbox failed) count as failed, as in the
official metrics; the macros are 1 when their micro is 1; ``pass`` = both macros. Model output never raises out of
``Scorer.score``: it gets 0 and a ``failure`` category with a reason.
"""

from ..components import COMPONENTS, failure_counts
from .carried import Carried, Carry
from .labels import QueryLike, as_query, parse_query, read_query
from .scorer import Reading, Scorer
from .success import SuccessRule
from .weighing import Weighing, weighted_sum

__all__ = ["COMPONENTS", "Carried", "Carry", "QueryLike", "Reading", "Scorer", "SuccessRule", "Weighing",
           "as_query", "failure_counts", "parse_query", "read_query", "weighted_sum"]
