"""``litdesk query``: parse tree, caret errors, per-provider requests, JSON and exit codes."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from litdesk.core.search import PROVIDERS
from litdesk.faces.cli._app import app
from litdesk.faces.cli._query import caret_lines

runner = CliRunner()


def run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["query", *args])


def test_json_shape_for_all_providers() -> None:
    result = run('TITLE:"gene therapy" AND (crispr OR cas9) NOT mouse', "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"query", "ast", "identifier", "providers"}
    assert data["identifier"] is None
    assert data["ast"]["has_boolean_syntax"] is True
    assert data["ast"]["tree"]["type"] == "and"
    assert list(data["providers"]) == list(PROVIDERS)
    epmc = data["providers"]["europepmc"]["request"]
    assert epmc["url"] == "https://www.ebi.ac.uk/europepmc/webservices/rest/search"
    assert epmc["executed_query"].startswith('(TITLE:"gene therapy" AND ("crispr" OR "cas9")')
    assert data["providers"]["crossref"] == {
        "refused": "Crossref has no Boolean search (AND, OR, NOT, parentheses are refused)"
    }
    assert "refused" in data["providers"]["openalex"]
    assert data["providers"]["arxiv"]["request"]["executed_query"].endswith("ANDNOT all:mouse")


def test_filters_and_provider_selection() -> None:
    result = run(
        "crispr",
        "-p",
        "openalex",
        "--provider",
        "pubmed",
        "--from",
        "2019",
        "--to",
        "2021",
        "--type",
        "review",
        "--sort",
        "newest",
        "--open-access",
        "--include-retracted",
        "--limit",
        "5",
        "--json",
    )
    assert result.exit_code == 0, result.output
    providers = json.loads(result.stdout)["providers"]
    assert list(providers) == ["openalex", "pubmed"]
    params = dict(providers["openalex"]["request"]["params"])
    assert params["filter"] == "publication_year:2019-2021,is_oa:true,type:review"
    assert params["per_page"] == "5"
    assert providers["pubmed"] == {
        "refused": "PubMed has no open-access filter (free full text is not open access)"
    }


def test_semantic_mode_and_author_field() -> None:
    data = json.loads(run("protein folding", "--mode", "semantic", "--json").stdout)
    assert data["providers"]["openalex"]["request"]["lane"] == "openalex-semantic"
    assert data["providers"]["pubmed"]["refused"].startswith("semantic search is only")
    data = json.loads(run("Smith J", "--field", "author", "-p", "europepmc", "--json").stdout)
    assert data["ast"]["tree"] == {
        "type": "phrase",
        "text": "Smith J",
        "field": None,
        "position": 1,
        "end": 7,
        "truncated": False,
    }
    assert data["providers"]["europepmc"]["request"]["executed_query"].startswith(
        '(AUTH:"Smith J")'
    )


def test_identifier_runs_lookups() -> None:
    result = run("https://doi.org/10.1038/s42256-024-00832-8", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["identifier"] == {"namespace": "doi", "value": "10.1038/s42256-024-00832-8"}
    ops = {
        name: v["request"]["operation"] for name, v in data["providers"].items() if "request" in v
    }
    assert set(ops) == {"europepmc", "openalex", "semanticscholar", "crossref", "pubmed"}
    assert set(ops.values()) == {"lookup"}
    assert "arxiv" in data["providers"]["arxiv"]["refused"].lower()
    # an identifier the grammar cannot parse still plans a lookup (no syntax error)
    data = json.loads(run("PMCID:PMC6095483", "-p", "europepmc", "--json").stdout)
    assert data["ast"] is None
    assert data["providers"]["europepmc"]["request"]["executed_query"] == "PMCID:PMC6095483"


def test_human_output() -> None:
    result = run("a NOT b", "-p", "arxiv", "-p", "crossref")
    assert result.exit_code == 0
    out = result.stdout
    assert "Parse tree (Boolean syntax)" in out
    assert 'term "b"' in out and "NOT" in out
    assert "arxiv [arxiv-keyword] search" in out
    assert (
        "GET https://export.arxiv.org/api/query?search_query=all%3Aa+ANDNOT+all%3Ab&sortBy=relevance"
        in out
    )
    assert "executed: all:a ANDNOT all:b" in out
    assert "warning: arXiv has no retraction filter" in out
    assert "crossref: refused — Crossref has no Boolean search" in out


def test_syntax_error_with_caret() -> None:
    result = run("cancer AND (lung OR")
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == "litdesk: OR needs a term after it (at character 18) [operator]"
    assert lines[1] == "  cancer AND (lung OR"
    assert lines[2] == "                   ^^"


def test_syntax_error_json() -> None:
    result = run("JOURNAL:nature", "--json")
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data["query"] == "JOURNAL:nature"
    assert data["error"]["code"] == "field"
    assert data["error"]["details"] == {"position": 1, "end": 8}


def test_bad_options_exit_2() -> None:
    for args in (
        ["x", "--provider", "google"],
        ["x", "--field", "journal"],
        ["x", "--sort", "random"],
        ["x", "--mode", "fuzzy"],
        ["x", "--from", "1700"],
        ["x", "--from", "2022", "--to", "2020"],
    ):
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("litdesk: ")


def test_caret_lines_window() -> None:
    text = "x " * 100 + "(y"
    shown, caret = caret_lines(text, 201, 202)
    assert shown.startswith("…") and shown.endswith("(y")
    assert len(caret) - len(caret.lstrip()) == shown.index("(y")
    assert caret.strip() == "^^"
    assert caret_lines("a\udcffb", 2, 2) == ("a\ufffdb", " ^")
    shown, caret = caret_lines("a\tb", 3, 3)
    assert (shown, caret) == ("a b", "  ^")


def test_query_text_is_not_rich_markup() -> None:
    result = run("[red]x[/red] [bold]", "-p", "europepmc", "--include-retracted")
    assert result.exit_code == 0, result.output
    assert "Query: [red]x[/red] [bold]" in result.stdout
    assert 'executed: "[red]x[/red]" AND "[bold]"' in result.stdout


def test_cursor_and_limit_reach_the_request() -> None:
    result = run(
        "x", "-p", "europepmc", "-p", "pubmed", "--cursor", "40", "--limit", "10", "--json"
    )
    providers = json.loads(result.stdout)["providers"]
    assert dict(providers["europepmc"]["request"]["params"])["cursorMark"] == "40"
    assert dict(providers["pubmed"]["request"]["params"])["retstart"] == "40"
    assert dict(providers["pubmed"]["request"]["params"])["retmax"] == "10"


def test_undecodable_argument_is_a_clean_error() -> None:
    result = run("ab\udcff", "--json")
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data["query"] == "ab\ufffd"
    assert data["error"]["code"] == "unsupported"


def test_tree_labels_fields() -> None:
    out = run("AUTH_LAST:roe TITLE:x", "-p", "europepmc").stdout
    assert 'AUTH_LAST: term "roe"' in out and 'TITLE: term "x"' in out


def test_truncation_after_punctuation_and_an_escaped_star() -> None:
    # covid-19*: one truncated term, sent as PubMed's truncated phrase (said as a warning)
    # and refused with its position where only single words truncate; therap\* is the
    # character, not truncation
    result = run("covid-19* AND therap\\*", "-p", "pubmed", "-p", "europepmc")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert 'truncated term "covid-19*"' in out and 'term "therap*"' in out
    assert "PubMed reads * as truncation and cannot search a literal *" in out
    assert "position 1), whose stem is several words" in out  # Europe PMC
    out = run("covid-19* AND sepsis", "-p", "pubmed").stdout
    assert 'executed: ("covid-19*"[All Fields] AND "sepsis"[All Fields])' in out
    assert "truncated phrase" in out
    data = json.loads(run("covid-19*", "--json").stdout)
    assert "position 1" in data["providers"]["europepmc"]["refused"]
    assert data["providers"]["pubmed"]["request"]["executed_query"].startswith(
        '("covid-19*"[All Fields])'
    )
    assert data["ast"]["tree"]["truncated"] is True
