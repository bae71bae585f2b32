"""ALTI and ALTI+ (attnviz.measures.alti) against the papers' formulas, written out here as direct loops over i and j
in float64 from each model's own weights, for every block form attnviz decomposes:

- post-LN self-attention (BERT; BART's and Marian's encoder and decoder), pre-LN self-attention (GPT-2; Llama with
  grouped-query heads; Qwen2, whose value projection carries a bias; T5 with its RMS norm), and cross-attention
  (BART, Marian post-LN; T5 pre-LN), whose residual x_i is one more term beside the encoder's outputs;
- ALTI+ (the source and target-prefix shares of each target token) composed here from those direct layer matrices.

The inputs are built from the tokenizer and each block's input, α and value vectors read by hooks of this test on
an eager float64 copy of the model: nothing comes from attnviz's own recorder or rules.

    T_i(x_j) = Σ_h α^h_ij · v^h_j W_O^h + [j = i] x_i   (self-attention; a cross block's x_i is its own term)
    y_i = Σ_j T_i(x_j) + b_O                             (pre-LN)   or   LN(Σ_j T_i(x_j) + b_O), split per term (post-LN)
    c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁), rows divided by their sums
(Ferrando et al., EMNLP 2022, arXiv 2203.04212; ALTI+: arXiv 2205.11631.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch
import transformers

from attnviz.measures.alti import alti
from attnviz.model.load import load_model
from tests.support import tiny
from tests.support.tiny import FAMILIES, SEQ2SEQ

TEXT = "早上好！I like studying."
TARGET = "Good morning, I like it."
ATOL = 1e-5


@dataclass(frozen=True)
class BlockReading:
    """One attention block as this test read it off the reference pass (float64)."""

    alphas: torch.Tensor  # (heads, q, k)
    values: torch.Tensor  # (heads, k, d): v^h_j as the model computes it (bias included)
    w_o: torch.Tensor  # (hidden, heads·d)
    b_o: torch.Tensor | None  # (hidden,)
    residual: torch.Tensor  # (q, hidden): x_i
    norm: torch.nn.LayerNorm | None  # post-LN: the norm applied to the whole sum; pre-LN: None
    cross: bool


def direct_alti(reading: BlockReading) -> np.ndarray:
    """(q, k) ALTI of one block by a loop over i and j (cross-attention: (q, k + 1), the residual last)."""
    heads, keys, width = reading.values.shape
    queries = reading.alphas.shape[1]
    b_o = torch.zeros(reading.w_o.shape[0], dtype=torch.float64) if reading.b_o is None else reading.b_o
    result = []
    for i in range(queries):
        terms = [
            sum(
                reading.alphas[h, i, j] * reading.values[h, j] @ reading.w_o[:, h * width : (h + 1) * width].T
                for h in range(heads)
            )
            for j in range(keys)
        ]
        if reading.cross:
            terms.append(reading.residual[i])
        else:
            terms[i] = terms[i] + reading.residual[i]
        if reading.norm is None:
            y = sum(terms) + b_o
        else:  # LN(u) = γ ⊙ (u − mean u) / σ + β with σ of the whole sum u: linear in each term once σ is fixed
            norm, u = reading.norm, sum(terms) + b_o
            sigma = torch.sqrt(u.var(unbiased=False) + norm.eps)
            terms = [norm.weight * (t - t.mean()) / sigma for t in terms]
            y = sum(terms) + norm.weight * (b_o - b_o.mean()) / sigma + norm.bias
            assert torch.allclose(y, norm(u))  # the split is exact
        row = [max(0.0, float(y.abs().sum() - (y - t).abs().sum())) for t in terms]
        result.append(np.array(row) / sum(row))
    return np.stack(result)


# ----------------------------------------------------------------------------------------------------------------------
# Reading the blocks of each family off an eager float64 pass


def example(tokenizer, seq2seq: bool, start: int | None) -> dict[str, torch.Tensor]:
    """The model's inputs, from the tokenizer: the text; a translator's decoder reads the start token then the
    target (teacher forcing: decoder row i writes target token i)."""
    source = tokenizer(TEXT)["input_ids"]
    inputs = {"input_ids": torch.tensor([source])}
    if seq2seq:
        target = tokenizer(text_target=TARGET)["input_ids"]
        inputs["decoder_input_ids"] = torch.tensor([[start, *target[:-1]]])
    return inputs


def tapped_pass(model, inputs, taps: dict[str, str]):
    """The model's output (attentions included) and, for each module path of `taps`, its input ("in") or output
    ("out") in that pass, batch row 0: (q, hidden)."""
    modules, seen, hooks = dict(model.named_modules()), {}, []
    for path, where in taps.items():
        if where == "in":

            def keep_input(module, args, kwargs, path=path):
                seen[path] = (args[0] if args else kwargs["hidden_states"])[0]

            hooks.append(modules[path].register_forward_pre_hook(keep_input, with_kwargs=True))
        else:

            def keep_output(module, args, output, path=path):
                seen[path] = (output[0] if isinstance(output, tuple) else output)[0]

            hooks.append(modules[path].register_forward_hook(keep_output))
    try:
        with torch.no_grad():
            out = model(**inputs, output_attentions=True)
    finally:
        for hook in hooks:
            hook.remove()
    return out, seen


def per_head(vectors: torch.Tensor, heads: int, kv_heads: int | None = None) -> torch.Tensor:
    """(k, kv·d) value vectors → (heads, k, d); with fewer key/value heads (grouped queries) head h reads kv head
    h // (heads / kv)."""
    kv_heads = kv_heads or heads
    keys, width = vectors.shape
    split = vectors.reshape(keys, kv_heads, width // kv_heads).permute(1, 0, 2)  # (kv, k, d)
    return split.repeat_interleave(heads // kv_heads, dim=0)


def bert_blocks(model, inputs) -> dict[str, list[BlockReading]]:
    """BERT, post-LN: y = LayerNorm(x + dense(Attn(x)))."""
    layers = model.encoder.layer
    out, seen = tapped_pass(model, inputs, {f"encoder.layer.{n}": "in" for n in range(len(layers))})
    heads, readings = model.config.num_attention_heads, []
    for n, layer in enumerate(layers):
        x, attention = seen[f"encoder.layer.{n}"], layer.attention
        values = per_head(attention.self.value(x), heads)
        dense = attention.output.dense
        readings.append(
            BlockReading(out.attentions[n][0], values, dense.weight, dense.bias, x, attention.output.LayerNorm, False)
        )
    return {"self": readings}


def gpt2_blocks(model, inputs) -> dict[str, list[BlockReading]]:
    """GPT-2, pre-LN: y = x + c_proj(Attn(ln_1(x))); Conv1D weights are stored (in, out)."""
    blocks = model.transformer.h
    out, seen = tapped_pass(model, inputs, {f"transformer.h.{n}": "in" for n in range(len(blocks))})
    hidden, heads, readings = model.config.n_embd, model.config.n_head, []
    for n, block in enumerate(blocks):
        x = seen[f"transformer.h.{n}"]
        values = per_head(block.attn.c_attn(block.ln_1(x))[:, 2 * hidden :], heads)
        projection = block.attn.c_proj
        readings.append(
            BlockReading(out.attentions[n][0], values, projection.weight.T, projection.bias, x, None, False)
        )
    return {"self": readings}


def llama_blocks(model, inputs) -> dict[str, list[BlockReading]]:
    """Llama and Qwen2, pre-RMSNorm with grouped-query heads: y = x + o_proj(Attn(input_layernorm(x)))."""
    layers, config = model.model.layers, model.config
    out, seen = tapped_pass(model, inputs, {f"model.layers.{n}": "in" for n in range(len(layers))})
    readings = []
    for n, layer in enumerate(layers):
        x, attention = seen[f"model.layers.{n}"], layer.self_attn
        vectors = attention.v_proj(layer.input_layernorm(x))  # (k, kv·d), Qwen2's bias included
        values = per_head(vectors, config.num_attention_heads, config.num_key_value_heads)
        projection = attention.o_proj
        readings.append(BlockReading(out.attentions[n][0], values, projection.weight, projection.bias, x, None, False))
    return {"self": readings}


def bart_blocks(model, inputs) -> dict[str, list[BlockReading]]:
    """BART and Marian, post-LN: y = LN(x + out_proj(Attn(x))); the cross block's x is the decoder self block's
    output, its keys the encoder's outputs."""
    encoder, decoder = model.model.encoder.layers, model.model.decoder.layers
    taps = {f"model.encoder.layers.{n}": "in" for n in range(len(encoder))}
    taps |= {f"model.decoder.layers.{n}": "in" for n in range(len(decoder))}
    taps |= {f"model.decoder.layers.{n}.self_attn_layer_norm": "out" for n in range(len(decoder))}
    out, seen = tapped_pass(model, inputs, taps)
    heads, sources = model.config.encoder_attention_heads, out.encoder_last_hidden_state[0]

    def reading(alphas, attention, norm, x, keys, cross):
        projection = attention.out_proj
        values = per_head(attention.v_proj(keys), heads)
        return BlockReading(alphas[0], values, projection.weight, projection.bias, x, norm, cross)

    readings = {"encoder": [], "decoder": [], "cross": []}
    for n, layer in enumerate(encoder):
        x = seen[f"model.encoder.layers.{n}"]
        readings["encoder"].append(
            reading(out.encoder_attentions[n], layer.self_attn, layer.self_attn_layer_norm, x, x, False)
        )
    for n, layer in enumerate(decoder):
        x = seen[f"model.decoder.layers.{n}"]
        readings["decoder"].append(
            reading(out.decoder_attentions[n], layer.self_attn, layer.self_attn_layer_norm, x, x, False)
        )
        handed_on = seen[f"model.decoder.layers.{n}.self_attn_layer_norm"]
        readings["cross"].append(
            reading(
                out.cross_attentions[n], layer.encoder_attn, layer.encoder_attn_layer_norm, handed_on, sources, True
            )
        )
    return readings


def t5_blocks(model, inputs) -> dict[str, list[BlockReading]]:
    """T5, pre-RMSNorm without biases: y = x + o(Attn(layer_norm(x))); the cross block's keys and values are read
    from the encoder's outputs as they are (its norm applies to the decoder's queries only)."""
    encoder, decoder = model.encoder.block, model.decoder.block
    taps = {f"encoder.block.{n}.layer.0": "in" for n in range(len(encoder))}
    taps |= {f"decoder.block.{n}.layer.{part}": "in" for n in range(len(decoder)) for part in (0, 1)}
    out, seen = tapped_pass(model, inputs, taps)
    heads, sources = model.config.num_heads, out.encoder_last_hidden_state[0]

    def reading(alphas, sublayer, attention, x, keys, cross):
        values = per_head(attention.v(keys if cross else sublayer.layer_norm(x)), heads)
        return BlockReading(alphas[0], values, attention.o.weight, None, x, None, cross)

    readings = {"encoder": [], "decoder": [], "cross": []}
    for n, block in enumerate(encoder):
        x = seen[f"encoder.block.{n}.layer.0"]
        readings["encoder"].append(
            reading(out.encoder_attentions[n], block.layer[0], block.layer[0].SelfAttention, x, x, False)
        )
    for n, block in enumerate(decoder):
        x = seen[f"decoder.block.{n}.layer.0"]
        readings["decoder"].append(
            reading(out.decoder_attentions[n], block.layer[0], block.layer[0].SelfAttention, x, x, False)
        )
        x = seen[f"decoder.block.{n}.layer.1"]
        readings["cross"].append(
            reading(out.cross_attentions[n], block.layer[1], block.layer[1].EncDecAttention, x, sources, True)
        )
    return readings


READERS = {
    "bert": bert_blocks,
    "gpt2": gpt2_blocks,
    "llama": llama_blocks,
    "qwen2": llama_blocks,
    "bart": bart_blocks,
    "marian": bart_blocks,
    "t5": t5_blocks,
}


@pytest.fixture(scope="module")
def qwen2_folder(tmp_path_factory) -> str:
    return tiny.save_qwen2(tmp_path_factory.mktemp("qwen2"))


def direct_matrices(family: str, folder: str) -> dict[str, list[np.ndarray]]:
    """role → each layer's ALTI matrix by the direct loop, on an eager float64 copy of the model in `folder`."""
    seq2seq = family in SEQ2SEQ
    model_class = transformers.Qwen2ForCausalLM if family == "qwen2" else tiny.MODEL_CLASSES[family]
    reference = model_class.from_pretrained(folder, attn_implementation="eager").double().eval().requires_grad_(False)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    inputs = example(tokenizer, seq2seq, reference.config.decoder_start_token_id if seq2seq else None)
    readings = READERS[family](reference, inputs)
    return {role: [direct_alti(reading) for reading in layers] for role, layers in readings.items()}


@pytest.mark.parametrize("family", [*FAMILIES, "qwen2"])
def test_each_layers_contributions_equal_the_formula_written_out(tiny_folder, qwen2_folder, family):
    folder = qwen2_folder if family == "qwen2" else tiny_folder(family)
    handle = load_model(folder, "cpu")
    result = alti(handle, TEXT, TARGET if family in SEQ2SEQ else None)
    direct = direct_matrices(family, folder)
    assert set(direct) == set(result.kinds)
    for role, layers in direct.items():
        assert result[role].num_layers == len(layers)
        for layer, matrix in enumerate(layers):
            if role == "cross":  # the map holds the encoder outputs' contributions, renormalised; the residual apart
                sources, total = matrix[:, :-1], matrix[:, :-1].sum(axis=1, keepdims=True)
                expected = np.divide(sources, total, out=np.zeros_like(sources), where=total > 0)  # none: all 0
                np.testing.assert_allclose(result.cross_residual[layer], matrix[:, -1], atol=ATOL)
            else:
                expected = matrix
            np.testing.assert_allclose(result[role].weights[layer, 0], expected, atol=ATOL, err_msg=f"{role} {layer}")


def direct_alti_plus(direct: dict[str, list[np.ndarray]]) -> np.ndarray:
    """(T, S + T) ALTI+ of the last decoder layer, composed by the paper's recursion from the direct matrices:
    R_enc = C_enc^L … C_enc^1; R^0 = [0 | I]; R^l = diag(r^l) · C_self^l R^(l−1) + [C_cross^l R_enc | 0], where
    C_cross^l holds the encoder outputs' contributions and r^l the cross block's residual's."""
    encoder = np.eye(direct["encoder"][0].shape[0])
    for layer in direct["encoder"]:
        encoder = layer @ encoder
    targets, sources = direct["cross"][0].shape[0], encoder.shape[0]
    joint = np.hstack([np.zeros((targets, sources)), np.eye(targets)])
    for self_layer, cross_layer in zip(direct["decoder"], direct["cross"]):
        handed_on = self_layer @ joint
        joint = cross_layer[:, -1:] * handed_on
        joint[:, :sources] += cross_layer[:, :-1] @ encoder
    return joint


@pytest.mark.parametrize("family", SEQ2SEQ)
def test_alti_plus_shares_equal_the_recursion_over_the_formulas_layers(tiny_folder, family):
    folder = tiny_folder(family)
    result = alti(load_model(folder, "cpu"), TEXT, TARGET, method="alti-rollout")
    joint = direct_alti_plus(direct_matrices(family, folder))
    sources = len(result["cross"].key_tokens)
    np.testing.assert_allclose(result.shares.source_share, joint[:, :sources].sum(axis=1), atol=ATOL)
    np.testing.assert_allclose(result.shares.target_share, joint[:, sources:].sum(axis=1), atol=ATOL)
    source_part = joint[:, :sources] / joint[:, :sources].sum(axis=1, keepdims=True)  # ALTI+ shares are never 0
    np.testing.assert_allclose(result["cross"].weights[-1, 0], source_part, atol=ATOL)
