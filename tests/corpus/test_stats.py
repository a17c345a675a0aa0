"""`corpusbench stats`: counts in context, determinism across workers, bad input, the CLI."""

import hashlib
import shutil

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.corpus.counting import vocab_pieces
from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.stats import StatsParams, compute_stats
from corpusbench.corpus.store import CorpusStats
from corpusbench.errors import ConfigError, InputError

runner = CliRunner()


def digest(folder):
    return {
        f: hashlib.sha256((folder / f).read_bytes()).hexdigest()
        for f in ("counts.parquet", "forms.parquet", "contexts.parquet")
    }


@pytest.fixture(scope="module")
def two_plays(tmp_path_factory, default_corpus):
    d = tmp_path_factory.mktemp("plays")
    for name in ("macbeth.txt", "the-tempest.txt"):
        shutil.copy(default_corpus / "shakespeare" / name, d / name)
    return d


def test_counts_are_tagged_in_context(tmp_path, data_dir):
    rep = compute_stats(
        CorpusSpec(path=str(data_dir / "genesis_40.txt")), tmp_path / "st", StatsParams(fast=False)
    )
    st = CorpusStats.load(tmp_path / "st")
    c = st.counts
    assert list(c.columns) == ["form", "tag", "pos", "lemma", "morph", "count"]
    assert c["count"].sum() == rep.tokens == st.n_tokens
    god = c[c["form"] == "god"]
    assert god["tag"].tolist() == ["NNP"] and god["count"].item() == 40  # grep -ow God: 40
    created = c[(c["form"] == "created")]
    assert set(created["tag"]) <= {"VBD", "VBN"} and created["count"].sum() == 7
    # the vocabulary covers every alphabetic token
    assert st.vocabulary["god"] == 40 and st.vocabulary["the"] > 100
    assert st.language == "en" and st.fingerprint["n_documents"] == 40


def test_contexts_hold_the_form_exactly_once(tmp_path, data_dir):
    compute_stats(CorpusSpec(path=str(data_dir / "genesis_40.txt")), tmp_path / "st", StatsParams(fast=False))
    ctx = CorpusStats.load(tmp_path / "st").contexts
    assert len(ctx) > 50
    for row in ctx.itertuples():
        toks = row.sentence.split(" ")
        assert len(toks) == row.n_tokens <= 128
        assert toks[row.token_index].lower() == row.form
        assert [t.lower() for t in toks].count(row.form) == 1
    assert ctx.groupby(["form", "tag"]).size().max() <= 2


def test_one_and_two_workers_write_identical_files(tmp_path, two_plays):
    one = compute_stats(
        CorpusSpec(path=str(two_plays)), tmp_path / "w1", StatsParams(workers=1, chunk_chars=30_000)
    )
    two = compute_stats(
        CorpusSpec(path=str(two_plays)), tmp_path / "w2", StatsParams(workers=2, chunk_chars=30_000)
    )
    assert one.tokens == two.tokens > 30_000
    assert digest(tmp_path / "w1") == digest(tmp_path / "w2")
    # chunking does not change the result either
    three = compute_stats(
        CorpusSpec(path=str(two_plays)), tmp_path / "w3", StatsParams(chunk_chars=1_000_000)
    )
    assert digest(tmp_path / "w3") == digest(tmp_path / "w1") and three.tokens == one.tokens


def test_workers_fold_their_shards_and_the_driver_merges_receipts(tmp_path, two_plays):
    """Local workers count their shards into one running result each and send receipts, then that
    result once: the merge equals the per-shard merge, and files and progress are those of one
    worker."""
    from corpusbench.corpus.executors import Foldable
    from corpusbench.corpus.shards import plan_shards
    from corpusbench.corpus.stats import FoldedStats, ShardCounter, merge_in_order

    spec = CorpusSpec(path=str(two_plays))
    shards = list(plan_shards(spec, 40_000))
    assert len(shards) >= 4
    count = ShardCounter(spec, "nltk", StatsParams())
    assert isinstance(count, Foldable)
    results = [count(s) for s in shards]
    plain, _ = merge_in_order(results, lambda: len(results), 2, None)
    receipts, folded = [], []
    for worker in (shards[::2], shards[1::2], []):  # as two workers, and one that got no shard
        folder = count.folder()
        receipts += [folder.fold(s) for s in worker]
        folded.append(folder.finish())
    assert all(r.part is None for r in receipts) and all(isinstance(f, FoldedStats) for f in folded)
    seen = []
    merged, _ = merge_in_order(receipts + folded, lambda: len(shards), 2, lambda d, b: seen.append((d, b)))
    assert (merged.counts, merged.vocab, merged.contexts) == (plain.counts, plain.vocab, plain.contexts)
    assert (merged.documents, merged.sentences, merged.tokens) == (
        plain.documents,
        plain.sentences,
        plain.tokens,
    )
    assert seen[-1] == (plain.documents, sum(s.nbytes for s in shards))
    with pytest.raises(RuntimeError, match="counted twice"):
        merge_in_order([*receipts, receipts[0]], lambda: len(shards), 2, None)
    # each folder starts empty: what a run that stopped half-way folded is not taken in by the next
    count.folder().fold(shards[0])
    fresh = count.folder()
    fresh.fold(shards[1])
    assert fresh.finish().part.documents == results[1].documents

    # end to end: many small shards on 1 (in-process) and 2 (forked or spawned) workers
    one = compute_stats(spec, tmp_path / "w1", StatsParams(workers=1, shard_bytes=40_000))
    progress = []
    two = compute_stats(
        spec,
        tmp_path / "w2",
        StatsParams(workers=2, shard_bytes=40_000),
        lambda d, b: progress.append((d, b)),
    )
    assert digest(tmp_path / "w1") == digest(tmp_path / "w2") and one.tokens == two.tokens
    assert len(progress) >= 4 and progress[-1][0] == two.documents == one.documents


def test_spawned_workers_when_a_thread_runs_write_the_same_files(tmp_path, two_plays):
    """Forking is only safe without other threads; with one running, workers are spawned instead."""
    import threading
    import time

    from corpusbench.corpus.executors import LocalExecutor

    params = StatsParams(chunk_chars=30_000, shard_bytes=40_000)  # two shards: two workers, not one
    stop = threading.Event()
    th = threading.Thread(target=stop.wait, daemon=True)
    th.start()
    try:
        ex = LocalExecutor(2)
        compute_stats(CorpusSpec(path=str(two_plays)), tmp_path / "s", params, executor=ex)
        assert ex.start_method == "spawn"
    finally:
        stop.set()
        th.join()
        ex.close()
    for _ in range(100):  # the queues' feeder threads of the spawned run wind down
        if threading.active_count() == 1:
            break
        time.sleep(0.05)
    alone = threading.active_count() == 1  # an earlier test's server thread may still run
    ex = LocalExecutor(2)
    with ex:
        compute_stats(CorpusSpec(path=str(two_plays)), tmp_path / "f", params, executor=ex)
    assert ex.start_method == ("fork" if alone else "spawn")
    assert digest(tmp_path / "s") == digest(tmp_path / "f")


def test_spacy_tagger_gives_lemmas_and_morphology(tmp_path):
    p = tmp_path / "en.txt"
    p.write_text("The dogs bark at the cat. A dog barks.\nThe children play in the garden.\n")
    compute_stats(CorpusSpec(path=str(p)), tmp_path / "st", StatsParams(tagger="spacy"))
    c = CorpusStats.load(tmp_path / "st").counts.set_index(["form", "tag"])
    assert c.loc[("dogs", "NNS"), "lemma"] == "dog" and "Number=Plur" in c.loc[("dogs", "NNS"), "morph"]
    assert c.loc[("barks", "VBZ"), "pos"] == "VERB"
    assert c.loc[("children", "NNS"), "lemma"] == "child"


def test_french_and_german_taggers(tmp_path):
    fr = tmp_path / "fr.txt"
    fr.write_text("Les enfants jouent dans le jardin. Le chien dort.\n")
    compute_stats(CorpusSpec(path=str(fr)), tmp_path / "fr", StatsParams(lang="fr"))
    c = CorpusStats.load(tmp_path / "fr").counts.set_index("form")
    assert c.loc["enfants", "pos"] == "NOUN" and "Number=Plur" in c.loc["enfants", "morph"]
    assert c.loc["jouent", "pos"] == "VERB"
    de = tmp_path / "de.txt"
    de.write_text("Die Kinder spielten im alten Park. Der Hund schläft.\n")
    compute_stats(CorpusSpec(path=str(de)), tmp_path / "de", StatsParams(lang="de"))
    c = CorpusStats.load(tmp_path / "de").counts.set_index("form")
    assert c.loc["kinder", "tag"] == "NN" and c.loc["kinder", "lemma"] == "kind"
    assert c.loc["spielten", "pos"] == "VERB" and c.loc["spielten", "tag"] == "VVFIN"


def test_vocab_pieces_split_symbols_and_digits():
    assert vocab_pieces("59th") == ["5", "9", "th"]
    assert vocab_pieces("Jeremy's") == ["jeremy's"]
    assert vocab_pieces("well-known") == ["well", "-", "known"]


def test_bad_options_fail_before_writing(tmp_path, data_dir):
    with pytest.raises(ConfigError, match="unknown language 'xx'"):
        compute_stats(
            CorpusSpec(path=str(data_dir / "genesis_40.txt")), tmp_path / "o", StatsParams(lang="xx")
        )
    with pytest.raises(ConfigError, match="English-only"):
        compute_stats(
            CorpusSpec(path=str(data_dir / "genesis_40.txt")),
            tmp_path / "o",
            StatsParams(lang="fr", tagger="nltk"),
        )
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n   \n")
    with pytest.raises(InputError, match="corpus is empty"):
        compute_stats(CorpusSpec(path=str(empty)), tmp_path / "o")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file or directory"),
        (b"", "corpus is empty"),
        (b"PK\x03\x04\x00\x00binary", "looks like a binary file"),
        (b"fine\n\xff\xfe broken\n", "bad.txt:2: bytes not valid utf-8"),
        (b"x" * 1_100_000, "line longer than"),
    ],
)
def test_cli_bad_input_exit_2_and_nothing_written(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    if content is not None:
        path.write_bytes(content)
    out = tmp_path / "out"
    result = runner.invoke(app, ["stats", str(path), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert message in result.output.replace("\n", "")
    assert result.output.strip().startswith("error:")
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]  # no temp folder left behind


def test_cli_prints_summary(tmp_path, data_dir):
    result = runner.invoke(app, ["stats", str(data_dir / "genesis_40.txt"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "tokens" in result.output and "[512,inf)" in result.output
    assert pd.read_parquet(tmp_path / "o" / "counts.parquet")["count"].sum() > 1000


def test_a_tagger_error_inside_a_worker_reaches_the_caller(tmp_path, data_dir):
    params = StatsParams(tagger="spacy", spacy_model="no_such_pipeline", workers=2)
    with pytest.raises(ConfigError, match="spaCy pipeline 'no_such_pipeline' is not installed"):
        compute_stats(CorpusSpec(path=str(data_dir / "genesis_40.txt")), tmp_path / "o", params)
    assert not (tmp_path / "o").exists()


def test_workers_auto_and_progress(tmp_path, data_dir, two_plays, monkeypatch):
    from corpusbench.corpus import stats as stats_mod
    from corpusbench.corpus.progress import StatsProgress
    from corpusbench.corpus.stats import choose_workers

    small = CorpusSpec(path=str(data_dir / "genesis_40.txt"))
    assert choose_workers(small, "local", "nltk", 1_000_000)[0] == 1  # too small to pay for a second worker
    assert choose_workers(small, "ray", "nltk", 1_000_000)[0] == 0  # Ray: every CPU of the cluster
    monkeypatch.setattr(stats_mod, "usable_cpus", lambda: 2)
    monkeypatch.setitem(stats_mod.MIN_BYTES_PER_WORKER, "nltk", 10_000)
    n, why = choose_workers(CorpusSpec(path=str(two_plays)), "local", "nltk", 50_000)
    assert n == 2 and "2 CPUs" in why
    # the CLI takes 'auto', says what it chose and counts the same
    res = runner.invoke(app, ["stats", str(two_plays), "--out", str(tmp_path / "a"), "--workers", "auto"])
    assert res.exit_code == 0, res.output
    assert "--workers auto: 1" in res.output.replace("\n", " ")  # the real threshold: 2 plays are small
    compute_stats(CorpusSpec(path=str(two_plays)), tmp_path / "one", StatsParams(workers=1))
    assert digest(tmp_path / "a") == digest(tmp_path / "one")
    res = runner.invoke(app, ["stats", str(two_plays), "--out", str(tmp_path / "b"), "--workers", "many"])
    assert res.exit_code == 2 and "--workers must be a number or 'auto'" in res.output
    # the log form of the progress: bytes, share and ETA from the average rate
    lines = []
    p = StatsProgress(type("C", (), {"is_terminal": False, "print": lambda self, x: lines.append(x)})(), 0)
    with p:
        p.total(2_000_000, 4)
        p.start -= 10  # 10 s elapsed
        p.update(100, 500_000)
    assert len(lines) == 1 and "0.5 of 2.0 MB (25%, 4 shards)" in lines[0] and "ETA 0m30s" in lines[0]
