"""The FIT-CLAMS family's parameters, declared once (#40, :mod:`corpusbench.params`).

:class:`FitClamsParams` makes the options of ``corpusbench fitclams build`` (``--lang``, ``--paradigms``,
``--llm-check`` and, from its nested :class:`~corpusbench.families.fitclams.select.SelectionConfig`,
``--nouns`` ... ``--bin-counts``) and :data:`FitClamsSpecParams`, what a release spec's ``fitclams``
``params`` may say (``corpora``, ``language``, ``paradigms``, ``selection``, ``overrides``). The command's
run arguments (``--corpus NAME=PATH``, ``--out``, ``--stats``, ``--workers``, ``--tagger``, ``--config``
and the LLM of ``--llm-check``) stay with the command. :class:`~corpusbench.families.fitclams.generator.
FitClamsSpec` is the resolved input of one run (stats folders, the lexicon overrides, the paradigms).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from corpusbench.families.fitclams.records import PARADIGMS
from corpusbench.families.fitclams.select import SelectionConfig
from corpusbench.params import param, spec_view


def _comma_list(value: str) -> tuple[str, ...] | None:
    """``--paradigms a,b``: the names; an empty value is the default (all)."""
    return tuple(p.strip() for p in value.split(",") if p.strip()) if value else None


@dataclass(frozen=True, slots=True, kw_only=True)
class FitClamsParams:
    """The FIT-CLAMS family's parameters: the options of ``fitclams build`` and the release spec's
    ``params`` are generated from these fields."""

    corpora: list[str] | None = param(  # noqa: RUF009 (param() is a field specifier)
        None,
        help="Keys of the spec's corpora, one pair set each over their shared vocabulary (default: the "
        "family's own corpus); each one's stats folder, or stats computed once under the work dir, is "
        "used. The command line takes --corpus NAME=PATH instead.",
        cli=False,
        doc_default="the family's `corpus`",
    )
    language: str | None = param(
        None,
        help="en | fr | de (a release: default the corpus's language, else the spec's first language)",
        option="--lang",
        cli_required=True,
        doc_default="the corpus's, else the spec's first",
    )
    paradigms: list[str] | None = param(  # noqa: RUF009 (param() is a field specifier)
        None,
        help="Comma-separated CLAMS paradigms to build (default: all 7): " + ", ".join(PARADIGMS),
        cli_type=str | None,
        doc_default="all 7",
        from_cli=_comma_list,
    )
    selection: SelectionConfig = param(  # noqa: RUF009 (param() is a field specifier)
        help="How the words are chosen: a mapping of the selection keys (n_nouns, n_verbs, n_bins, "
        "n_objects, seed, top_k, fill_empty, min_intransitive_share, min_verb_contexts, coord_order, "
        "bin_counts); on the command line each is an option of its own (--nouns ...).",
        nested=True,
        default_factory=SelectionConfig,
    )
    overrides: dict[str, Any] = param(  # noqa: RUF009 (param() is a field specifier)
        help="Lexicon overrides: `preps` (prepositions), `rc_verbs` (`['like/likes', ...]`), `complements` "
        "(verb 3sg -> long-VP filler). The command line takes --config, a YAML file of the same keys.",
        cli=False,
        default_factory=dict,
    )
    llm_check: bool = param(
        False,
        help="Confirm animacy/intransitivity of shortlisted words with an LLM.",
        option="--llm-check/--no-llm-check",
        spec=False,
    )


#: What a release spec's fitclams ``params`` may say, generated (``selection`` is a mapping, checked
#: against SelectionConfig by the family's ParamsSchema).
FitClamsSpecParams = spec_view(FitClamsParams, name="FitClamsSpecParams")


@dataclass(frozen=True, slots=True, kw_only=True)
class FitClamsRunOptions:
    """The FIT-CLAMS family's options of ``eval run`` (``EvalKind.run_options``)."""

    train_corpus: str | None = param(
        None,
        help="FIT-CLAMS: the release corpus the model was trained on (its bins and counts are used).",
        spec=False,
    )
