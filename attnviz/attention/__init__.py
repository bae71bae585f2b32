"""Attention, computed and recorded: everything left of the numpy data (`attnviz.types`).

- `math`: the one eager attention definition (scores, masks, GQA, softmax with one NaN policy, LSE → weights), the
  head split/merge, and `AttentionSteps`;
- `recorder`: the implementation switch, the recorders and the one state attnviz keeps per model;
- `capture` (`capture`, `capture_batch`), `generation` (`generate`), `batching` and `encoding` (their inputs);
- `ondemand` (`capture_lazy`, `LazyCapture`), with `compact` (what it keeps per call) and `tiles`;
- `vectors` (one head's queries, keys and values from the model's pass: `head_vectors`, `capture_with_values`);
- `layer` (`MultiHeadAttention`, the project's own layer), `walkthrough` (the explainer's small matrices, and
  `sentence_walkthrough`: the same steps for one token of a real head);
- `npu` (the fused adapter on an Ascend NPU), `precision` (which dtype a model runs in on each device).
"""
