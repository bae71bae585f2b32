"""What the model uses, beside where it looks: measures computed left of the attention line (they run the model) that
leave it as numpy arrays in the layout of attention weights, so every figure draws them.

Each module is one measure with its paper, tested against an independent path (a hook, the model's own output)."""
