"""Attention, computed and recorded: everything left of the numpy data (`attnviz.types`).

- `math`: the one eager attention definition (scores, masks, GQA, softmax with one NaN policy, LSE → weights), the
  head split/merge, and `AttentionSteps`;
- `recorder`: the implementation switch, the recorders and the one state attnviz keeps per model;
- `capture` (`capture`, `capture_batch`), `generation` (`generate`), `batching` and `encoding` (their inputs);
- `ondemand` (`capture_lazy`, `LazyCapture`), with `compact` (what it keeps per call) and `tiles`;
- `layer` (`MultiHeadAttention`, the project's own layer), `walkthrough` (the explainer's small matrices);
- `npu` (the fused adapter on an Ascend NPU), `precision` (which dtype a model runs in on each device).
"""
