"""Offline controlled vocabularies read from registry packages' data files (MeSH
descriptors): their declarations (package, licence, source terms) and readers."""

from ._packages import (
    MESH,
    VOCABULARIES,
    VocabularyPackage,
    VocabularyUnreadable,
    load_vocabulary,
    package_version,
    read_mesh_csv,
)

__all__ = [
    "MESH",
    "VOCABULARIES",
    "VocabularyPackage",
    "VocabularyUnreadable",
    "load_vocabulary",
    "package_version",
    "read_mesh_csv",
]
