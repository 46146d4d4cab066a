"""The DVFS thesis (Etinski): bsld_driven on LLNL-Atlas, jobs 10K-15K, against the EASY baseline.

One command::

    python examples/thesis_bsld_driven.py                     # Atlas from ../shared/data
    python examples/thesis_bsld_driven.py --trace FILE.swf --cpus N --jobs 1-5000 --out DIR

writes DIR/thesis_bsld_driven.csv and DIR/thesis_bsld_driven.png (normalised to EASY without DVFS
or budget) and prints the thesis' findings as PASS/DIFFERS beside our
numbers.  Runs go through the sweep machinery (nets.sweep.run_sweep:
--workers, --scheduler for Dask, a restart skips finished runs) and are
kept in --results (default out/thesis_runs), shared with the other thesis
studies; see nets/dvfs_thesis_studies.py.  The study's main grid through
``cpn sweep``, stored under the same keys (OUT/results.csv, normalised to EASY)::

    cpn sweep --model thesis --policy bsld_driven --option bsld_threshold=1.5,2,3 \
        --option wq_threshold=0,4,16,none \
        --out out/thesis_runs
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studies.thesis_studies import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("bsld_driven"))
