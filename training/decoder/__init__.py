"""The demo decoder: a small Llama-style language model over the corpus's Chinese and English text."""
