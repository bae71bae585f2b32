"""What the translators' and the decoder's training share: weight files, stages, the learning rate, command errors."""
