"""Numpy on attention maps, below the figures: aggregation, word merge, hiding tokens, rollout, head
statistics (`analysis`), generation replayed row by row (`replay`), and the query–key projection (`projection`)."""
