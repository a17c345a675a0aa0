"""The writer prompt: fixed instructions in a system turn, only the word in the user turn (v3)."""

from __future__ import annotations

import pytest

from corpusbench.errors import ConfigError
from corpusbench.families.ltswap import prompting
from corpusbench.families.ltswap.generation import word_request
from corpusbench.llm.base import chat_messages

BLOCK = 32  # the KV block size corpusbench gives a vLLM CPU server (corpusbench.llm.hardware)


def test_v3_sends_the_same_system_turn_for_every_word():
    a, b = word_request("lanterns", "NNS", 96), word_request("mended", "VBD", 96)
    assert a.system == b.system and "at least 20 words" in a.system and "English" in a.system
    assert (a.prompt, b.prompt) == ('plural noun "lanterns"', 'verb in the past tense "mended"')
    assert "German" in word_request("laterne", "NN", 96, "de").system
    old = word_request("lanterns", "NNS", 96, writer="v2")
    assert old.system is None and '"lanterns"' in old.prompt and "at least 20 words" in old.prompt
    with pytest.raises(ConfigError, match="unknown writer prompt 'v9'"):
        word_request("lanterns", "NNS", 96, writer="v9")
    assert set(prompting.prompt_hashes()) >= {"ltswap/word_sentence_system.v3", "ltswap/word_sentence.v3"}


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_v3_fixed_part_fills_whole_kv_blocks_for_the_default_judge(judge_model_dir, lang):
    """With the default writer's chat template, every word's prompt shares its first 96 tokens (three
    whole 32-token blocks, answered from the server's prefix cache) and adds fewer than 32 new ones."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(judge_model_dir)

    def ids(form: str, tag: str) -> list[int]:
        r = word_request(form, tag, 96, lang)
        out = tok.apply_chat_template(
            chat_messages(r.prompt, r.system), tokenize=True, add_generation_prompt=True
        )
        return list(out["input_ids"] if hasattr(out, "keys") else out)

    prompts = [
        ids(f, t) for f, t in (("apex", "NN"), ("broached", "VBD"), ("attendants", "NNS"), ("bates", "VBZ"))
    ]
    shared = 0
    while all(len(p) > shared and p[shared] == prompts[0][shared] for p in prompts):
        shared += 1
    cached = shared // BLOCK * BLOCK
    assert cached == 3 * BLOCK, shared
    assert all(len(p) - cached < BLOCK for p in prompts), [len(p) for p in prompts]
