"""A tiny reader of `references.bib`, and its entries as Quarto cites them.

Quarto formats citations with pandoc's default style, Chicago author-date:
`[@key]` is "(Vaswani et al. 2017)", `@key` is "Vaswani et al. (2017)",
and the bibliography lists "Vaswani, Ashish, ... 2017. “Title.” In ...".
The notebooks show the same text (tools/export/markdown.py); this module knows
only the few BibTeX forms `references.bib` uses: `@type{key, field = {..}}`
with braced or quoted values, `and`-separated authors, a few accents.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

ENTRY = re.compile(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", re.S)
FIELD = re.compile(r"\s*(\w+)\s*=\s*")
# The LaTeX accents and letters a .bib file of this book may use.
ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    '"': "\u0308",
    "^": "\u0302",
    "~": "\u0303",
    "c": "\u0327",
    "v": "\u030c",
    "=": "\u0304",
}
LETTERS = {
    r"\L": "Ł",
    r"\l": "ł",
    r"\o": "ø",
    r"\O": "Ø",
    r"\ss": "ß",
    r"\aa": "å",
    r"\AA": "Å",
    r"\ae": "æ",
    r"\i": "ı",
    r"\&": "&",
}


@dataclass
class Entry:
    key: str
    kind: str
    fields: dict[str, str]

    @functools.cached_property
    def families(self) -> list[str]:
        """The authors' family names, in order."""
        return [name[0] for name in _names(self.fields.get("author", ""))]

    @property
    def year(self) -> str:
        return self.fields.get("year", "n.d.")

    def author_text(self) -> str:
        """The names in a citation: one or two, or the first and 'et al.'
        from three on (as pandoc's Chicago author-date style prints)."""
        names = self.families
        if len(names) >= 3:
            return f"{names[0]} et al."
        return " and ".join(names)

    def reference(self, year: str) -> str:
        """The entry as the bibliography lists it, in Markdown."""
        names = _names(self.fields.get("author", ""))
        people = [f"{names[0][0]}, {names[0][1]}".strip(", ")] if names else []
        people += [f"{given} {family}".strip() for family, given in names[1:]]
        if len(people) >= 7:
            people[3:] = ["et al."]
        elif len(people) > 1:
            people[-1] = "and " + people[-1]
        fields = self.fields
        authors = ", ".join(people).removesuffix(".")
        text = f"{authors}. {year}. “{fields.get('title', '')}.”"
        venue = fields.get("booktitle") or fields.get("journal")
        if venue:
            text += " *" + re.sub(r"\bpreprint\b", "Preprint", venue) + "*"
        pages = _page_range(fields.get("pages", ""))
        if fields.get("series"):
            series = fields["series"]
            text += f", {series[:1]}{series[1:].lower()}"
            if fields.get("volume"):
                text += f", vol. {fields['volume']}"
            text += f": {pages}" if pages else ""
        else:
            text += f" {fields['volume']}" if fields.get("volume") else ""
            text += f", {pages}" if pages else ""
        text += "" if text.endswith(".”") else "."
        if fields.get("doi"):
            text += f" <https://doi.org/{fields['doi']}>."
        elif fields.get("url"):
            text += f" <{fields['url']}>."
        return text


def _page_range(pages: str) -> str:
    """Chicago's page ranges: 770–78, 4246–53, 107–8, 100–104."""
    match = re.fullmatch(r"(\d+)\s*[–-]+\s*(\d+)", pages)
    if not match:
        return pages
    first, last = match.groups()
    if int(first) < 100 or int(first) % 100 == 0 or len(first) != len(last):
        return f"{first}–{last}"
    pairs = enumerate(zip(first, last, strict=True))
    keep = next((i for i, (a, b) in pairs if a != b), len(last) - 1)
    changed = last[keep:]
    if int(first) % 100 >= 10:
        changed = last[min(keep, len(last) - 2) :]
    return f"{first}–{changed.lstrip('0') or '0'}"


def read(path: Path) -> dict[str, Entry]:
    """Every entry of a .bib file, by key, in the file's order."""
    text = path.read_text(encoding="utf-8")
    entries = {}
    for match in ENTRY.finditer(text):
        fields, position = {}, match.end()
        while True:
            field = FIELD.match(text, position)
            if not field:
                break
            value, position = _value(text, field.end())
            fields[field.group(1).lower()] = _plain(value)
            after = re.compile(r"\s*,?").match(text, position)
            if "," not in after.group(0):
                break  # the entry's closing brace
            position = after.end()
        kind = match.group(1).lower()
        entries[match.group(2)] = Entry(match.group(2), kind, fields)
    return entries


def years(entries: dict[str, Entry]) -> dict[str, str]:
    """Each key's year as cited: '2016a' and '2016b' where the same
    authors have two works in one year (ordered by title)."""
    groups: dict[tuple, list[Entry]] = {}
    for entry in entries.values():
        groups.setdefault((entry.author_text(), entry.year), []).append(entry)
    shown = {}
    for group in groups.values():
        group.sort(key=lambda e: e.fields.get("title", "").lower())
        for n, entry in enumerate(group):
            suffix = "abcdefghijklmnopqrstuvwxyz"[n] if len(group) > 1 else ""
            shown[entry.key] = entry.year + suffix
    return shown


def _value(text: str, start: int) -> tuple[str, int]:
    """A braced, quoted or bare value starting at `start`, and its end."""
    if text[start] not in '{"':
        end = re.compile(r"[,}\n]").search(text, start).start()
        return text[start:end].strip(), end
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        depth += {"{": 1, "}": -1}.get(char, 0)
        closing = "}" if text[start] == "{" else '"'
        if index > start and depth == 0 and char == closing:
            return text[start + 1 : index], index + 1
    raise ValueError(f"unclosed value at character {start}")


def _plain(value: str) -> str:
    """A BibTeX value as text: accents resolved, braces and runs of
    whitespace gone, `--` an en dash."""
    for command, letter in LETTERS.items():
        value = re.sub(
            r"\{?" + re.escape(command) + r"(?![a-zA-Z])\}?", letter, value
        )
    value = re.sub(
        r"\{?\\([`'\"^~cv=])\{?(\w)\}?\}?",
        lambda m: m.group(2) + ACCENTS[m.group(1)],
        value,
    )
    value = value.replace("{", "").replace("}", "")
    value = unicodedata.normalize("NFC", value)
    return " ".join(value.split()).replace("--", "–")


def _names(authors: str) -> list[tuple[str, str]]:
    """(family, given) of each `and`-separated name."""
    names = []
    for name in re.split(r"\s+and\s+", authors.strip()) if authors else []:
        if "," in name:
            family, given = (s.strip() for s in name.split(",", 1))
        else:
            given, _, family = name.rpartition(" ")
        names.append((family, given))
    return names
