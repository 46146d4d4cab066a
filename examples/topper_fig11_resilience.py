"""TOPPER Fig. 11: checkpoint/restart versus double replication (r = 2, gamma = 30 %).

TOPPER paper, section 5.  One command::

    python examples/topper_fig11_resilience.py                    # the synthetic Mira-like month, months 0-1
    python examples/topper_fig11_resilience.py --trace ../shared/data/swf/LLNL-Atlas-2006-2.1-cln.swf \\
        --months 0-3 --out DIR [--on-failure requeue] [--system-mttf-hours H]

writes DIR/topper_fig11.csv, DIR/topper_fig11.png (normalised as in the paper) and
DIR/topper_fig11_checks.txt, the paper's findings as PASS/DIFFERS checks, also
printed.  Runs are kept in --results (default out/topper_runs), shared with
the other TOPPER studies; see ``nets/topper_studies.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies.topper_studies import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("topper_fig11"))
