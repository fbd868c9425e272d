"""The offline demo workspace at the edge: the bundled files (:func:`sample_index`,
:func:`study_plan`, :func:`copy_data_file`) and :class:`DemoTransport`, which answers the
demo sample's host in-process and sends everything else to the network."""

from ._data import (
    DEMO_EXPORT,
    copy_data_file,
    data_file,
    sample_index,
    sample_records,
    study_plan,
)
from ._transport import DemoTransport, answer

__all__ = [
    "DEMO_EXPORT",
    "DemoTransport",
    "answer",
    "copy_data_file",
    "data_file",
    "sample_index",
    "sample_records",
    "study_plan",
]
