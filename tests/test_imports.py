"""corpusbench.imports: importing without optional heavy dependencies."""

import subprocess
import sys


def test_without_blocks_then_releases():
    code = """
import sys
from corpusbench.imports import import_nltk, without
import json
with without("json", "colorsys"):
    import json as j2  # already imported: still there
    try:
        import colorsys
    except ImportError:
        blocked = True
    else:
        blocked = False
import colorsys  # importable again afterwards
nltk = import_nltk()
print(blocked, "scipy" in sys.modules, "sklearn" in sys.modules, hasattr(nltk, "sent_tokenize"))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False", "False", "True"]


def test_spacy_tagger_loads_without_torch_and_torch_imports_after():
    code = """
import sys
from corpusbench.corpus.taggers import SpacyTagger
t = SpacyTagger("en")
print("torch" in sys.modules, t.tag_texts(["The dogs bark."])[0][0][1][1])
import torch
print(torch.tensor([1, 2]).sum().item())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "NNS", "3"]
