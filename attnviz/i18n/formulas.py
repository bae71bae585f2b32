"""The formulas of the "How attention works" walk-through (LaTeX), one per step; the same in both languages.

Braces that LaTeX needs are doubled ({{ }}), as in every template of the catalogue; {d} (the key width) and {scale}
(its square root) are filled in by the page.
"""

_FORMULAS = {
    "formula_scores": r"S = QK^\top,\quad S_{{ij}} = q_i \cdot k_j",
    "formula_scaled": r"\tilde S = \frac{{QK^\top}}{{\sqrt{{d_k}}}} = "
    r"\frac{{S}}{{\sqrt{{{d}}}}} = \frac{{S}}{{{scale}}}",
    "formula_softmax": r"A_{{ij}} = \operatorname{{softmax}}(\tilde S_i)_j = "
    r"\frac{{e^{{\tilde S_{{ij}}}}}}{{\sum_{{m}} e^{{\tilde S_{{im}}}}}}",
    "formula_output": r"O = AV,\quad o_i = \sum_j A_{{ij}}\, v_j",
}

STRINGS: dict[str, dict[str, str]] = {"en": dict(_FORMULAS), "zh": dict(_FORMULAS)}
