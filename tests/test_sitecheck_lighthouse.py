"""tools/sitecheck/lighthouse.mjs: which Lighthouse score a page gets.

A fake Lighthouse returns scripted performance scores, one per run, so
this needs Node.js but neither Chromium nor the site check's packages.
"""

import json
import shutil
import subprocess

import pytest
from conftest import ROOT

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not on PATH: install Node.js"
)
FAKE_RUNS = """
import {{ lighthouseCheck }} from {module};
const scores = {scores};
let runs = 0;
const lighthouse = async () => ({{ lhr: {{
  audits: {{}},
  categories: {{
    performance: {{ score: scores[runs++] }},
    accessibility: {{ score: 1 }},
  }},
  configSettings: {{ formFactor: "mobile" }},
}} }});
const browser = {{ newPage: async () => ({{ close: async () => {{}} }}) }};
const result = await lighthouseCheck(lighthouse, browser, "http://x", "p", {{
  minPerformance: 0.95, minAccessibility: 1, hosts: false,
}});
console.log(JSON.stringify({{ ...result, runs }}));
"""


def checked(scores: list[float]) -> dict:
    module = json.dumps(str(ROOT / "tools" / "sitecheck" / "lighthouse.mjs"))
    script = FAKE_RUNS.format(module=module, scores=json.dumps(scores))
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def test_a_score_at_the_floor_is_measured_once():
    result = checked([0.95, 0.5])
    assert result["runs"] == 1
    assert result["performance"] == "0.95"
    assert result["problems"] == []


def test_a_score_below_it_is_the_median_of_five_runs():
    passed = checked([0.89, 0.97, 0.96, 0.92, 0.98])
    assert passed["runs"] == 5
    assert passed["performance"] == "0.96 (5 runs)"
    assert passed["problems"] == []
    failed = checked([0.89, 0.91, 0.97, 0.93, 0.99])
    assert failed["problems"] == [
        "Lighthouse performance 0.93 (the median of 5 runs: 0.89, 0.91, "
        "0.97, 0.93, 0.99) is below 0.95"
    ]
