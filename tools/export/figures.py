"""Export every labelled figure at print quality, and index them.
matplotlib draws and saves; added here: a kernel hook that saves what each
`fig-...` cell shows (`install`), and `settle`, which keeps the committed
file where a new one shows the same picture (a curve can move by a last
bit from one machine to another)."""

from __future__ import annotations

import inspect
import re
import shutil
from pathlib import Path

EXPORT_DPI = 300
FORMATS = ("png", "svg")


def save_figure(figure, directory: str, label: str, dpi: int) -> None:
    # Self-contained: its source is sent to the kernel.
    import matplotlib

    common = {"bbox_inches": "tight", "facecolor": "white"}
    figure.savefig(
        f"{directory}/{label}.png",
        dpi=dpi,
        metadata={"Software": None},
        **common,
    )
    # Without a fixed salt, the SVG's clip-path and glyph ids are random.
    with matplotlib.rc_context({"svg.hashsalt": label}):
        figure.savefig(
            f"{directory}/{label}.svg",
            metadata={"Date": None, "Creator": None},
            **common,
        )


def same_picture(first: Path, second: Path) -> bool:
    """PNGs of one size with at most one pixel in 2,000 different (a curve
    moved by a last bit changed 242 of 1733 by 1021; one digit of a label
    changes over 1,000); SVGs the same but for numbers within 0.01 pt."""
    if first.suffix == ".svg":
        number = re.compile(r"-?\d+\.?\d*(?:e-?\d+)?")
        one, other = (p.read_text(encoding="utf-8") for p in (first, second))
        if number.split(one) != number.split(other):
            return False
        pairs = zip(number.findall(one), number.findall(other), strict=True)
        return all(
            a == b or abs(float(a) - float(b)) <= 0.01 for a, b in pairs
        )
    from PIL import Image, ImageChops

    with Image.open(first) as one, Image.open(second) as other:
        if one.size != other.size:
            return False
        difference = ImageChops.difference(
            one.convert("RGB"), other.convert("RGB")
        )
        different = sum(difference.convert("L").histogram()[1:])
        return different <= one.size[0] * one.size[1] // 2000


def settle(drawn: Path, directory: Path) -> None:
    for path in sorted(drawn.iterdir()):
        target = directory / path.name
        if not (target.exists() and same_picture(path, target)):
            shutil.move(path, target)
    shutil.rmtree(drawn)


def kernel_exporter(directory: str, dpi: int, save) -> None:
    # Runs inside the kernel (self-contained), `save` being save_figure.
    import importlib
    import re
    import sys

    from IPython import get_ipython
    from matplotlib.figure import Figure

    shell = get_ipython()
    png_formatter = shell.display_formatter.formatters["image/png"]
    label_line = re.compile(r"^#\|\s*label:\s*(fig-[\w-]+)\s*$", re.M)
    state = {"label": None}  # of the running cell, until its figure shows

    def wrap(original):
        def exporting(figure, *args, **kwargs):
            # One figure per labelled cell; regenerate names any extra one.
            if state["label"] is not None:
                save(figure, directory, state["label"], dpi)
                state["label"] = None
            return original(figure, *args, **kwargs)

        exporting.exports_figures = True
        return exporting

    def before_cell(info):
        found = label_line.search(info.raw_cell or "")
        state["label"] = found.group(1) if found else None
        if "matplotlib.pyplot" not in sys.modules:
            return  # no figure yet; the book imports pyplot in its style cell
        # The inline backend registers its PNG formatter when pyplot first
        # needs a backend, maybe mid-cell: load it now, to wrap it.
        importlib.import_module("matplotlib_inline.backend_inline")
        current = png_formatter.lookup_by_type(Figure)
        if not getattr(current, "exports_figures", False):
            png_formatter.for_type(Figure, wrap(current))

    shell.events.register("pre_run_cell", before_cell)


def install(client, directory: Path) -> None:
    """Run kernel_exporter in the client's kernel when the notebook starts,
    sent as source, leaving no name of its own behind."""
    directory.mkdir(parents=True, exist_ok=True)
    sources = [inspect.getsource(f) for f in (save_figure, kernel_exporter)]
    call = f"kernel_exporter({str(directory)!r}, {EXPORT_DPI}, save_figure)"
    code = "\n\n".join([*sources, call, "del kernel_exporter, save_figure"])

    async def on_start(notebook):
        message = client.kc.execute(code, silent=True, store_history=False)
        reply = await client.async_wait_for_reply(message)
        if reply is None or reply["content"]["status"] != "ok":
            raise RuntimeError("could not install the figure exporter")

    client.on_notebook_start = on_start


def png_dpi(path: Path) -> float | None:
    from PIL import Image

    with Image.open(path) as image:
        return (image.info.get("dpi") or (None,))[0]


def write_index(directory: Path, figures: list, regenerate: str) -> None:
    """README.md from (chapter, label, options) of every labelled figure;
    stale exports removed."""
    labels = {label for _, label, _ in figures}
    for path in directory.iterdir():
        if path.suffix[1:] in FORMATS and path.stem not in labels:
            path.unlink()
    rows = []
    for chapter, label, options in figures:
        caption, alt = (
            " ".join(str(options.get(key, "")).split()).replace("|", "\\|")
            for key in ("fig-cap", "fig-alt")
        )
        rows.append(
            f"| {index_files(label)} | `chapters/{chapter}.qmd` "
            f"| {caption} | {alt} |"
        )
    header = [
        "# Figures",
        "",
        "Every labelled figure of the book, for slides and handouts:",
        f"a PNG at {EXPORT_DPI} dpi and an SVG (vector) of each.",
        f"Generated by `{regenerate}`; do not edit by hand.",
        "",
        "| files | chapter | caption | alt text |",
        "| --- | --- | --- | --- |",
    ]
    text = "\n".join(header + rows) + "\n"
    (directory / "README.md").write_text(text, encoding="utf-8")


def index_files(label: str) -> str:
    return " · ".join(
        f"[`{label}.{suffix}`]({label}.{suffix})" for suffix in FORMATS
    )
