"""What a page loads only when the reader asks for it, and what it loads early.

- Quarto builds hundreds of hover previews at load; each is built (and
  popper and tippy loaded) when its link is first hovered or focused.
- An explorer's OJS runtime and libraries load when its section comes
  near the screen.
- Search and bootstrap.min.js load on the first touch, click or key (at
  once on a wide screen, whose sidebar shows the search box, and on a
  page opened from a search result); an early click on a toggle replays.
- The fixed header's height, which Quarto sets once the page is parsed
  (a layout shift), is set before the first paint, and is the scroll
  padding: a link from another page lands its target below the header.
- The KaTeX fonts a page uses are fetched with the stylesheets, not once
  the text is laid out (which laid every formula out again).
"""

from __future__ import annotations

import json
import re

LAZY_SCRIPTS = {
    "search": ("autocomplete.umd.js", "fuse.min.js", "quarto-search.js"),
    "tips": ("popper.min.js", "tippy.umd.min.js"),
    "bootstrap": ("bootstrap.min.js",),
}
HEAD_SCRIPT = re.compile(r'<script src="([^"]*?([^"/]+))"></script>(\n?)')
TIPPY_CALL = "window.tippy(el, config);"
# The one script loader of both lazy loaders: async false runs the
# scripts in order (Inputs needs htl) while all download at once.
LOAD_IN_ORDER = """const tbLoadInOrder = (sources) => Promise.all(sources.map(
    (src) => new Promise((onload, onerror) => document.head.appendChild(
      Object.assign(document.createElement("script"),
        { src, async: false, onload, onerror })))));"""
LOADER = """<script data-tb-lazy-scripts>
// Search, hover previews and Bootstrap load when first wanted
// (tools/site/lazy.py).
(() => {
  const sources = SOURCES;
  const loaded = {};
  LOAD_IN_ORDER
  const load = (group) => loaded[group] ||= tbLoadInOrder(sources[group]);
  // A script loaded after DOMContentLoaded still gets its handler for it
  // run (once the script has run).
  let parsed = false;
  const listen = document.addEventListener;
  listen.call(document, "DOMContentLoaded", () => { parsed = true; });
  document.addEventListener = function (type, handler, options) {
    if (type === "DOMContentLoaded" && parsed) {
      queueMicrotask(() => handler.call(document, new Event(type)));
      return;
    }
    return listen.call(this, type, handler, options);
  };
  window.tbTippy = (element, config) => {
    const wake = (event) => {
      element.removeEventListener("mouseenter", wake);
      element.removeEventListener("focus", wake);
      load("tips").then(() => {
        window.tippy(element, config);
        const still = event.type === "focus"
          ? document.activeElement === element : element.matches(":hover");
        if (still) element.dispatchEvent(new Event(event.type));
      });
    };
    element.addEventListener("mouseenter", wake);
    element.addEventListener("focus", wake);
  };
  const events = ["pointerdown", "touchstart", "keydown", "focusin"];
  const wanted = () => {
    for (const type of events) removeEventListener(type, wanted, true);
    for (const group of ["search", "bootstrap"]) {
      if (sources[group]) load(group);
    }
  };
  if (sources.bootstrap) {
    // A click on a Bootstrap toggle (the sidebar's) before Bootstrap has
    // loaded is replayed once it has.
    addEventListener("click", (event) => {
      const toggle = event.target.closest("[data-bs-toggle]");
      if (!toggle || window.bootstrap) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      load("bootstrap").then(() => toggle.click());
    }, true);
  }
  if (new URLSearchParams(location.search).has("q")
      || matchMedia("(min-width: 992px)").matches) {
    wanted();
  } else {
    for (const type of events) addEventListener(type, wanted, true);
  }
  if (!sources.search) return;
  const open = () => load("search").then(() => {
    if (window.quartoOpenSearch !== open) window.quartoOpenSearch();
  });
  window.quartoOpenSearch = open;
  // A key released before search has loaded is replayed once it has:
  // Quarto's own handler decides whether it is the search shortcut.
  addEventListener("keyup", ({ key }) => {
    if (window.quartoOpenSearch !== open) return;
    load("search").then(() =>
      document.dispatchEvent(new KeyboardEvent("keyup", { key })));
  });
})();
</script>
"""
HEADER_END = "</header>\n"
HEADER_OFFSET = """<script data-tb-header-offset>
// The fixed header's height before the first paint (tools/site/lazy.py),
// and below it, with a little air, where a link's target is scrolled to:
// a link from another page lands before Quarto's scripts run.
(() => {
  const root = document.documentElement;
  const height = document.getElementById("quarto-header").clientHeight;
  document.body.style.paddingTop = height + "px";
  root.style.scrollPaddingTop = height + 8 + "px";
})();
</script>
"""


RUNTIME_TAG = re.compile(
    r'<script type="module" src="([^"]*quarto-ojs-runtime\.js)"></script>\n?'
)
# The inline module Quarto writes after the explorers' cells: it sets the
# runtime's paths and interprets the cells.
RUNTIME_START = re.compile(
    r'<script type="module">\n(if \(window\.location\.protocol === "file:"\)'
    r".*?window\._ojs\.runtime\.interpretFromScriptTags\(\);\n)</script>",
    re.S,
)
# The libraries an explorer loads before its cells (tools/site/README.md).
OJS_LIBRARY = re.compile(
    r'<script src="([^"]*/ojs/(?:htl|inputs)\.min\.js)"></script>\n?'
)
LAZY_OJS = """<script type="module" data-tb-lazy-ojs>
// The OJS runtime and the explorers' libraries (Inputs, htl) load when
// the explorer's section comes near the screen (tools/site/lazy.py).
LOAD_IN_ORDER
const tbStartOjs = async () => {
  await tbLoadInOrder(LIBRARIES);
  await import(RUNTIME);
STATEMENTS};
const tbFirstCell = document.querySelector("[id^='ojs-cell-']");
if (!tbFirstCell || !("IntersectionObserver" in window)) {
  tbStartOjs();
} else {
  const tbObserver = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) {
      tbObserver.disconnect();
      tbStartOjs();
    }
  }, { rootMargin: "600px 0px" });
  // Its section, not the cell: a cell without output is display: none,
  // and that never intersects the screen.
  tbObserver.observe(tbFirstCell.closest("section") || tbFirstCell);
}
</script>"""


def lazy_ojs(page: str) -> str:
    tag = RUNTIME_TAG.search(page)
    start = RUNTIME_START.search(page)
    if not tag or not start:
        return page
    statements = "".join(
        f"  {line}\n" for line in start.group(1).splitlines() if line
    )
    loader = (
        LAZY_OJS.replace("LOAD_IN_ORDER", LOAD_IN_ORDER)
        .replace("LIBRARIES", json.dumps(OJS_LIBRARY.findall(page)))
        .replace("RUNTIME", json.dumps(tag.group(1)))
        .replace("STATEMENTS", statements)
    )
    page = page[: start.start()] + loader + page[start.end() :]
    page = OJS_LIBRARY.sub("", page)
    return RUNTIME_TAG.sub("", page, count=1)


def lazy_scripts(page: str) -> str:
    """Every script of the head deferred (it held up the page's parsing),
    and those of LAZY_SCRIPTS left to the loader."""
    head_end = page.find("</head>")
    if head_end < 0:
        return page
    head = page[:head_end]
    groups = {name: g for g, names in LAZY_SCRIPTS.items() for name in names}
    sources: dict[str, list[str]] = {}
    for src, name, _ in HEAD_SCRIPT.findall(head):
        if name in groups:
            sources.setdefault(groups[name], []).append(src)
    changed = "tips" in sources and TIPPY_CALL not in page
    if changed or len(sources.get("search", "abc")) != 3:
        sources = {}  # Quarto changed (or a finished page): only deferred

    def defer(match: re.Match) -> str:
        src, name, newline = match.groups()
        if sources and name in groups:
            return ""  # the loader's
        return f'<script defer src="{src}"></script>{newline}'

    head = HEAD_SCRIPT.sub(defer, head)
    if not sources:
        return head + page[head_end:]
    loader = LOADER.replace("LOAD_IN_ORDER", LOAD_IN_ORDER).replace(
        "SOURCES", json.dumps(sources)
    )
    body = page[head_end:].replace(TIPPY_CALL, "window.tbTippy(el, config);")
    return head + loader + body


def header_offset(page: str) -> str:
    start = page.find('id="quarto-header"')
    end = page.find(HEADER_END, start) + len(HEADER_END)
    if start < 0 or end < len(HEADER_END) or "data-tb-header-offset" in page:
        return page
    return page[:end] + HEADER_OFFSET + page[end:]


# KaTeX's stylesheet, its link as Quarto writes it (the URL is relative).
KATEX_CSS = re.compile(
    r'<link rel="stylesheet" href="([^"]*)katex\.min\.css">'
)
# A font of KaTeX's, and what in KaTeX's markup is drawn in it
# (katex.min.css): its text in general, and variables (`mathnormal`).
KATEX_FONTS = {
    "KaTeX_Main-Regular": 'class="katex"',
    "KaTeX_Math-Italic": "mathnormal",
}
PRELOAD = (
    '<link rel="preload" href="{folder}fonts/{font}.woff2" as="font" '
    'type="font/woff2" crossorigin data-tb-font>'
)


def preload_maths_fonts(page: str) -> str:
    link = KATEX_CSS.search(page)
    if not link or "data-tb-font" in page:
        return page
    # Fonts are fetched without credentials, even from the page's own
    # site: a preload without `crossorigin` would be fetched twice.
    preloads = "".join(
        PRELOAD.format(folder=link.group(1), font=font) + "\n"
        for font, marker in KATEX_FONTS.items()
        if marker in page
    )
    return page[: link.start()] + preloads + page[link.start() :]
