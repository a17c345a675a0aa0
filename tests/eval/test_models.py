"""Architecture detection, device/dtype checks and load-time provenance."""

from __future__ import annotations

import pytest
import transformers as tf

from corpusbench.errors import ConfigError, InputError
from corpusbench.eval.models import detect_arch, load_model, resolve_device, resolve_dtype


def test_detect_arch():
    assert detect_arch(tf.GPT2Config(architectures=["GPT2LMHeadModel"])) == "causal"
    assert detect_arch(tf.RobertaConfig(architectures=["RobertaForMaskedLM"])) == "mlm"
    assert detect_arch(tf.T5Config()) == "seq2seq"
    assert detect_arch(tf.BertConfig()) == "mlm"  # no architectures: by model type
    assert detect_arch(tf.LlamaConfig()) == "causal"
    with pytest.raises(ConfigError, match="pass --arch"):
        detect_arch(tf.CLIPVisionConfig())


def test_device_and_dtype_errors():
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="no CUDA GPU"):
            resolve_device("cuda")
    with pytest.raises(ConfigError, match="unknown device"):
        resolve_device("tpu")
    with pytest.raises(ConfigError, match="float16 is not supported on CPU"):
        resolve_dtype("float16", torch.device("cpu"))
    with pytest.raises(ConfigError, match="unknown dtype"):
        resolve_dtype("int8", torch.device("cpu"))


def test_load_errors_and_provenance(tiny_dir, tmp_path):
    with pytest.raises(InputError, match="not a model folder"):
        load_model(str(tmp_path))
    with pytest.raises(InputError, match="model folder not found"):
        load_model(str(tmp_path / "missing"))
    lm = load_model(str(tiny_dir["bert"]))
    prov = lm.provenance()
    assert prov["arch"] == "mlm" and prov["dtype"] == "float32" and len(prov["model_files_sha256"]) == 64
    assert load_model(str(tiny_dir["bert"]), arch="causal").arch == "causal"  # explicit --arch wins


def test_custom_code_folder_is_refused_in_one_line_without_running_it(tiny_dir, tmp_path):
    import json
    import shutil

    from typer.testing import CliRunner

    from corpusbench.cli import app

    folder = tmp_path / "custom"
    shutil.copytree(tiny_dir["gpt2"], folder)
    cfg = json.loads((folder / "config.json").read_text())
    cfg["auto_map"] = {"AutoConfig": "evil.EvilConfig", "AutoModelForCausalLM": "evil.EvilModel"}
    (folder / "config.json").write_text(json.dumps(cfg))
    ran = tmp_path / "ran"
    (folder / "evil.py").write_text(f"import pathlib\npathlib.Path({str(ran)!r}).write_text('ran')\n")
    with pytest.raises(ConfigError, match=r"brings its own code \(evil.py\)"):
        load_model(str(folder))
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(json.dumps({"sentence_good": "A cat sits.", "sentence_bad": "A cat sit."}) + "\n")
    res = CliRunner().invoke(
        app, ["eval", "run", str(pairs), "--model", str(folder), "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert "--trust-remote-code" in res.output and not ran.exists() and not (tmp_path / "o").exists()


def test_auto_dtype_is_float32_on_cpu():
    import torch

    assert resolve_dtype("auto", torch.device("cpu")) == torch.float32
