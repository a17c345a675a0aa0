"""``fitclams``: FIT-CLAMS pair sets as release configs ``fitclams-<corpus>-<paradigm>``.

Runs ``corpusbench.families.fitclams.generator.generate`` over the spec's corpora (their ``stats``
folders, or stats computed once under the work dir) and reuses the previous output when the FIT-CLAMS
spec and the input counts are unchanged. Params: ``FitClamsSpecParams``, generated from
``families.fitclams.params.FitClamsParams`` (``selection``: the fields of ``SelectionConfig``), where each
is declared once. The funnel shown per config is the candidate funnel of its
pair set (nouns then verbs); bins count rows by the subject noun's frequency bin in that corpus.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from corpusbench.errors import ConfigError, InputError
from corpusbench.io import read_json
from corpusbench.provenance import file_sha256
from corpusbench.publish.plugins import GeneratorContext, ReleaseConfig, parse_params

FITCLAMS_CITATION = """@inproceedings{padovani2025childdirected,
  title = {Child-Directed Language Does Not Consistently Boost Syntax Learning in Language Models},
  author = {Padovani, Francesca and Jumelet, Jaap and Matusevych, Yevgen and Bisazza, Arianna},
  booktitle = {Proceedings of the 2025 Conference on Empirical Methods in Natural Language Processing},
  year = {2025},
  note = {arXiv:2505.23689}
}"""
LIMITATIONS = (
    "FIT-CLAMS pairs come from fixed templates: they test agreement over the chosen words, not fluent text.",
    "Words are chosen automatically (the paper chose them by hand): per corpus, 10 log-spaced frequency bins "
    "over the noun and lexical-verb candidates as in the paper's App. D (English plural verbs count VB + "
    "VBP; copulas, auxiliaries and modals are never binned), verbs must be tagged as "
    "verbs more often than as nouns, and long-VP fillers come from the verb's corpus contexts or, where "
    "there are none, a hand-written adverbial (counted in the funnel as 'complement fallback').",
    "Verb-only (critical-region) scoring follows the paper; the spans are in good_start/good_end, "
    "bad_start/bad_end. lm-eval scores whole sentences instead.",
)


def build_configs(ctx: GeneratorContext) -> list[ReleaseConfig]:
    import pyarrow.parquet as pq

    from corpusbench.families.fitclams.generator import FitClamsSpec, ensure_stats, generate
    from corpusbench.families.fitclams.lexicon import Overrides
    from corpusbench.families.fitclams.params import FitClamsSpecParams
    from corpusbench.families.fitclams.records import PARADIGMS
    from corpusbench.families.fitclams.select import SelectionConfig

    where = f"families.{ctx.generator.id}.params"
    p = parse_params(FitClamsSpecParams, ctx.generator.params, where)
    keys = p.corpora or ([ctx.corpus.key] if ctx.corpus else [])
    if not keys:
        raise ConfigError(f"{where}.corpora: name at least one corpus (or set the generator's corpus)")
    unknown = [k for k in keys if k not in ctx.corpora]
    if unknown:
        raise ConfigError(f"{where}.corpora: {unknown} are not keys of corpora")
    lang = p.language or ctx.corpora[keys[0]].language or ctx.spec.language[0]
    stats = []
    for key in keys:
        c = ctx.corpora[key]
        path = str(c.stats) if c.stats else ensure_stats(key, str(c.path), lang, ctx.work_dir / "stats")
        stats.append((key, path))
    try:
        selection = SelectionConfig(**{"seed": ctx.seed, **p.selection})
        overrides = Overrides(**{k: _tuples(v) for k, v in p.overrides.items()})
    except TypeError as e:
        raise ConfigError(f"{where}: {e}") from None
    spec = FitClamsSpec(
        corpora=tuple(stats),
        language=lang,
        selection=selection,
        overrides=overrides,
        paradigms=tuple(p.paradigms or PARADIGMS),
    )
    out = ctx.work_dir / "output"
    if _cached(out, spec):
        ctx.log(f"fitclams: reusing {out}")
    else:
        ctx.log(f"fitclams: generating {len(keys)} pair set(s) in {lang}")
        generate(spec, out)
    manifest = read_json(out / "manifest.json")
    configs = []
    for key in keys:
        words = read_json(out / "words" / f"{key}.json")
        funnel = {f"noun {k}": v for k, v in words["funnel"]["noun"].items()}
        funnel.update({f"verb {k}": v for k, v in words["funnel"]["verb"].items()})
        funnel.update({f"complement {k}": v for k, v in words["funnel"].get("complement", {}).items()})
        sel = manifest["spec"]["selection"]
        method = "; ".join(
            (
                "bins as App. D"
                if sel.get("bin_counts", "paper") == "paper"
                else "bins over agreeing uses only (VBP plurals, auxiliaries dropped first)",
                "verbs coordinated in list order, as released"
                if sel.get("coord_order", "file") == "file"
                else "verb order in coordinations by a seeded coin",
            )
        )
        for paradigm in spec.paradigms:
            table = pq.read_table(out / "pairs" / key / f"{paradigm}.parquet")
            bin_col = f"noun_bin__{key}"
            bins = Counter(table.column(bin_col).to_pylist()) if bin_col in table.column_names else Counter()
            configs.append(
                ReleaseConfig(
                    name=_slug(f"fitclams-{key}-{paradigm}"),
                    table=table,
                    description=f"FIT-CLAMS {paradigm} pairs ({lang}), words binned by frequency in {key} "
                    f"({method}).",
                    funnel={**funnel, "pairs": table.num_rows},
                    bins={f"noun bin {b}": n for b, n in sorted(bins.items())},
                    parameters={
                        "fitclams_spec": manifest["spec"],
                        "template_version": manifest["template_version"],
                        "fitclams_fingerprint": manifest["fingerprint"],
                    },
                    roles={
                        "id": "pair_id",
                        "group": "paradigm",
                        "good_start": "good_start",
                        "good_end": "good_end",
                        "bad_start": "bad_start",
                        "bad_end": "bad_end",
                        **({"bin": bin_col} if bins else {}),
                        "paradigm": "paradigm",
                        **_corpus_roles(keys, table.column_names),
                    },
                    citations=(FITCLAMS_CITATION,),
                    limitations=LIMITATIONS,
                )
            )
    return configs


#: FIT-CLAMS eval roles per corpus: role -> column prefix (the column is ``<prefix>__<corpus>``).
CORPUS_ROLES = {
    "noun_bin": "noun_bin",
    "verb_bin": "verb_bin",
    "subject_good_count": "noun_good_count",
    "subject_bad_count": "noun_bad_count",
    "verb_count": "critical_count",
}


def _corpus_roles(keys: list[str], columns: list[str]) -> dict[str, str]:
    """``noun_bin:<corpus>`` etc. for every corpus whose statistics columns the table has."""
    roles = {f"{role}:{k}": f"{col}__{k}" for k in keys for role, col in CORPUS_ROLES.items()}
    return {r: c for r, c in roles.items() if c in columns}


def _cached(out: Any, spec: Any) -> bool:
    """The previous output holds this exact FIT-CLAMS spec over unchanged counts."""
    if not (out / "manifest.json").is_file():
        return False
    manifest = read_json(out / "manifest.json")
    if manifest.get("spec") != json.loads(json.dumps(spec.as_dict())):
        return False
    inputs = manifest.get("inputs", {})
    return all(
        inputs.get(name, {}).get("counts_sha256") == file_sha256(f"{path}/counts.parquet")
        for name, path in spec.corpora
    )


def _tuples(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((str(k), str(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(tuple(x.split("/")) if isinstance(x, str) and "/" in x else x for x in value)
    return value


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")[:96]


def output_configs(path: Path) -> tuple[list[ReleaseConfig], list[Path]]:
    """The ``output`` hook: the configs of a ``fitclams build`` output folder, :func:`build_configs` over
    the folder's own spec, which finds the output unchanged and reuses it (a stats folder changed or gone
    since: refused; the adapter then writes its new pairs in a temporary folder, never over this one)."""
    from corpusbench.publish.plugins import ResolvedCorpus
    from corpusbench.publish.spec import FamilySpec

    spec = read_json(path / "manifest.json")["spec"]
    corpora = {
        k: ResolvedCorpus(key=k, path=Path(p), stats=Path(p), language=spec["language"], fingerprint={})
        for k, p in spec["corpora"]
    }
    gone = [str(p) for p in (c.stats for c in corpora.values()) if not (p / "counts.parquet").is_file()]
    if gone:
        raise InputError(
            f"{path}: FIT-CLAMS output whose stats folder {gone[0]} is gone; rebuild it with "
            "`fitclams build`, or score a release made from it (--dataset releases/build/NAME/VERSION)"
        )
    params = {
        "corpora": list(corpora),
        "language": spec["language"],
        "paradigms": list(spec["paradigms"]),
        "selection": spec["selection"],
        "overrides": spec.get("overrides") or {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "output").symlink_to(path.resolve(), target_is_directory=True)
        ctx = GeneratorContext(
            spec=None,  # type: ignore[arg-type]  # not read: the params name the language
            generator=FamilySpec(name="fitclams", params=params),
            corpora=corpora,
            corpus=None,
            work_dir=Path(tmp),
            seed=spec["selection"].get("seed", 0),
            llm=None,
            base_dir=path,
        )
        configs = build_configs(ctx)
        if not (
            Path(tmp) / "output"
        ).is_symlink():  # the adapter did not find it unchanged: it made new pairs
            raise InputError(
                f"{path}: FIT-CLAMS output whose stats changed since it was built; rebuild it with "
                "`fitclams build`, or score a release made from it (--dataset releases/build/NAME/VERSION)"
            )
    return configs, sorted((path / "pairs").rglob("*.parquet"))
