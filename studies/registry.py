"""Every study of the papers, by name: what ``cpn study NAME`` runs.

>>> list(STUDIES)[:2], list(STUDIES)[-1]
(['fig10', 'fig11'], 'data_driven')
>>> find_study("fig10").heading
'PuPPET Fig. 10: DVFS under frequency-to-power exponents alpha'
"""

from __future__ import annotations

from .data_driven_studies import DATA_DRIVEN_STUDIES
from .puppet_studies import PUPPET_STUDIES
from .study import Study
from .thesis_studies import THESIS_STUDIES
from .topper_studies import TOPPER_STUDIES

STUDIES: dict[str, Study] = {study.name: study
                             for study in (*PUPPET_STUDIES, *TOPPER_STUDIES, *THESIS_STUDIES,
                                           *DATA_DRIVEN_STUDIES)}


def find_study(name: str) -> Study:
    """The study called ``name``; an error listing them all if there is none."""
    try:
        return STUDIES[name]
    except KeyError:
        raise ValueError(f"no study {name!r}; the studies are {', '.join(STUDIES)}") from None
