"""Code coloured after the render, not by Pandoc while it writes a page.

tools/render_book.py asks Pandoc for no highlighting of the website
(`--syntax-highlighting=none`, given to Quarto: Quarto still writes the
themes' code colours, which `syntax-highlighting: none` in _quarto.yml
would drop). Pandoc's highlighter took about 1 s of the 5.5 s Pandoc
spends on `systems.html`, and the element it makes of every token another
1.5 s of Quarto's own processing of the page; Pygments takes 0.2 s here.

Each code block Pandoc then writes, `<pre class="LANGUAGE ..."><code>`,
becomes what Quarto makes of a highlighted one, so that Quarto's styles
and scripts (the copy button among them) find what they expect:

    <div class="code-copy-outer-scaffold"><div class="sourceCode cell-code"
    id="cb1"><pre class="sourceCode python code-with-copy"><code
    class="sourceCode python"><span id="cb1-1">...</span>...</code></pre>
    </div><button title="Copy to Clipboard" class="code-copy-button"><i
    class="bi"></i></button></div>

Its tokens carry the classes Pandoc gives them (`kw`, `cf`, `st`, `co`,
...), which the themes colour. A page rendered by a plain `quarto render`
is highlighted by Pandoc already and left alone.
"""

from __future__ import annotations

import functools
import html
import re

# The block Pandoc writes without a highlighter: its language first.
PLAIN_BLOCK = re.compile(
    r'<pre class="([a-z][\w+-]*)((?: [\w-]+)*)"((?: [\w-]+="[^"]*")*)>'
    r"<code>(.*?)</code></pre>",
    re.S,
)
# Quarto moves these from the block to the `div.sourceCode` around it.
HOISTED = ("cell-code", "hidden")
# Quarto's English label (the book's `lang: en`).
COPY_BUTTON = (
    '<button title="Copy to Clipboard" class="code-copy-button">'
    '<i class="bi"></i></button>'
)
# The rules Pandoc's template adds to a page whose code it highlighted
# (and leaves out otherwise): highlighted code, laid out as Quarto expects.
STYLE = """/* CSS for syntax highlighting */
html { -webkit-text-size-adjust: 100%; }
pre > code.sourceCode { white-space: pre; position: relative; }
pre > code.sourceCode > span { display: inline-block; line-height: 1.25; }
pre > code.sourceCode > span:empty { height: 1.2em; }
.sourceCode { overflow: visible; }
code.sourceCode > span { color: inherit; text-decoration: inherit; }
div.sourceCode { margin: 1em 0; }
pre.sourceCode { margin: 0; }
@media screen {
div.sourceCode { overflow: auto; }
}
@media print {
pre > code.sourceCode { white-space: pre-wrap; }
pre > code.sourceCode > span { text-indent: -5em; padding-left: 5em; }
}
"""
# The template's own style element, where Pandoc writes them.
TEMPLATE_STYLE = "<style>\n"
LEXERS = {"js": "javascript", "ojs": "javascript"}
# Keywords of control flow (Pandoc's `cf`), as its Python grammar has them;
# other keywords are `kw`.
CONTROL_FLOW = {
    *"break continue elif else except finally for if pass raise".split(),
    *"return try while with yield async await".split(),
}


# Pygments' kinds of token and Pandoc's class for each: the first row that
# holds wins, so a kind comes before the kind it is a part of.
KIND_CLASSES = (
    ("String.Doc Comment", "co"),
    ("Keyword.Namespace", "im"),
    ("Keyword.Constant Name.Builtin.Pseudo Name.Variable.Magic", "va"),
    ("Keyword", "keyword"),  # its text decides (token_class)
    ("Operator.Word", "kw"),
    ("Name.Exception", "pp"),
    ("Name.Builtin", "bu"),
    ("Name.Function.Magic", "fu"),
    ("Name.Decorator", "at"),
    ("Number.Float", "fl"),
    ("Number.Hex Number.Bin Number.Oct", "bn"),
    ("Number", "dv"),
    ("String.Escape", "ch"),
    ("String.Interpol", "sc"),
    ("String", "st"),
    ("Operator", "op"),
)


def token_class(kind, text: str) -> str:
    """Pandoc's class for a Pygments token ("" for none)."""
    name = kind_class(kind)
    if name == "keyword":
        # `as` is Pandoc's `im`, in an import, a `with` or an `except`.
        return "im" if text == "as" else "cf" if text in CONTROL_FLOW else "kw"
    if name == "op" and text in (".", "..."):
        return ""  # an attribute's dot is no operator to Pandoc
    return name


@functools.cache
def kind_class(kind) -> str:
    """Pandoc's class for a kind of token (punctuation has none)."""
    from pygments import token

    for kinds, name in KIND_CLASSES:
        for named in kinds.split():
            if kind in functools.reduce(getattr, named.split("."), token):
                return name
    return ""


@functools.cache
def lexer_for(language: str):
    """Pygments' lexer for a language; None without one (or Pygments)."""
    try:
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
    except ImportError:  # Quarto ran this with a Python without Pygments
        return None
    try:
        lexer = get_lexer_by_name(LEXERS.get(language, language))
    except ClassNotFound:
        return None
    lexer.stripnl = False
    lexer.ensurenl = False
    return lexer


def coloured_lines(code: str, language: str) -> list[str]:
    """The lines of code as markup, each token in its class's element."""
    lexer = lexer_for(language)
    if lexer is None:
        return [html.escape(line, quote=False) for line in code.split("\n")]
    # Runs of one class, one element each (a string is several tokens;
    # an element less is less for the browser to lay out).
    runs: list[list[str]] = []
    for kind, text in lexer.get_tokens(code):
        name = token_class(kind, text)
        if runs and runs[-1][0] == name:
            runs[-1][1] += text
        else:
            runs.append([name, text])
    lines = [""]
    for name, text in runs:
        for number, part in enumerate(text.split("\n")):
            if number:
                lines.append("")
            if part:
                escaped = html.escape(part, quote=False)
                lines[-1] += (
                    f'<span class="{name}">{escaped}</span>'
                    if name
                    else escaped
                )
    return lines


def highlighted_code(page: str) -> str:
    """The page with each plain code block coloured and wrapped as Quarto
    wraps a highlighted one."""
    count = len(re.findall(r'<div class="sourceCode[^"]*" id="cb\d', page))

    def replace(match: re.Match) -> str:
        nonlocal count
        count += 1
        language, extra, attributes, code = match.groups()
        classes = extra.split()
        hoisted = [name for name in HOISTED if name in classes]
        kept = [name for name in classes if name not in HOISTED]
        lines = coloured_lines(html.unescape(code), language)
        block = f"cb{count}"
        spans = "\n".join(
            f'<span id="{block}-{number}">{line}</span>'
            for number, line in enumerate(lines, start=1)
        )
        outer = " ".join(["sourceCode", *hoisted])
        inner = " ".join(["sourceCode", language, *kept, "code-with-copy"])
        return (
            f'<div class="code-copy-outer-scaffold">'
            f'<div class="{outer}" id="{block}"{attributes}>'
            f'<pre class="{inner}"><code class="sourceCode {language}">'
            f"{spans}</code></pre></div>{COPY_BUTTON}</div>"
        )

    coloured = PLAIN_BLOCK.sub(replace, page)
    if coloured == page or STYLE in page:
        return coloured
    head = coloured.find("</head>")
    style = coloured.find(TEMPLATE_STYLE, 0, head)
    if style < 0:
        return coloured.replace(
            "</head>", f"<style>\n{STYLE}</style>\n</head>", 1
        )
    at = style + len(TEMPLATE_STYLE)
    return coloured[:at] + STYLE + coloured[at:]
