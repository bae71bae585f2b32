"""How layer-wise contributions compose through a whole model: ALTI rollout and ALTI+ for translation (numpy only).

- **ALTI rollout** (Ferrando et al., EMNLP 2022, "Measuring the Mixing of Contextual Information in the
  Transformer", arXiv 2203.04212): a layer's matrix C^l holds how much each of its input tokens makes up each of its
  outputs (residual included, rows summing to 1), so the product R^l = C^l · C^(l−1) · … · C^0 says how much each
  *input token* makes up each output of layer l.
- **ALTI+** (Ferrando et al., EMNLP 2022, "Towards Opening the Black Box of Neural Machine Translation: Source and
  Target Contributions to the Model Predictions", arXiv 2205.11631): a decoder layer's output for target position i
  mixes the decoder's own inputs (the start token and the target prefix) and the encoder's outputs, which the
  encoder's rollout traces back to the source tokens. Over the S source then T decoder-input tokens,

      R^(−1) = [0 | I]                                                   (T, S + T): each position is its own input
      P^l    = C_self^l · R^(l−1)                                        through the self-attention block
      R^l    = diag(r^l) · P^l + [C_cross^l · R_enc | 0]                 through the cross-attention block

  where C_cross^l (T, S) is the cross block's contribution of each encoder output, r^l (T,) that of the block's
  residual (what the self-attention block handed on), and R_enc the encoder's full rollout. Each row of R^l sums to
  1: its first S columns are the source's share of target position i, the rest the target prefix's. The same
  composition as the paper's code (mt-upc/transformer-contributions-nmt), written here from the formula.
"""

from __future__ import annotations

import numpy as np


def rollout(layers: np.ndarray) -> np.ndarray:
    """(layers, n, n) -> (layers, n, n): layer l holds C^l · … · C^0, how much each input token makes up each
    output of layer l. Computed in float64, returned as float32."""
    products = np.empty(layers.shape, dtype=np.float64)
    joint = np.eye(layers.shape[-1])
    for index, layer in enumerate(np.asarray(layers, dtype=np.float64)):
        joint = products[index] = layer @ joint
    return products.astype(np.float32)


def translation_rollout(
    encoder: np.ndarray, self_layers: np.ndarray, cross_layers: np.ndarray, cross_residual: np.ndarray
) -> np.ndarray:
    """ALTI+ through the decoder: float32 (layers, T, S + T), row i of layer l the share of each source token and
    each decoder input in target position i's output of decoder layer l.

    encoder (S, S): the encoder's full rollout; self_layers (layers, T, T): each decoder self-attention block's
    contributions; cross_layers (layers, T, S): each cross-attention block's contributions of the encoder outputs;
    cross_residual (layers, T): the cross block's contribution of its residual (rows of cross + residual sum to 1)."""
    layers, targets, sources = cross_layers.shape
    joint = np.concatenate([np.zeros((targets, sources)), np.eye(targets)], axis=1)  # (T, S + T)
    products = np.empty((layers, targets, sources + targets), dtype=np.float64)
    encoder = np.asarray(encoder, dtype=np.float64)
    for layer in range(layers):
        through_self = np.asarray(self_layers[layer], dtype=np.float64) @ joint  # (T, S + T)
        joint = through_self * np.asarray(cross_residual[layer], dtype=np.float64)[:, None]
        joint[:, :sources] += np.asarray(cross_layers[layer], dtype=np.float64) @ encoder  # (T, S)
        products[layer] = joint
    return products.astype(np.float32)


def row_normalised(rows: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (float32); a row that sums to 0 stays 0 (nothing came from there)."""
    rows = np.asarray(rows, dtype=np.float64)
    sums = rows.sum(axis=-1, keepdims=True)
    return np.divide(rows, sums, out=np.zeros_like(rows), where=sums > 0).astype(np.float32)
