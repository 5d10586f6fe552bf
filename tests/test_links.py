"""Every chapter page links its notebook (download, Colab) and source."""

import pytest
from conftest import ROOT

from tools.source import book as bookfiles
from tools.source import links, qmd

CHAPTERS = bookfiles.notebook_chapters(ROOT)


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_links_are_built_from_repo_url(name):
    metadata = qmd.parse(ROOT / "chapters" / f"{name}.qmd").metadata
    want = links.expected(ROOT, name)
    for key in links.KEYS:
        assert metadata.get(key) == want[key], (
            f"chapters/{name}.qmd: its {key} are not the ones built from "
            "book: repo-url in _quarto.yml: run "
            f"`{bookfiles.REGENERATE} {name}`"
        )
    href = want["other-links"][0]["href"]  # the download link
    target = (ROOT / "chapters" / href).resolve()
    assert target == (ROOT / "notebooks" / f"{name}.ipynb").resolve()
    assert target.exists(), f"{href} from chapters/{name}.qmd is missing"


def test_site_url_is_where_the_workflow_publishes_the_site():
    # Quarto writes site-url into 404.html and the notebooks link there: it
    # is where the deploy workflow publishes, repo-url's GitHub Pages.
    config = qmd.load_yaml((ROOT / "_quarto.yml").read_text("utf-8"))
    owner, name = links.repo_url(ROOT).split("/")[-2:]
    pages = f"https://{owner.lower()}.github.io/{name}/"
    assert config["book"]["site-url"] == pages, (
        "_quarto.yml: book: site-url is not the GitHub Pages address of "
        f"book: repo-url, {pages}"
    )


def test_every_page_names_both_licences_in_the_repository():
    config = bookfiles.quarto_config(ROOT)
    footer = config["book"]["page-footer"]["center"]
    repo = links.repo_url(ROOT)
    hrefs = [item["href"] for item in footer]
    licences = ("LICENSE", "LICENSE-CODE")
    assert hrefs == [f"{repo}/blob/main/{f}" for f in licences], hrefs
    for name in licences:
        assert (ROOT / name).is_file(), f"{name} is missing"
