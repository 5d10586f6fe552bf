"""Which Quarto tools/render.sh uses, and installing the pinned one.

tools/quarto.sh runs in a temporary copy of the project with fake `quarto`
and fake `.venv/bin/pip` executables and a PATH of only those and the few
commands the script needs: no network, no real Quarto, no real .venv.
"""

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

PIN_FILE = ROOT / "requirements-render.txt"
PIN = re.search(
    r"^quarto-cli==([0-9.]+)$", PIN_FILE.read_text(encoding="utf-8"), re.M
).group(1)
# What tools/quarto.sh runs besides bash's own builtins.
COMMANDS = "bash cat chmod dirname head rm sed sort"

# A fake pip: `install` puts a quarto reporting $FAKE_INSTALLS into
# .venv/bin (or fails like quarto-cli's build without network when
# FAKE_INSTALLS is empty); `uninstall` removes it. Every call is logged.
FAKE_PIP = """#!/bin/sh
venv=$(dirname "$0")
echo "$*" >> "$venv/../pip.log"
case "$1" in
install)
    if [ -z "$FAKE_INSTALLS" ]; then
        echo "      Error downloading Quarto: <urlopen error [Errno -2]>"
        echo "ERROR: Failed to build installable wheels for quarto-cli"
        exit 1
    fi
    printf '#!/bin/sh\\n%s\\n' "$FAKE_INSTALLS" > "$venv/quarto"
    chmod +x "$venv/quarto" ;;
uninstall)
    rm -f "$venv/quarto" ;;
esac
"""


def write_executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_quarto(folder: Path, version: str) -> Path:
    """A `quarto` in folder whose --version prints version."""
    return write_executable(folder / "quarto", f"#!/bin/sh\necho {version}\n")


@pytest.fixture
def project(tmp_path):
    """A copy of the script, its pin and a .venv with the fake pip."""
    copy = tmp_path / "book"
    (copy / "tools").mkdir(parents=True)
    shutil.copy(ROOT / "tools" / "quarto.sh", copy / "tools")
    shutil.copy(PIN_FILE, copy)
    write_executable(copy / ".venv" / "bin" / "pip", FAKE_PIP)
    system = tmp_path / "system"
    system.mkdir()
    for name in COMMANDS.split():
        (system / name).symlink_to(shutil.which(name))
    return copy


def choose(project, *path, quarto=None, installs=None):
    """Run tools/quarto.sh with only path (and the commands) on PATH."""
    folders = [*path, project.parent / "system"]
    environment = {"PATH": os.pathsep.join(map(str, folders))}
    environment |= {"TMPDIR": str(project.parent)}
    environment |= {"FAKE_INSTALLS": installs or ""}
    environment |= {"QUARTO": str(quarto)} if quarto else {}
    script = [shutil.which("bash"), project / "tools" / "quarto.sh"]
    result = subprocess.run(
        script, env=environment, capture_output=True, text=True
    )
    pip = project / ".venv" / "pip.log"
    calls = pip.read_text().splitlines() if pip.exists() else []
    return result, calls


@pytest.mark.parametrize(
    "on_path, variable, chosen, skipped",
    [
        ([PIN], None, 0, None),
        (["99.9.9-dev"], None, 0, None),
        # Versions compare part by part: 1.10.2 is older than 1.10.19.
        (["1.10.2", PIN], None, 1, 0),
        (["1.11.0"], "1.5.57", "variable", None),  # $QUARTO wins
    ],
)
def test_the_first_quarto_new_enough_is_used(
    project, on_path, variable, chosen, skipped
):
    found = [
        fake_quarto(project.parent / f"q{n}", version)
        for n, version in enumerate(on_path)
    ]
    mine = variable and fake_quarto(project.parent / "mine", variable)
    result, pip = choose(project, *[q.parent for q in found], quarto=mine)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{mine if mine else found[chosen]}\n"
    if skipped is not None:
        assert f"skipping {found[skipped]}, older than" in result.stderr
    assert pip == []


def test_pinned_quarto_is_installed_into_venv_once(project):
    old = fake_quarto(project.parent / "old", "1.6.40")
    result, pip = choose(project, old.parent, installs=f"echo {PIN}")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{project / '.venv' / 'bin' / 'quarto'}\n"
    # Only quarto-cli, as pinned: requirements.txt pins its dependencies.
    assert len(pip) == 1 and pip[0].startswith("install ")
    assert "--no-deps -r requirements-render.txt" in pip[0]
    again, pip = choose(project, old.parent, installs=f"echo {PIN}")
    assert again.stdout == result.stdout and len(pip) == 1


def test_failed_install_says_how_to_install_by_hand(project):
    installed = project / ".venv" / "bin"
    before = sorted(installed.iterdir())
    result, pip = choose(project)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "quarto.org/docs/get-started" in result.stderr
    assert "bash tools/test.sh" in result.stderr
    # A quarto that installs but does not run is taken out again.
    result, pip = choose(project, installs="exit 1")
    assert result.returncode == 2
    assert [call.split()[0] for call in pip[-2:]] == ["install", "uninstall"]
    assert sorted(installed.iterdir()) == before, ".venv changed"


def test_pin_is_written_once():
    """Only requirements-render.txt names the version; CI reads it."""
    result = subprocess.run(
        ["bash", ROOT / "tools" / "quarto.sh", "--pin"],
        capture_output=True,
        text=True,
    )
    assert result.stdout == f"{PIN}\n"
    for path in [
        ROOT / "README.md",
        ROOT / "requirements.txt",
        *ROOT.glob("tools/*.sh"),
        *ROOT.glob(".github/workflows/*.yml"),
    ]:
        text = path.read_text(encoding="utf-8")
        assert PIN not in text, f"{path.relative_to(ROOT)} repeats {PIN}"
    workflow = ROOT / ".github" / "workflows" / "book.yml"
    steps = yaml.safe_load(workflow.read_text())["jobs"]["render"]["steps"]
    reads = [s for s in steps if "tools/quarto.sh --pin" in s.get("run", "")]
    setup = [s for s in steps if "quarto-actions/setup" in s.get("uses", "")]
    assert len(reads) == 1 and len(setup) == 1
    output = "steps." + reads[0]["id"] + ".outputs.version"
    assert setup[0]["with"]["version"] == "${{ " + output + " }}"
