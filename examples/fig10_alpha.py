"""Fig. 10: power capping by DVFS under alpha = 1, 2, 3 (P ~ f^alpha, eq. 2).

PuPPET paper, section 5.  One command::

    python examples/fig10_alpha.py                       # Atlas from ../shared/data, else synthetic
    python examples/fig10_alpha.py --trace FILE.swf --months 0-3 --out DIR

writes DIR/fig10.csv and DIR/fig10.png (normalised to the uncapped run with
the same policy) and prints the paper's findings as PASS/DIFFERS checks.
Runs are kept in --results (default out/runs), shared with the other
studies; see ``nets/studies.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies.puppet_studies import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("fig10"))
