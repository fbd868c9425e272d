"""A small Study of real import data for the dedup tests: 15 records of the labelled
haematology set (read from ``$LITDESK_FIXTURES``, chosen here, never stored in the project)
and three RIS records of our own whose trial registry numbers conflict."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HAEM = "bib/dedup/rathbone_haematology__records_pre_merged.csv"
#: 15 haematology records: 6 automatic merges, 4 uncertain pairs (an erratum and its article)
HAEM_IDS = (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 18, 19, 20, 21)

REGISTRY_RIS = """TY  - JOUR
ID  - R1
AU  - Okafor, N.
TI  - Early mobilisation after acute ischaemic stroke: a randomised trial
JO  - Stroke Research
PY  - 2019
VL  - 12
SP  - 101
EP  - 110
AB  - Registered as NCT01234567. Early mobilisation was tested.
ER  -

TY  - JOUR
ID  - R2
AU  - Okafor, N.
TI  - Early mobilisation after acute ischaemic stroke: a randomised trial
JO  - Stroke Research
PY  - 2019
VL  - 12
SP  - 101
EP  - 110
AB  - Registered as NCT07654321. Early mobilisation was tested again.
ER  -

TY  - JOUR
ID  - R3
AU  - Okafor, N.
TI  - Early mobilisation after acute ischaemic stroke: a randomised trial.
JO  - Stroke Research
PY  - 2019
VL  - 12
SP  - 101
EP  - 110
ER  -
"""


def haematology_subset(ids: tuple[int, ...] = HAEM_IDS) -> bytes:
    """The header and the chosen rows of the labelled haematology set (read from
    ``$LITDESK_FIXTURES``; the subset is built here, never stored in the project)."""
    root = os.environ.get("LITDESK_FIXTURES")
    if not root or not (Path(root) / HAEM).is_file():
        pytest.skip("LITDESK_FIXTURES with the dedup sets is not available")
    lines = (Path(root) / HAEM).read_text(encoding="utf-8").splitlines(keepends=True)
    want = {f'"id_{i:07d}"' for i in ids}
    return "".join([lines[0], *(ln for ln in lines[1:] if ln.split(",", 1)[0] in want)]).encode()
