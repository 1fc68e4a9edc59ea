"""What a run shows about its rewards: metric names, the reward-hacking monitor's metrics, the verdict log
(one line per scored sample), and the report built from it (``planshape report``)."""
