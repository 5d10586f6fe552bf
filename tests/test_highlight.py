"""tools/site/highlight.py colours code as Pandoc would, after the render.

Checked on blocks shaped like Pandoc's output without a highlighter; the
render tests check every page of a real render (tests/test_render.py).
"""

from __future__ import annotations

import re

from tools.site import highlight, postrender

# What Pandoc writes for a folded cell's code and a hidden OJS cell with
# `--syntax-highlighting=none`.
PLAIN = (
    '<details class="code-fold"><summary>Code</summary>\n'
    '<pre class="python cell-code"><code>import torch\n\n'
    "def ratio(x):\n"
    '    """Half."""\n'
    "    return x / 2  # why &lt;b&gt; stays text\n"
    "</code></pre>\n</details>\n"
    '<pre class="js cell-code hidden" data-startfrom="9" '
    'data-source-offset="0"><code>Inputs = window.Inputs</code></pre>'
)


def test_a_plain_block_becomes_quartos_highlighted_block():
    page = highlight.highlighted_code(PLAIN)
    assert not highlight.PLAIN_BLOCK.search(page)
    assert page.count('<div class="code-copy-outer-scaffold">') == 2
    assert page.count('class="code-copy-button"') == 2
    # The classes and attributes Quarto moves to the block's div.
    assert '<div class="sourceCode cell-code" id="cb1">' in page
    assert (
        '<div class="sourceCode cell-code hidden" id="cb2" '
        'data-startfrom="9" data-source-offset="0">'
    ) in page
    assert '<pre class="sourceCode python code-with-copy">' in page
    assert '<code class="sourceCode python">' in page
    # One element per line, numbered as Pandoc numbers them.
    lines = re.findall(r'<span id="cb1-(\d+)">', page)
    assert lines == ["1", "2", "3", "4", "5", "6"]


def test_tokens_carry_pandocs_classes():
    (line,) = highlight.coloured_lines(
        'for n in f"{x:,}": print(n, None, 1.5, 2)  # note', "python"
    )
    assert '<span class="cf">for</span>' in line
    assert '<span class="kw">in</span>' in line
    assert '<span class="st">f"</span><span class="sc">{</span>' in line
    assert '<span class="bu">print</span>' in line
    assert '<span class="va">None</span>' in line
    assert '<span class="fl">1.5</span>' in line
    assert '<span class="dv">2</span>' in line
    assert '<span class="co"># note</span>' in line
    # An attribute's dot is plain, as Pandoc leaves it.
    assert highlight.coloured_lines("x.shape", "python") == ["x.shape"]
    # A string is a string, whatever its words.
    assert highlight.coloured_lines('f("as")', "python") == [
        'f(<span class="st">"as"</span>)'
    ]
    code = '"""Doc."""\nimport os as o\nwith a as b: pass'
    assert highlight.coloured_lines(code, "python") == [
        '<span class="co">"""Doc."""</span>',
        '<span class="im">import</span> os <span class="im">as</span> o',
        '<span class="cf">with</span> a <span class="im">as</span> b: '
        '<span class="cf">pass</span>',
    ]


def test_code_keeps_its_text():
    page = highlight.highlighted_code(PLAIN)
    code = page.split('<code class="sourceCode python">')[1].split("</code>")
    text = re.sub(r"<[^>]+>", "", code[0])
    assert text.startswith("import torch\n\ndef ratio(x):\n")
    assert "return x / 2  # why &lt;b&gt; stays text" in text


def test_an_unknown_language_is_wrapped_uncoloured():
    page = highlight.highlighted_code(
        '<pre class="nosuchlanguage"><code>a &amp; b</code></pre>'
    )
    assert '<span id="cb1-1">a &amp; b</span>' in page
    assert 'class="code-copy-button"' in page


def test_a_page_pandoc_highlighted_is_left_alone_and_finishing_twice_too():
    highlighted = (
        '<div class="sourceCode" id="cb1"><pre class="sourceCode python">'
        '<code class="sourceCode python"><span id="cb1-1">'
        '<span class="im">import</span> os</span></code></pre></div>'
    )
    assert highlight.highlighted_code(highlighted) == highlighted
    once = postrender.finish(PLAIN)
    assert postrender.finish(once) == once
    assert '<span class="cf">return</span>' in once


def test_the_layout_pandoc_gives_highlighted_code_comes_with_it():
    page = f"<head>\n<style>\np {{}}\n</style>\n</head>\n<body>{PLAIN}</body>"
    once = highlight.highlighted_code(page)
    head = once.split("</head>")[0]
    assert head.count(highlight.STYLE) == 1
    assert head.startswith("<head>\n<style>\n" + highlight.STYLE)
    assert postrender.finish(once).count(highlight.STYLE) == 1
    bare = "<head>\n<style>\np {}\n</style>\n</head>\n<body><p>x</p></body>"
    assert highlight.highlighted_code(bare) == bare
