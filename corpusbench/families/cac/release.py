"""``cac``: CAC determiner-noun sites of a dialogue corpus as release config ``cac-<alternatives>``.

The generator's ``corpus`` is a CHAT file or folder (or a dialogue table); ``params`` (``CacSpec``,
generated from ``families.cac.params.CacParams``, where each is declared once) are those of
``corpusbench cac build`` (alternatives, finder, child, caretakers, context_utterances, dyads,
split_sessions, baseline, alpha; a dialogue table's session_col, speaker_col, text_col, order_col;
max_line_bytes) plus ``config_name`` (default ``cac-the-a`` for ``the,a|an``). The
CAC run is cached in the work dir and reused while the corpus and parameters are unchanged.

One row per site (all speakers; the scorer uses the child and caretaker ones), in session order:
site id, session, dyad, utterance index and position, speaker and role, the utterance, the
determiner's span, form and label (``choice``), the noun lemma (``noun``), the TPR antecedent fields
(``prev_*``, ``tpr_case``), and ``context_new``: the speaker-labelled lines added to the session's
context since the previous row (see :mod:`corpusbench.families.cac.table`). The human statistics
(per dyad × role) and tests go into the card and into ``data/<config>/human_stats.json``.
"""

from __future__ import annotations

import math
from typing import Any

from corpusbench.errors import ConfigError
from corpusbench.io import read_json, write_json
from corpusbench.provenance import code_version
from corpusbench.publish.plugins import GeneratorContext, ReleaseConfig, parse_params

CAC_CITATION = """@article{vazquezmartinez2026measuring,
  title = {Measuring Form and Function in Language Models},
  author = {V{\\'a}zquez Mart{\\'i}nez, H{\\'e}ctor Javier and Yang, Charles},
  journal = {arXiv preprint arXiv:2605.28616},
  year = {2026}
}"""
YANG_CITATION = """@article{yang2013ontogeny,
  title = {Ontogeny and phylogeny of language},
  author = {Yang, Charles},
  journal = {Proceedings of the National Academy of Sciences},
  volume = {110},
  number = {16},
  pages = {6324--6327},
  year = {2013}
}"""
LIMITATIONS = (
    "CAC sites come from automatic parsing (spaCy noun chunks) of transcribed speech; some sites are "
    "misparsed, and the human statistics inherit those errors.",
)
HUMAN_STATS_FILE = "human_stats.json"


def _clean(obj: Any) -> Any:
    """NaN -> None, so the JSON file is strict JSON."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return obj


def _f(x: Any, nd: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def stats_markdown(
    stats: list[dict[str, Any]], tests: list[dict[str, Any]], unit: dict[str, Any] | None = None
) -> str:
    """The card's unit of analysis, human-statistics table and the tests across dyads."""
    lines = [f"Unit of analysis: {unit['description']}.", ""] if unit else []
    lines += [
        "Human statistics per dyad and role (N noun types, S D×N tokens, bias Eq 1, empirical overlap, "
        "Yang's predicted overlap for a productive grammar, TPR cases and rate):",
        "",
        "| dyad | role | N | S | bias | overlap | Yang predicted | TPR cases | TPR |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in stats:
        lines.append(
            f"| {s['dyad']} | {s['role']} | {s['n_types']} | {s['n_tokens']} | {_f(s['bias'])} | "
            f"{_f(s['overlap'])} | {_f(s['predicted_overlap'])} | {s['n_tpr']} | {_f(s['tpr'])} |"
        )
    if tests:
        lines += ["", "Tests across dyads (pass = p > alpha):", "", "| test | role | n | t | p | pass |"]
        lines.append("|---|---|---:|---:|---:|---|")
        for t in tests:
            passed = "–" if t.get("passed") is None else ("yes" if t["passed"] else "no")
            lines.append(
                f"| {t['name']} | {t['role']} | {t['n']} | {_f(t.get('statistic'))} | "
                f"{_f(t.get('p_value'))} | {passed} |"
            )
    return "\n".join(lines)


def build_configs(ctx: GeneratorContext) -> list[ReleaseConfig]:
    import pandas as pd

    from corpusbench.families.cac.io import load_sites
    from corpusbench.families.cac.params import CacSpec, run_config
    from corpusbench.families.cac.pipeline import run_cac
    from corpusbench.families.cac.table import sites_table

    where = f"families.{ctx.generator.id}.params"
    p = parse_params(CacSpec, ctx.generator.params, where)
    if ctx.corpus is None:
        raise ConfigError(f"families.{ctx.generator.id}.corpus: name the dialogue corpus (CHAT files)")
    try:
        config = run_config(p)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None
    name = p.config_name or "cac-" + "-".join(config.alternation.labels)
    out, key_file = ctx.work_dir / "cac", ctx.work_dir / "cac.key.json"
    key = {
        "corpus_files_sha256": ctx.corpus.fingerprint.get("sha256"),
        "parameters": config.as_dict(),
        "code": code_version()["corpusbench"],
    }
    if (out / "manifest.json").is_file() and key_file.is_file() and read_json(key_file) == key:
        ctx.log(f"cac: reusing {out}")
    else:
        ctx.log(f"cac: sites and human statistics of {ctx.corpus.key}")
        run_cac([ctx.corpus.path], out, config)
        write_json(key_file, key)
    manifest = read_json(out / "manifest.json")
    sites, sessions = load_sites(out)
    table = sites_table(sites, sessions, config.alternation.spec())
    stats = _clean(pd.read_parquet(out / "human_stats.parquet").to_dict("records"))
    tests = _clean(manifest.get("tests", []))
    unit = manifest.get("dyad_unit")
    counters = manifest.get("counters", {})
    dropped = {k: v for k, v in counters.items() if k.startswith("dropped:")}
    funnel = {
        "utterances": manifest.get("n_utterances", 0),
        "read": counters.get("candidates", len(table)),
        **dropped,
        "kept": len(table),
        **{k: v for k, v in counters.items() if k not in dropped and k not in {"candidates", "kept"}},
    }
    n_dyad = int(table["role"].isin(["child", "caretaker"]).sum())
    notes = [
        f"{len(table)} sites ({n_dyad} by the child or a caretaker, the ones a model is scored on) from "
        f"{table['session'].nunique()} session(s) of corpus `{ctx.corpus.key}`; alternation "
        f"{config.alternation.describe()}.",
        "Discourse context is stored once per session: `context_new` holds the speaker-labelled lines "
        "(`*MOT: ...`) added since the previous row of the same session, so a site's context is the "
        "concatenation of `context_new` over its session's rows up to and including it (rows are in "
        "session order). The scorer sees those lines, then `*SPEAKER: ` and the utterance up to the "
        "determiner (`utterance[:det_start]`), and compares the alternatives followed by the rest of the "
        "utterance.",
        *manifest.get("notes", []),
    ]
    return [
        ReleaseConfig(
            name=name,
            table=table,
            task="cac",
            description=(
                f"CAC sites ({config.alternation.describe()} before a noun) in the dialogue of "
                f"{ctx.corpus.key}, with their discourse context and the human choice: does a model "
                "choose like the speaker, with a human-like D×N overlap and TPR?"
            ),
            funnel=funnel,
            parameters={
                "cac_parameters": config.as_dict(),
                "cac_fingerprint": manifest["fingerprint"],
                "pseudo_dyads": manifest.get("pseudo_dyads", False),
                "dyad_unit": unit,
            },
            roles={"id": "site_id", "group": "dyad"},
            citations=(CAC_CITATION, YANG_CITATION),
            limitations=LIMITATIONS,
            extra_files={
                HUMAN_STATS_FILE: {
                    "kind": "corpusbench.cac.human_stats",
                    "config": name,
                    "parameters": config.as_dict(),
                    "notes": manifest.get("notes", []),
                    "dyad_unit": unit,
                    "stats": stats,
                    "tests": tests,
                }
            },
            card_section=stats_markdown(stats, tests, unit),
            notes=tuple(notes),
        )
    ]
