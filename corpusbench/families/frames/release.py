"""``frames``: the S-clusters of a test corpus as release config ``frames-sclusters`` (task ``other``).

Params: ``FramesSpec`` (generated from ``families.frames.records.FramesParams``, where each is declared
once): ``train`` (key of the training corpus in ``corpora``; its ``stats`` folder, or stats computed
once under the work dir, give the training vocabulary), ``min_frame_count`` (default 2) and
``config_name``. The test corpus is the generator's own ``corpus``. The output is reused when the
frames fingerprint inputs (test corpus, training counts, parameters) are unchanged. One row per
S-cluster: ``frame_id, left, right, frame_count, n_words, words, word_counts``.
"""

from __future__ import annotations

from pathlib import Path

from corpusbench.errors import ConfigError
from corpusbench.io import read_json, write_json
from corpusbench.provenance import file_sha256
from corpusbench.publish.plugins import GeneratorContext, ReleaseConfig, ResolvedCorpus, parse_params

FRAMES_CITATION = """@inproceedings{frank2009evaluating,
  title = {Evaluating Models of Syntactic Category Acquisition without Using a Gold Standard},
  author = {Frank, Stella and Goldwater, Sharon and Keller, Frank},
  booktitle = {Proceedings of the 31st Annual Meeting of the Cognitive Science Society},
  year = {2009}
}"""
LIMITATIONS = (
    "S-clusters come from frames (two words with one word between) of a finite test corpus: membership "
    "implies substitutability, non-membership does not rule it out, so substitutable precision is tiny.",
    "Frames are required to have their frame words in the training vocabulary (a stats folder has no "
    "frames), a stand-in for the paper's 'frames found in both training and test corpus'.",
)


def _train_stats(ctx: GeneratorContext, train: ResolvedCorpus) -> Path:
    """The training corpus's stats folder, or stats computed once into the work dir."""
    if train.stats is not None:
        return train.stats
    from corpusbench.corpus.readers import CorpusSpec
    from corpusbench.corpus.stats import StatsParams, compute_stats

    out, key_file = ctx.work_dir / "train-stats", ctx.work_dir / "train-stats.key.json"
    key = {"corpus_files_sha256": train.fingerprint.get("sha256"), "language": train.language}
    if (out / "manifest.json").is_file() and key_file.is_file() and read_json(key_file) == key:
        ctx.log(f"frames: reusing {out}")
        return out
    ctx.log(f"frames: computing stats of {train.key}")
    compute_stats(CorpusSpec(path=str(train.path)), out, StatsParams(lang=train.language or "en"))
    write_json(key_file, key)
    return out


def build_configs(ctx: GeneratorContext) -> list[ReleaseConfig]:
    import pyarrow.parquet as pq

    from corpusbench.corpus.readers import CorpusSpec
    from corpusbench.families.frames.extract import generate_frames
    from corpusbench.families.frames.records import FramesParams, FramesSpec

    where = f"families.{ctx.generator.id}.params"
    p = parse_params(FramesSpec, ctx.generator.params, where)
    if ctx.corpus is None:
        raise ConfigError(f"families.{ctx.generator.id}.corpus: name the test corpus")
    if p.train not in ctx.corpora:
        raise ConfigError(f"{where}.train: {p.train!r} is not a key of corpora")
    if p.train == ctx.corpus.key:
        raise ConfigError(f"{where}.train: the training corpus must differ from the test corpus")
    stats = _train_stats(ctx, ctx.corpora[p.train])
    params = FramesParams(lang=ctx.corpus.language or ctx.spec.language[0], min_frame_count=p.min_frame_count)
    out, key_file = ctx.work_dir / "sclusters", ctx.work_dir / "sclusters.key.json"
    key = {
        "corpus_files_sha256": ctx.corpus.fingerprint.get("sha256"),
        "train_counts_sha256": file_sha256(stats / "counts.parquet"),
        "parameters": params.as_dict(),
    }
    if (out / "manifest.json").is_file() and key_file.is_file() and read_json(key_file) == key:
        ctx.log(f"frames: reusing {out}")
    else:
        ctx.log(f"frames: S-clusters of {ctx.corpus.key} over the vocabulary of {p.train}")
        generate_frames(CorpusSpec(path=str(ctx.corpus.path)), stats, out, params, with_occurrences=False)
        write_json(key_file, key)
    manifest = read_json(out / "manifest.json")
    table = pq.read_table(out / "sclusters.parquet")
    return [
        ReleaseConfig(
            name=p.config_name,
            table=table,
            task="other",
            description=(
                f"S-clusters of frames in {ctx.corpus.key} (frames seen at least {p.min_frame_count} times; "
                f"middle words in the vocabulary of {p.train}): the reference sets for substitutable "
                "precision and recall of word clusterings."
            ),
            funnel=manifest["funnel"],
            parameters={
                "frames_parameters": manifest["parameters"],
                "frames_fingerprint": manifest["fingerprint"],
                "train_corpus": p.train,
                "train_vocab_counts_sha256": manifest["train_vocab"]["counts_sha256"],
            },
            roles={"id": "frame_id"},
            citations=(FRAMES_CITATION,),
            limitations=LIMITATIONS,
        )
    ]
