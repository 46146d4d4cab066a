"""TOPPER Fig. 15: power-aware scheduling (WAIT) versus DVFS failing 1, 2 and 3 times as often, at 70 % of the peak.

TOPPER paper, section 5.  One command::

    python examples/topper_fig15_dvfs_failures.py                    # the synthetic Mira-like month, months 0-1
    python examples/topper_fig15_dvfs_failures.py --trace ../shared/data/swf/LLNL-Atlas-2006-2.1-cln.swf \\
        --months 0-3 --out DIR [--on-failure requeue] [--system-mttf-hours H]

writes DIR/topper_fig15.csv, DIR/topper_fig15.png (normalised as in the paper) and
DIR/topper_fig15_checks.txt, the paper's findings as PASS/DIFFERS checks, also
printed.  Runs are kept in --results (default out/topper_runs), shared with
the other TOPPER studies; see ``nets/topper_studies.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies.topper_studies import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("topper_fig15"))
