"""DecoderLens (Langedijk, Mohebbi, Sarti, Zuidema and Jumelet, NAACL 2024 Findings, "DecoderLens: Layerwise
Interpretation of Encoder-Decoder Transformers"): what the decoder writes when it reads encoder layer l's output in
place of the encoder's last one, for every encoder layer (l = 0: the embeddings the first layer reads).

The encoder runs whole; a hook on it hands the decoder layer l's state instead of its output, after the encoder's own
final norm where it has one (T5; BART and Marian are post-norm and end without one), as the last layer's state is
handed on. The model then writes as `attention.generation.generate` has it write (its beams, the recorded replay),
so every reading carries its steps, each token's probability and its cross-attention. At the last layer the decoder
reads exactly what it always reads, and writes the normal translation.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import torch

from attnviz.attention.generation import generate
from attnviz.errors import InputError
from attnviz.measures.lens_results import DecoderLens
from attnviz.measures.residual import Stream, final_norm, layers_of, residual_stream
from attnviz.model.load import ModelHandle
from attnviz.types import AttentionCapture


@contextmanager
def encoder_reads_layer(model, layer: int) -> Iterator[Stream]:
    """Inside the block, the encoder of `model` hands on layer `layer`'s state (0: the embeddings), through its final
    norm, in place of its output; the hooks go when the block ends."""
    encoder = model.get_encoder()
    norm = final_norm(encoder)

    with residual_stream(model, encoder) as stream:

        def handed_on(_module, _args, output):
            state = stream.states[layer]  # (batch, source, hidden)
            state = state if norm is None else norm(state)
            if isinstance(output, tuple):
                return (state, *output[1:])
            output.last_hidden_state = state
            return output

        hook = encoder.register_forward_hook(handed_on)
        try:
            yield stream
        finally:
            hook.remove()


def decoder_lens(
    handle: ModelHandle,
    text: str,
    max_new_tokens: int = 32,
    num_beams: int | None = None,
    truncate: bool = False,
    layers: list[int] | None = None,
) -> DecoderLens:
    """What the decoder writes from each encoder layer's output (`layers`: which ones, 0 = the embeddings; default
    all, the last one included). Options as `attention.generation.generate`'s."""
    if not handle.is_seq2seq:
        raise InputError("decoder_lens_needs_translator", model=handle.name, kind=handle.kind)
    _, encoder_layers = layers_of(handle.model.get_encoder())
    count = len(encoder_layers) + 1
    chosen = list(range(count)) if layers is None else layers
    names, readings = [], []
    for layer in chosen:
        if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < count:
            raise InputError("decoder_lens_layer_missing", layer=layer, last=count - 1)
        with torch.no_grad(), encoder_reads_layer(handle.model, layer) as stream:
            written = generate(handle, text, max_new_tokens=max_new_tokens, truncate=truncate, num_beams=num_beams)
        names.append(stream.names[layer])
        readings.append(_marked(written, layer))
    options = {"mode": "decoder-lens", "layers": chosen}
    provenance = {**readings[0].provenance, "options": {**readings[0].provenance.get("options", {}), **options}}
    return DecoderLens(handle.name, chosen, names, readings, provenance)


def _marked(written: AttentionCapture, layer: int) -> AttentionCapture:
    """A reading whose provenance says which encoder layer the decoder read."""
    options = {**written.provenance.get("options", {}), "encoder_layer": layer}
    return replace(written, provenance={**written.provenance, "options": options})
