"""The six providers, each declared once (pure). Every list of providers, hosts or lanes
in litdesk is derived from :data:`PROVIDER_SPECS`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from types import MappingProxyType
from typing import Final, get_args

from litdesk._errors import LitdeskError

from ._spec import CachePolicy, LaneSpec, ProviderName, ProviderSpec, ProviderTerms, SearchMode

__all__ = [
    "DISCOVERY_LANES",
    "HOSTS",
    "LANE_PROVIDER",
    "MODE_DEFAULTS",
    "PROVIDERS",
    "PROVIDER_SPECS",
    "UnknownProvider",
    "display_name",
    "lane_label",
    "provider_spec",
]

_FIELDS_ALL: Final = ("all", "title", "abstract", "author")
_SORTS_ALL: Final = ("relevance", "newest", "cited")
_TYPES_ALL: Final = ("all", "review", "preprint", "journal")


def _search(
    provider: str,
    role: str,
    *,
    mode: SearchMode = "keyword",
    fields: tuple[str, ...] = _FIELDS_ALL,
    sorts: tuple[str, ...] = _SORTS_ALL,
    types: tuple[str, ...] = _TYPES_ALL,
) -> LaneSpec:
    return LaneSpec(role, f"{provider}-{role}", "search", mode, fields, sorts, types)


def _lookup(provider: str) -> LaneSpec:
    return LaneSpec("lookup", f"{provider}-lookup", "lookup")


_SPECS: Final[tuple[ProviderSpec, ...]] = (
    ProviderSpec(
        name="europepmc",
        display_name="Europe PMC",
        hosts=frozenset({"www.ebi.ac.uk"}),
        lanes=(
            _search("europepmc", "keyword"),
            _lookup("europepmc"),
            LaneSpec("fulltext", "fulltext", "reading"),
            LaneSpec("fulltext-lookup", "fulltext-lookup", "reading"),
        ),
        cache=CachePolicy("body", timedelta(days=7), "Europe PMC: bodies kept 7 days"),
        terms=ProviderTerms(
            "https://europepmc.org/Copyright",
            "metadata free to reuse; abstracts and full text keep their publishers' or authors' copyright (the open-access subset under its stated licences)",
            read="2026-12-05",
        ),
    ),
    ProviderSpec(
        name="openalex",
        display_name="OpenAlex",
        hosts=frozenset({"api.openalex.org"}),
        lanes=(
            _search("openalex", "keyword"),
            _search("openalex", "semantic", mode="semantic", fields=("all",), sorts=("relevance",)),
            _lookup("openalex"),
            LaneSpec("fulltext-lookup", "fulltext-lookup", "reading"),
            LaneSpec("citations-seed", "citations-seed", "reading"),
            LaneSpec("citations", "citations", "reading"),
        ),
        cache=CachePolicy("body", timedelta(days=14), "OpenAlex works: bodies kept 14 days"),
        terms=ProviderTerms(
            "https://help.openalex.org/hc/en-us/articles/24397285563671-About-the-data",
            "CC0 (public domain)",
            read="2026-12-05",
        ),
    ),
    ProviderSpec(
        name="semanticscholar",
        display_name="Semantic Scholar",
        hosts=frozenset({"api.semanticscholar.org"}),
        lanes=(
            _search(
                "semanticscholar",
                "relevance",
                fields=("all",),
                sorts=("relevance",),
                types=("all", "review", "journal"),
            ),
            # operators, phrases and sorts; a Boolean query sorted by relevance runs here too,
            # unranked (the compiler warns)
            _search(
                "semanticscholar",
                "bulk",
                fields=("all",),
                sorts=("newest", "cited"),
                types=("all", "review", "journal"),
            ),
            _lookup("semanticscholar"),
        ),
        cache=CachePolicy("digest", None, "Semantic Scholar: digest only"),
        terms=ProviderTerms(
            "https://api.semanticscholar.org/supp/legal/",
            "Semantic Scholar API License Agreement (Ai2); abstracts may be withheld for legal reasons",
            read="2026-12-05",
        ),
    ),
    ProviderSpec(
        name="crossref",
        display_name="Crossref",
        hosts=frozenset({"api.crossref.org"}),
        lanes=(
            _search(
                "crossref",
                "keyword",
                fields=("all", "title", "author"),
                types=("all", "preprint", "journal"),
            ),
            _lookup("crossref"),
        ),
        cache=CachePolicy("deny", None, "Crossref: runtime caching denied"),
        terms=ProviderTerms(
            "https://www.crossref.org/documentation/retrieve-metadata/rest-api/rest-api-metadata-license-information/",
            "bibliographic metadata: facts, no restriction on reuse; abstracts keep their copyright",
            read="2026-12-05",
        ),
    ),
    ProviderSpec(
        name="pubmed",
        display_name="PubMed",
        hosts=frozenset({"eutils.ncbi.nlm.nih.gov"}),
        lanes=(
            _search(
                "pubmed",
                "keyword",
                fields=("all", "title", "author"),
                sorts=("relevance", "newest"),
            ),
            _lookup("pubmed"),
            LaneSpec("fetch", "pubmed-fetch", "fetch"),
        ),
        cache=CachePolicy("body", timedelta(days=1), "NCBI E-utilities: bodies kept 1 day"),
        terms=ProviderTerms(
            "https://www.ncbi.nlm.nih.gov/books/NBK25497/",
            "NLM/NCBI E-utilities usage guidelines; PubMed records free to use, abstracts may be copyrighted by their publishers",
            read="2026-12-05",
        ),
    ),
    ProviderSpec(
        name="arxiv",
        display_name="arXiv",
        hosts=frozenset({"export.arxiv.org"}),
        lanes=(
            _search("arxiv", "keyword", sorts=("relevance", "newest"), types=("all", "preprint")),
            _lookup("arxiv"),
        ),
        cache=CachePolicy("body", timedelta(days=1), "arXiv: bodies kept 1 day"),
        terms=ProviderTerms(
            "https://info.arxiv.org/help/api/tou.html",
            "descriptive metadata CC0 1.0; e-prints keep their authors' licences",
            read="2026-12-05",
        ),
    ),
)


class UnknownProvider(LitdeskError):
    """No provider is declared under that name."""

    default_code = "unknown_provider"


#: provider name → its declaration, in the order litdesk lists providers.
PROVIDER_SPECS: Final[Mapping[str, ProviderSpec]] = MappingProxyType({s.name: s for s in _SPECS})
if tuple(PROVIDER_SPECS) != get_args(ProviderName):  # pragma: no cover - a declaration bug
    raise LitdeskError("ProviderName does not name exactly the declared providers")

PROVIDERS: Final[tuple[ProviderName, ...]] = tuple(s.name for s in _SPECS)
#: The exact hosts each provider may be reached at (https only, no others).
HOSTS: Final[Mapping[str, frozenset[str]]] = MappingProxyType({s.name: s.hosts for s in _SPECS})
#: Every lane a search run may hold and the provider it belongs to.
LANE_PROVIDER: Final[Mapping[str, str]] = MappingProxyType(
    {lane.name: s.name for s in _SPECS for lane in s.run_lanes}
)
#: The providers a search definition uses when none is chosen, per search mode.
MODE_DEFAULTS: Final[Mapping[str, tuple[ProviderName, ...]]] = MappingProxyType(
    {"keyword": ("europepmc",), "semantic": ("openalex",), "discovery": ("openalex", "europepmc")}
)
#: The lanes of a discovery search, as (provider, mode) in order (the semantic lane is
#: left out for a Boolean query).
DISCOVERY_LANES: Final[tuple[tuple[ProviderName, SearchMode], ...]] = (
    ("europepmc", "keyword"),
    ("openalex", "keyword"),
    ("openalex", "semantic"),
)


def provider_spec(name: str) -> ProviderSpec:
    """The declaration of ``name``; :class:`UnknownProvider` for any other name."""
    spec = PROVIDER_SPECS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise UnknownProvider(
            f"unknown provider {str(name)[:40]!r} (use one of {', '.join(PROVIDERS)})",
            provider=str(name)[:40],
        )
    return spec


_ROLE_WORDS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "keyword": "keyword search",
        "semantic": "meaning search",
        "relevance": "relevance search",
        "bulk": "Boolean search",
        "lookup": "look-up by identifier",
        "fulltext": "full text",
        "fulltext-lookup": "full-text look-up",
    }
)


def lane_label(lane: str) -> str:
    """A lane named for people: ``europepmc-keyword`` → ``Europe PMC, keyword search``.

    Unknown lanes are returned as they are (a trace from a newer version still reads)."""
    for spec in _SPECS:
        for known in spec.lanes:
            if known.name == lane:
                words = _ROLE_WORDS.get(known.role, known.role.replace("-", " "))
                return f"{spec.display_name}, {words}"
    return lane


def display_name(name: str) -> str:
    """The provider's name for people (``Europe PMC``); unknown names are returned as is."""
    spec = PROVIDER_SPECS.get(name)
    return spec.display_name if spec is not None else name
