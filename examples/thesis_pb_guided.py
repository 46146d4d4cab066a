"""The DVFS thesis (Etinski): pb_guided on LLNL-Atlas, jobs 10K-15K, against the EASY baseline.

One command::

    python examples/thesis_pb_guided.py                     # Atlas from ../shared/data
    python examples/thesis_pb_guided.py --trace FILE.swf --cpus N --jobs 1-5000 --out DIR

writes DIR/thesis_pb_guided.csv and DIR/thesis_pb_guided.png (normalised to EASY without DVFS
or budget) and prints the thesis' findings as PASS/DIFFERS beside our
numbers.  Runs go through the sweep machinery (nets.sweep.run_sweep:
--workers, --scheduler for Dask, a restart skips finished runs) and are
kept in --results (default out/thesis_runs), shared with the other thesis
studies; see nets/dvfs_thesis_studies.py.  The study's main grid through
``cpn sweep``, stored under the same keys (OUT/results.csv, normalised to EASY)::

    cpn sweep --model thesis --policy easy,pb_guided --option budget_fraction=0.8,0.7,0.6 \
        --out out/thesis_runs
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies.thesis_studies import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("pb_guided"))
