"""Ready extraction forms: litdesk's six fields (the default), PICO/PECO for health
questions and a risk-of-bias judgement per RoB 2 domain (pure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ._form import Form, FormField, FormInvalid

__all__ = ["TEMPLATES", "default_form", "pico_form", "rob2_form", "template"]


def default_form() -> Form:
    """litdesk's evidence fields since its first release (research question, population,
    method, intervention, finding — required — and limitations): every Study uses them
    until it chooses another form, so nothing changes for existing Studies. Source:
    litdesk's own evidence record (``core.evidence.EVIDENCE_FIELDS``)."""
    return Form(
        (
            FormField("question", "Research question"),
            FormField("population", "Species, cell line or population"),
            FormField("method", "Method or assay"),
            FormField("intervention", "Intervention, concentration and exposure"),
            FormField("finding", "Finding", required=True),
            FormField("limitations", "Limitations"),
        ),
        name="litdesk evidence (six fields)",
        template="default",
    )


def pico_form() -> Form:
    """PICO/PECO for health questions: population, intervention or exposure, comparator,
    outcome, study design, sample size, the effect measure and its value with the 95 %
    confidence interval.

    Sources: Richardson WS, Wilson MC, Nishikawa J, Hayward RS. The well-built clinical
    question: a key to evidence-based decisions. ACP J Club 1995;123(3):A12-3 (PICO);
    Morgan RL, Whaley P, Thayer KA, Schünemann HJ. Identifying the PECO: a framework for
    formulating good questions to explore the association of environmental and other
    exposures with health outcomes. Environ Int 2018;121:1027-31 (PECO); Cochrane Handbook
    for Systematic Reviews of Interventions, version 6.4 (2023), chapter 5 "Collecting
    data", table 5.3.a (the items collected per study: design, participants, sample size,
    interventions, outcomes, results with effect estimates and confidence intervals)."""
    return Form(
        (
            FormField(
                "population",
                "Population",
                help="Who was studied: condition, setting, age, inclusion criteria.",
                required=True,
            ),
            FormField(
                "intervention",
                "Intervention or exposure",
                help="What was given or what the participants were exposed to (PECO: exposure).",
            ),
            FormField(
                "comparator",
                "Comparator",
                help="The alternative: placebo, usual care, another dose, no or lower exposure.",
            ),
            FormField("outcome", "Outcome", help="What was measured, and when.", required=True),
            FormField(
                "study_design",
                "Study design",
                type="choice",
                options=(
                    "Randomised controlled trial",
                    "Non-randomised controlled study",
                    "Cohort study",
                    "Case-control study",
                    "Cross-sectional study",
                    "Case series or report",
                    "Other",
                ),
            ),
            FormField("sample_size", "Sample size", type="number", help="Participants analysed."),
            FormField(
                "effect_measure",
                "Effect measure",
                type="choice",
                options=(
                    "Risk ratio",
                    "Odds ratio",
                    "Hazard ratio",
                    "Risk difference",
                    "Mean difference",
                    "Standardised mean difference",
                    "Other",
                ),
            ),
            FormField("effect_value", "Effect value", type="number", help="The point estimate."),
            FormField("ci_lower", "95% CI lower", type="number"),
            FormField("ci_upper", "95% CI upper", type="number"),
        ),
        name="PICO/PECO (health questions)",
        template="pico",
    )


_ROB2_DOMAINS: Final = (
    ("d1", "Domain 1: bias arising from the randomisation process"),
    ("d2", "Domain 2: bias due to deviations from intended interventions"),
    ("d3", "Domain 3: bias due to missing outcome data"),
    ("d4", "Domain 4: bias in measurement of the outcome"),
    ("d5", "Domain 5: bias in selection of the reported result"),
    ("overall", "Overall risk of bias"),
)
ROB2_JUDGEMENTS: Final = ("Low risk", "Some concerns", "High risk")


def rob2_form() -> Form:
    """Risk of bias (RoB 2): per domain a judgement (low risk / some concerns / high risk)
    and the support for it, then the overall judgement.

    Source: Sterne JAC, Savović J, Page MJ, et al. RoB 2: a revised tool for assessing
    risk of bias in randomised trials. BMJ 2019;366:l4898 (the five domains, the three
    judgements and the free-text support for each); Cochrane Handbook, version 6.4 (2023),
    chapter 8."""
    fields: list[FormField] = []
    for key, label in _ROB2_DOMAINS:
        fields.append(
            FormField(
                f"{key}_judgement",
                f"{label}: judgement",
                type="choice",
                options=ROB2_JUDGEMENTS,
                required=key == "overall",
            )
        )
        fields.append(
            FormField(
                f"{key}_support",
                f"{label}: support",
                help="The facts from the report that support the judgement.",
            )
        )
    return Form(tuple(fields), name="Risk of bias (RoB 2)", template="rob2")


#: The ready templates by name.
TEMPLATES: Final[dict[str, Callable[[], Form]]] = {
    "default": default_form,
    "pico": pico_form,
    "rob2": rob2_form,
}


def template(name: str) -> Form:
    """The ready template ``name`` (default, pico, rob2)."""
    make = TEMPLATES.get(name.strip().casefold())
    if make is None:
        raise FormInvalid(
            f"unknown form template {name[:40]!r}: choose {', '.join(TEMPLATES)}",
            code="form_template",
        )
    return make()
