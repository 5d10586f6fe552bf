"""A chapter's Quarto Markdown as the website shows it, for a notebook:
numbered cross-references linking to the website, citations and a
References cell, callouts as blockquotes, exercises as a bold line. Pandoc
writes plain Markdown, but cross-references, callouts, exercises and
profiles are Quarto's Lua filters, run only in a render."""

from __future__ import annotations

import re
from pathlib import Path

from tools.source.book import pinned
from tools.source.numbers import HEADING, KINDS, LABEL, Book
from tools.source.qmd import DIV_CLOSE, DIV_OPEN, KIND, code_fence

# `@Fig-x` is Quarto's capitalised form of `@fig-x`; both read "Figure".
XREF = re.compile(rf"(?<![\w@])(-?)@((?i:{KINDS})-[\w-]*\w)")
FOOTNOTE = re.compile(r"\^\[([^\[\]]*)\]")
CITE = re.compile(r"(?<![\w@./-])(-?)@([A-Za-z_][\w:.#$%&+?<>~/-]*\w)")
BRACKETS = re.compile(r"\[([^\[\]]*@[^\[\]]*)\](?![(\[{])")
ITEM = re.compile(r"^(.*?)(-?)@([\w:.#$%&+?<>~/-]*\w)(.*)$", re.S)
EQUATION = re.compile(r"^(.*)\$\$\s*\{#(eq-[\w-]*\w)\}\s*$")
TABLE_CAPTION = re.compile(r"^:\s+(.*?)\s*\{#(tbl-[\w-]*\w)\}\s*$")
PROTECTED = re.compile(r"(`+)(?:(?!\1).)+?\1|\$[^$\n]+?\$")
ATTRIBUTES = re.compile(r"(?<=[\]`)])\{[^{}]*\}")
SPAN = re.compile(r"\[([^\[\]]*)\]\{[^{}]*\}")
DROPPED_SHORTCODE = re.compile(
    r"^\s*\{\{< (include _[\w.-]+\.qmd|pagebreak) >\}\}\s*$"
)
CALLOUT = re.compile(r"\.callout-(\w+)")
TITLE_ATTRIBUTE = re.compile(r'\btitle="([^"]*)"')
LETTERED_ITEM = re.compile(r"^(\s+)([a-z])\. (?=\S)")
WEBSITE_ONLY = re.compile(r'when-format="?html|\.content-hidden|unless-format')
NEEDS = (
    "Needs Python 3.10 or newer with `torch`, `numpy` and `matplotlib`;"
    " runs top to bottom on a CPU in seconds."
)
# The two licences, as every page of the website states them in its footer.
LICENCE = (
    "Text and figures: [CC BY 4.0]({repo}/blob/main/LICENSE); "
    "code: [MIT]({repo}/blob/main/LICENSE-CODE)."
)


def needs(root: Path) -> str:
    version = pinned("torch", root)
    if version is None:
        return NEEDS
    release = ".".join(version.split(".")[:2])
    return (
        f"{NEEDS} Its outputs were recorded with torch {release};"
        " another version may print slightly different numbers."
    )


class Chapter:
    def __init__(self, book: Book, path: Path) -> None:
        self.book = book
        self.path = Path(path).resolve()
        self.relative = str(self.path.relative_to(book.root))
        self.name = self.path.stem
        self.cited: list[str] = []
        # Open divs: (kind, where a callout opened in this stretch or -1).
        self.divs: list[tuple[str, int]] = []
        self.heading = 0  # how many headings have been translated

    def title_block(self, title: str) -> list[str]:
        chapter = self.book.chapters.get(self.relative)
        number = chapter.number if chapter else ""
        place = f"{chapter.text()} of" if number else "From"
        page = self.book.link(chapter) if chapter else self.book.site
        notebook = f"notebooks/{self.name}.ipynb"
        return [
            f"# {number} {title}".replace("#  ", "# "),
            "",
            f"*{place} [{self.book.title}]({self.book.site})* · "
            f"[Read it on the website]({page}) · "
            f"[Open in Colab]({self.book.colab}{notebook}) · "
            f"[Download this notebook]({self.book.site}{notebook})",
            "",
            needs(self.book.root),
            "",
            LICENCE.format(repo=self.book.repo),
        ]

    def instructor_note(self) -> str:
        notebook = f"notebooks/instructor/{self.name}.ipynb"
        return (
            "**Instructor edition**, with the worked solutions: hand "
            "learners the student edition. "
            f"[Open this edition in Colab]({self.book.colab}{notebook})"
        )

    def caption(self, options: dict) -> str | None:
        label = str(options.get("label", ""))
        if label not in self.book.targets or "fig-cap" not in options:
            return None
        text = " ".join(str(options["fig-cap"]).split())
        number = self.book.targets[label].text()
        return f"**{number}:** {self.inline(text)}"

    def references(self) -> str | None:
        works = [self.book.works[key] for key in dict.fromkeys(self.cited)]
        works.sort(key=lambda work: work.order)
        lines = ["## References", *(f"\n{work.reference}" for work in works)]
        return "\n".join(lines) if works else None

    def markdown(self, text: str) -> str:
        lines = text.split("\n")
        out: list[str] = []
        fence = None
        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            skipping = any(kind == "skip" for kind, _ in self.divs)
            fence, in_code = code_fence(line, fence)
            if in_code:
                out += [] if skipping else [line]
            elif DIV_CLOSE.match(line):
                self._close(*self.divs.pop(), out)
            elif DIV_OPEN.match(line) and skipping:
                self.divs.append(("skip", -1))
            elif DIV_OPEN.match(line):
                index = self._open(DIV_OPEN.match(line)[1], lines, index, out)
            elif skipping or DROPPED_SHORTCODE.match(line):
                continue
            elif HEADING.match(line):
                out += self._heading(*HEADING.match(line).groups())
            elif EQUATION.match(line):
                before, label = EQUATION.match(line).groups()
                number = self.number_text(label, "")
                tag = f"\\tag{{{number}}}" if number else ""
                last = f"{self.inline(before).rstrip()} {tag}".strip()
                out += [last, "$$"] if last else ["$$"]
            elif TABLE_CAPTION.match(line):
                self._table_caption(*TABLE_CAPTION.match(line).groups(), out)
            else:
                line = LETTERED_ITEM.sub(r"\1- (\2) ", line)
                out.append(self.inline(line))
        # A callout still open continues in a later cell: no blockquote.
        self.divs = [(kind, -1) for kind, _ in self.divs]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")

    def _open(self, attributes: str, lines, index: int, out) -> int:
        """Open a div; the index of the next line to read."""
        label = LABEL.search(attributes)
        callout = CALLOUT.search(attributes)
        kind = "plain"
        if WEBSITE_ONLY.search(attributes):
            kind = "skip"
        elif label and label.group(1).startswith("exr-"):
            number = self.number_text(label.group(1), "Exercise")
            title, index = self._div_title(lines, index)
            kind_line = ""
            while index < len(lines) and not lines[index].strip():
                index += 1
            if index < len(lines) and KIND.match(lines[index].strip()):
                kind_line = " · " + lines[index].strip()
                index += 1
            out += ["", f"**{number}** {title}".strip() + kind_line, ""]
        elif callout:
            title, index = self._div_title(lines, index)
            attribute = TITLE_ATTRIBUTE.search(attributes)
            if attribute and not title:
                title = self.inline(attribute.group(1))
            title = title or callout.group(1).capitalize()
            out += ["", f"**{title}**", ""]
            kind = "callout"
        elif ".solution" in attributes:
            out += ["", "*Solution.*", ""]
        self.divs.append((kind, len(out) if kind == "callout" else -1))
        return index

    def _close(self, kind: str, start: int, out: list[str]) -> None:
        if kind == "callout" and 2 <= start <= len(out):
            # Opened in this same stretch: quote the whole callout.
            body = "\n".join(out[start - 2 :]).strip("\n").split("\n")
            out[start - 2 :] = [f"> {line}".rstrip() for line in body] + [""]

    def _div_title(self, lines, index: int) -> tuple[str, int]:
        while index < len(lines) and not lines[index].strip():
            index += 1
        heading = HEADING.match(lines[index]) if index < len(lines) else None
        if heading:
            return self.inline(heading.group(2)), index + 1
        return "", index

    def _heading(self, level: str, title: str, attributes) -> list[str]:
        if self.divs:  # inside a solution, say: Quarto numbers none
            return [f"{level} {self.inline(title)}"]
        numbers = self.book.headings.get(self.relative, [])
        number = numbers[self.heading] if self.heading < len(numbers) else ""
        self.heading += 1
        if level == "#":
            return self.title_block(self.inline(title))
        return [f"{level} {number} {self.inline(title)}".replace("  ", " ")]

    def _table_caption(self, text: str, label: str, out: list[str]) -> None:
        """Quarto puts a table's caption above it; so does the notebook."""
        end = len(out)
        while end and not out[end - 1].strip():
            end -= 1
        start = end
        while start and out[start - 1].lstrip().startswith("|"):
            start -= 1
        number = self.number_text(label, "Table")
        out[start:start] = [f"**{number}:** {self.inline(text)}", ""]

    def number_text(self, label: str, unknown: str) -> str:
        """A label's text ("Table 1.1"; an equation's bare number), or
        `unknown` for a chapter that `_quarto.yml` does not list yet."""
        target = self.book.targets.get(label)
        if target is None:
            return unknown
        return target.number if target.kind == "eq" else target.text()

    def inline(self, text: str) -> str:
        if "@" not in text and "{" not in text and "^[" not in text:
            return text  # nothing to translate, the usual case
        pieces, last = [], 0  # code and maths are left as they are
        for protected in PROTECTED.finditer(text):
            before = text[last : protected.start()]
            pieces += [self._inline(before), protected[0]]
            last = protected.end()
        return "".join(pieces) + self._inline(text[last:])

    def _inline(self, text: str) -> str:
        # Jupyter has no footnotes: an inline note reads as a parenthesis.
        text = FOOTNOTE.sub(r" (\1)", text)
        text = BRACKETS.sub(self._bracketed, text)
        text = XREF.sub(lambda m: self._xref(m.group(2), m.group(1)), text)
        text = CITE.sub(self._narrative, text)
        text = SPAN.sub(r"\1", text)
        return ATTRIBUTES.sub("", text)

    def _xref(self, label: str, minus: str = "") -> str:
        target = self.book.targets.get(label[:1].lower() + label[1:])
        if target is None:
            return f"@{label}"  # unresolved: bookcheck reports it
        text = target.number if minus else target.text()
        return f"[{text}]({self.book.link(target)})"

    def _bracketed(self, match: re.Match) -> str:
        """`[@a; see @b, p. 3]` as "(Author 2017; see Other 2016, 3)"."""
        items, xrefs = [], False
        for item in match.group(1).split(";"):
            parts = ITEM.match(item.strip())
            if not parts:
                return match.group(0)
            prefix, minus, key, suffix = parts.groups()
            xrefs |= key in self.book.targets
            if key in self.book.targets:
                items.append(f"{prefix}{self._xref(key, minus)}{suffix}")
                continue
            if key not in self.book.works:
                return match.group(0)
            self.cited.append(key)
            work = self.book.works[key]
            items.append(
                f"{prefix}{work.year if minus else work.cited}{suffix}"
            )
        # Citations read in parentheses; a cross-reference reads as a link.
        return "; ".join(items) if xrefs else "(" + "; ".join(items) + ")"

    def _narrative(self, match: re.Match) -> str:
        key = match.group(2)
        if key not in self.book.works:
            return match.group(0)
        self.cited.append(key)
        work = self.book.works[key]
        return work.year if match.group(1) else work.narrative
