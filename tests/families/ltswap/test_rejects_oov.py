"""``rejects.jsonl`` names the words the corpus lacks when it rejects a sentence as ``oov_word``."""

from __future__ import annotations

import json

from corpusbench.families.ltswap.agreement import check_agreement
from corpusbench.families.ltswap.checks import check_sentence
from corpusbench.families.ltswap.pipeline import LtswapParams, run_ltswap
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.scripted import ScriptedBackend

VOCAB = dict.fromkeys(["the", "a", "cat", "cats", "sat", "sit", "on", "mat", "is", "are", "here", "."], 1)


def test_the_check_names_the_unseen_words():
    v, _ = check_sentence("The cat sat on the sofa near Zeno.", "cat", VOCAB)
    assert v.reason == "oov_word" and v.words == ("sofa", "near", "zeno")
    ok, _ = check_sentence("The cat sat on the mat.", "cat", VOCAB)
    assert ok.ok and ok.words == ()
    v, _ = check_agreement("SVSHORT", "cat", "cats", "The big cat is here.", "The big cats are here.", VOCAB)
    assert v.reason == "oov_word" and v.words == ("big",)


class Unseen(ScriptedBackend):
    """Writes each word into a sentence with two words no corpus has."""

    def generate(self, reqs, on_result=None):
        for r in reqs:
            self.replies[r.prompt] = f"[The {r.id[5:].rsplit('/', 1)[0]} walked beside the zeppelin quokka.]"
        return super().generate(reqs, on_result)


def test_rejects_jsonl_carries_the_words(slice_stats, tmp_path):
    backend = Unseen(model="s")
    params = LtswapParams(max_per_bin=1, subtasks=("wordswap",), llm_filter=False, seed=0)
    run_ltswap(slice_stats, CachedLLM(backend, tmp_path / "c.sqlite"), params, tmp_path / "lt")
    rows = [json.loads(x) for x in (tmp_path / "lt" / "rejects.jsonl").read_text().splitlines()]
    oov = [r for r in rows if r["reason"] == "oov_word"]
    assert oov and all({"quokka", "zeppelin"} <= set(r["words"]) for r in oov), oov[:2]
    assert all("words" not in r for r in rows if r["reason"] != "oov_word")
