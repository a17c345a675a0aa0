"""CAC configs in a release's lm-eval-harness task folder (the ``cac`` task kind's ``lm_eval`` hook): one
multiple-choice task per config and ``cac_utils.py``, which rebuilds each site's context."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

UTILS = "cac_utils.py"  # its text: lm_eval_utils.py.txt beside this module
#: the release card's paragraph on these tasks
NOTE = "\n".join(
    [
        "  CAC tasks (`cac_utils.py` rebuilds each site's context): multiple choice among the "
        "alternation's forms",
        "  followed by the rest of the utterance; `acc` counts a site when a form of the speaker's "
        "choice wins (*a* and",
        "  *an* are both targets). Add `add_bos_token=True,logits_cache=False` to `--model_args` "
        "to score like",
        "  `corpusbench eval` (the harness's logits cache mixes up sites of one utterance, whose "
        "full strings coincide), and",
        "  `CAC_CONTEXT_UTTERANCES=N` in the environment for `--context-utterances N`. The "
        "model-side CAC statistics",
        "  (overlap, bias, TPR and their tests) come from `corpusbench eval` only.",
    ]
)


def files(rel: dict[str, Any], config: str, task: str, note: str) -> dict[str, str]:
    """The task folder's files for one CAC config: its task YAML and ``cac_utils.py``."""
    utils = (Path(__file__).parent / "lm_eval_utils.py.txt").read_text(encoding="utf-8")
    return {f"{config}.yaml": note + task_yaml(rel, config, task), UTILS: utils}


def task_yaml(rel: dict[str, Any], config: str, task: str) -> str:
    """A CAC task: multiple choice among the alternation's forms (+ the rest of the utterance) after the
    discourse context and the speaker's words up to the determiner; ``acc`` = the speaker's choice wins.
    Written by hand: ``!function`` is an lm-eval YAML tag."""
    head = _yaml(
        {
            "task": task,
            "dataset_path": rel["repo_id"],
            "dataset_name": config,
            "dataset_kwargs": {"revision": rel["tag"]},
            "output_type": "multiple_choice",
            "test_split": rel["split"],
        }
    )
    tail = _yaml(
        {
            "doc_to_text": "cac_left",
            "doc_to_choice": "cac_choices",
            "doc_to_target": "cac_target",
            "target_delimiter": "",
            "num_fewshot": 0,
            "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
            "metadata": {"version": 1.0},
        }
    )
    return f"{head}process_docs: !function {UTILS.removesuffix('.py')}.process_docs\n{tail}"


def _yaml(obj: Any) -> str:
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True, width=1000)
