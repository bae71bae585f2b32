"""Text as a person reads it: tokens and their labels, languages and scripts, Chinese words, quoted excerpts,
and the caveats said about a run (unknown words, unsure tokens). Plain Python; no torch."""
