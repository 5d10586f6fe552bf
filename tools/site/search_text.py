"""The search index's maths, as text a reader can read in a search result.

Quarto writes each formula into `search.json` as its TeX, and the search
box shows it so: "X \\in \\mathbb{R}^{B \\times S \\times D}"; this makes it
"X ∈ ℝ^B × S × D". Only the commands the book uses are rewritten, so a
backslash in printed code ("\\n") stays. pylatexenc's LatexNodes2Text
(tried, 2.10) reads worse: "X ∈ℝ^B ×S ×D", "a+b/c" for a compound
fraction, equation numbers left in; and the index holds formulas among
code without delimiters, whose braces, % and ~ it would rewrite.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

SYMBOLS = {
    "times": "×",
    "cdot": "·",
    "partial": "∂",
    "in": "∈",
    "sum": "Σ",
    "infty": "∞",
    "approx": "≈",
    "odot": "⊙",
    "top": "⊤",
    "dots": "…",
    "ldots": "…",
    "le": "≤",
    "ge": "≥",
    "to": "→",
    "iff": "⇔",
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "epsilon": "ε",
    "mu": "μ",
    "sigma": "σ",
    "phi": "φ",
    "Phi": "Φ",
}
# Spacing and sizing commands: nothing to read (\tag, an equation's
# number, goes too).
DROPPED = ("qquad", "quad", "left", "right", "big", "bigl", "bigr", "Bigl")
# Functions set upright: their names.
FUNCTIONS = ("tanh", "exp", "log", "max", "min", "softmax")
READ_AS = SYMBOLS | dict.fromkeys(DROPPED, " ") | {f: f for f in FUNCTIONS}
# \name{content} whose content is what a reader reads.
WRAPPERS = ("operatorname", "text", "mathrm", "mathbf", "mathit")
BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ"}
ARGUMENT = r"\{([^{}]*)\}"


def readable(text: str) -> str:
    # Innermost braces first: \mathbb{R}^{D_{ff} \times D} takes two rounds.
    for _ in range(5):
        simpler = _one_round(text)
        if simpler == text:
            break
        text = simpler
    return re.sub(r"[ \t]{2,}", " ", text)


def _one_round(text: str) -> str:
    text = re.sub(r"\\tag\{[^{}]*\}", "", text)
    # An equation of several lines: its lines, one after the other.
    text = re.sub(
        r"\\begin\{(aligned|gathered)\}(.*?)\\end\{\1\}",
        lambda m: re.sub(r"\s*(\\\\|&|\{\})\s*", " ", m.group(2)).strip(),
        text,
        flags=re.S,
    )
    text = re.sub(
        r"\\mathbb" + ARGUMENT,
        lambda m: BLACKBOARD.get(m.group(1), m.group(1)),
        text,
    )
    text = re.sub(rf"\\(?:{'|'.join(WRAPPERS)}){ARGUMENT}", r"\1", text)
    text = re.sub(
        rf"\\frac{ARGUMENT}{ARGUMENT}",
        lambda m: f"{_grouped(m.group(1))}/{_grouped(m.group(2))}",
        text,
    )
    text = re.sub(rf"\\sqrt{ARGUMENT}", r"√(\1)", text)
    # The brace's label may have lost its braces in an earlier round.
    text = re.sub(rf"\\underbrace{ARGUMENT}_(?:{ARGUMENT}|\w+)", r"\1", text)
    text = re.sub(r"\\[,;!]", " ", text)
    text = re.sub(
        r"\\([A-Za-z]+)(?![A-Za-z])",
        lambda m: READ_AS.get(m.group(1), m.group(0)),
        text,
    )
    # A sub- or superscript's braces: D_{ff} reads D_ff.
    return re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", text)


def _grouped(term: str) -> str:
    """A fraction's part, in brackets if it is more than one symbol."""
    return f"({term})" if re.search(r"[\s+\-]", term.strip()) else term


# A callout's kind, which Quarto's index glues to the callout's title:
# "NoteDefinition: a term" reads "Definition: a term".
CALLOUT_KIND = re.compile(
    r"(^|\n)(?:Note|Tip|Warning|Important|Caution)(?=[A-Z])"
)


def rewrite_index(site: Path) -> None:
    path = site / "search.json"
    if not path.is_file():
        return
    entries = json.loads(path.read_text(encoding="utf-8"))
    for entry in entries:
        for key in ("title", "section", "text"):
            if isinstance(entry.get(key), str):
                entry[key] = CALLOUT_KIND.sub(r"\1", readable(entry[key]))
    text = json.dumps(entries, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
