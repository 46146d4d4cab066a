"""Fig. 14: power-aware allocation (WAIT) under caps from 80 % to 40 % of the uncapped peak
(with DVFS at the same caps, to compare).

PuPPET paper, section 5.  One command::

    python examples/fig14_cap_allocation.py                       # Atlas from ../shared/data, else synthetic
    python examples/fig14_cap_allocation.py --trace FILE.swf --months 0-3 --out DIR

writes DIR/fig14.csv and DIR/fig14.png (normalised to the uncapped run with
the same policy) and prints the paper's findings as PASS/DIFFERS checks.
Runs are kept in --results (default out/runs), shared with the other
studies; see ``nets/studies.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies.puppet_studies import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("fig14"))
