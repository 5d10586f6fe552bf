"""What a page loads only when the reader asks for it, and what it loads early.

- Quarto builds hundreds of hover previews at load; each is built (and
  popper and tippy loaded) when its link is first hovered or focused.
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
DEFERRED = re.compile(r'<script defer src="([^"]+/([^"/]+))"></script>\n?')
TIPPY_CALL = "window.tippy(el, config);"
LOADER = """<script data-tb-lazy-scripts>
// Search, hover previews and Bootstrap load when first wanted
// (tools/site/lazy.py).
(() => {
  const sources = SOURCES;
  const loaded = {};
  const load = (group) => loaded[group] ||= sources[group].reduce(
    (before, src) => before.then(() => new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = resolve;
      script.onerror = reject;
      document.head.appendChild(script);
    })), Promise.resolve());
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
  const options = document.getElementById("quarto-search-options");
  const keys = options ? JSON.parse(options.textContent)["keyboard-shortcut"]
    : [];
  const shortcut = (event) => {
    const field = /^(input|select|textarea|button|option)$/i.test(
      document.activeElement.tagName);
    if (window.quartoOpenSearch === open && keys.includes(event.key)
        && !field && !document.activeElement.isContentEditable) {
      event.preventDefault();
      open();
    }
  };
  addEventListener("keyup", shortcut);
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


def lazy_scripts(page: str) -> str:
    if "data-tb-lazy-scripts" in page:
        return page
    head_end = page.find("</head>")
    sources: dict[str, list[str]] = {}
    groups = {name: g for g, names in LAZY_SCRIPTS.items() for name in names}

    def take(match: re.Match) -> str:
        group = groups.get(match.group(2))
        if group is None:
            return match.group(0)
        sources.setdefault(group, []).append(match.group(1))
        return ""

    head = DEFERRED.sub(take, page[:head_end])
    if "tips" in sources and TIPPY_CALL not in page:
        return page  # Quarto changed: keep its scripts as they were
    if not sources or len(sources.get("search", "abc")) != 3:
        return page
    loader = LOADER.replace("SOURCES", json.dumps(sources))
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
