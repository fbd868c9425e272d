"""The six providers, each declared once (pure). Every list of providers, hosts or lanes
in litdesk is derived from :data:`PROVIDER_SPECS`.

A seventh declaration, ``demo`` (:data:`DEMO_PROVIDER`), is the offline demo sample: it
is never one of :data:`PROVIDERS` (the databases litdesk offers), it is known only where
the caller says the demo workspace is open (:func:`known_provider`, :func:`check_sources`),
and a search may never mix it with a real database."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from types import MappingProxyType
from typing import Final, get_args

from litdesk._errors import LitdeskError, RefusedError

from ._spec import CachePolicy, LaneSpec, ProviderName, ProviderSpec, ProviderTerms, SearchMode

__all__ = [
    "DECLARED",
    "DEMO_PROVIDER",
    "DISCOVERY_LANES",
    "DemoMixed",
    "HOSTS",
    "LANE_PROVIDER",
    "MODE_DEFAULTS",
    "PROVIDERS",
    "PROVIDER_SPECS",
    "UnknownProvider",
    "check_sources",
    "display_name",
    "known_provider",
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
    ProviderSpec(
        name="demo",
        display_name="Demo sample (offline)",
        # answered inside the process by the demo workspace's own transport (never sent:
        # .invalid is reserved and resolves nowhere)
        hosts=frozenset({"demo-sample.litdesk.invalid"}),
        lanes=(
            _search("demo", "keyword", sorts=("relevance", "newest"), types=("all",)),
            _lookup("demo"),
        ),
        cache=CachePolicy("deny", None, "Demo sample: answered offline, nothing to keep"),
        terms=ProviderTerms(
            "https://creativecommons.org/publicdomain/zero/1.0/",
            "CC0 1.0: OpenAlex records of two SYNERGY datasets, bundled with litdesk for the demo",
            read="2026-12-05",
        ),
        demo=True,
    ),
)


class UnknownProvider(LitdeskError):
    """No provider is declared under that name."""

    default_code = "unknown_provider"


#: provider name → its declaration, in the order litdesk lists providers.
PROVIDER_SPECS: Final[Mapping[str, ProviderSpec]] = MappingProxyType({s.name: s for s in _SPECS})
if tuple(PROVIDER_SPECS) != get_args(ProviderName):  # pragma: no cover - a declaration bug
    raise LitdeskError("ProviderName does not name exactly the declared providers")

#: The databases litdesk offers (the demo sample is not one of them).
PROVIDERS: Final[tuple[ProviderName, ...]] = tuple(s.name for s in _SPECS if not s.demo)
#: The offline demo sample's name (see the module docstring).
DEMO_PROVIDER: Final[ProviderName] = "demo"
#: Every declared name: the databases and the demo sample (stored runs may name either).
DECLARED: Final[tuple[ProviderName, ...]] = tuple(s.name for s in _SPECS)
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


class DemoMixed(RefusedError):
    """A search asked for the demo sample together with a real database."""

    default_code = "demo_mixed"


def known_provider(name: object, *, demo: bool) -> ProviderName | None:
    """``name`` as a provider: one of :data:`PROVIDERS`, or the demo sample when ``demo``
    (the demo workspace is open); ``None`` for anything else."""
    allowed = DECLARED if demo else PROVIDERS
    return next((p for p in allowed if p == name), None)


def check_sources(providers: Iterable[str], *, demo: bool) -> None:
    """Refuse a search's providers unless each is known here (the demo sample only in the
    demo workspace, :class:`UnknownProvider` elsewhere) and the demo sample is searched
    alone (:class:`DemoMixed`)."""
    names = list(providers)
    for name in names:
        if known_provider(name, demo=demo) is None:
            raise UnknownProvider(
                f"unknown provider {str(name)[:40]!r} (use one of {', '.join(PROVIDERS)})",
                provider=str(name)[:40],
            )
    if DEMO_PROVIDER in names and len(set(names)) > 1:
        others = ", ".join(display_name(n) for n in names if n != DEMO_PROVIDER)
        raise DemoMixed(
            "The demo sample cannot be searched together with a real database "
            f"({others}): its records are bundled examples, not search results. "
            "Search the demo sample on its own, or choose only real databases."
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

    A bare provider name (the lane of a trace attempt whose query the provider refused
    before any request, ``crossref``) is the provider's name for people (``Crossref``).
    Unknown lanes are returned as they are (a trace from a newer version still reads)."""
    for spec in _SPECS:
        if spec.name == lane:
            return spec.display_name
        for known in spec.lanes:
            if known.name == lane:
                words = _ROLE_WORDS.get(known.role, known.role.replace("-", " "))
                return f"{spec.display_name}, {words}"
    return lane


def display_name(name: str) -> str:
    """The provider's name for people (``Europe PMC``); unknown names are returned as is."""
    spec = PROVIDER_SPECS.get(name)
    return spec.display_name if spec is not None else name
