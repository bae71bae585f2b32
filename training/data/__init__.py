"""The zh↔en corpus both kinds of model learn from: real sentences, dictionary pairs, the grammar, the phrasebook."""
