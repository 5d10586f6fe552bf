"""The kernel hook exports each labelled figure as the cell shows it.

(That the exports are byte-identical on any machine:
test_regenerate_cli.py, a fresh clone; their 300 dpi: test_checker.py.)
"""

from tools.export import figures as figure_export


def test_kernel_hook_exports_the_first_figure_silently(tmp_path):
    # A two-cell notebook like a chapter's opening: the style cell imports
    # pyplot, and the very next cell is a labelled figure (matplotlib picks
    # its inline backend only there, in the middle of the cell).
    import nbformat
    from nbclient import NotebookClient

    cells = [
        "import matplotlib.pyplot as plt",
        "#| label: fig-first\nplt.plot([0, 1])\nplt.show()",
        "plt.plot([1, 0])\nplt.show()",  # unlabelled: not exported
        "print([n for n in dir() if n in ('save_figure', 'kernel_exporter')])",
    ]
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in cells]
    )
    client = NotebookClient(notebook, timeout=60, kernel_name="python3")
    figure_export.install(client, tmp_path)
    client.execute()
    exported = sorted(path.name for path in tmp_path.iterdir())
    assert exported == ["fig-first.png", "fig-first.svg"]
    assert notebook.cells[3].outputs[0].text == "[]\n", "names left"
    counts = [cell.execution_count for cell in notebook.cells]
    assert counts == [1, 2, 3, 4], "the hook must not take an execution count"
    for cell in notebook.cells:
        for output in cell.outputs:
            assert "image/svg+xml" not in output.get("data", {})
