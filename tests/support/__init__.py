"""Helpers the tests share: tiny random models, hypothesis strategies, hand-built maps, the browser harness."""
