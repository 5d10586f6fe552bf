"""The explorers' formulas agree with PyTorch and with the systems chapter.

The website's explorers (the {ojs} cells of the mechanics and systems
chapters) compute with chapters/explorer-formulas.js. Its functions, run by
Node, are compared with real PyTorch modules, tensors, autograd and Adam,
with the systems chapter's formulas (8·S·D², 16·S·D² at D_ff = 4D,
4·S²·D) and with its own `cost-formulas` cell, run alone.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from dataclasses import astuple, dataclass

import pytest
import torch
import torch.nn.functional as F
from conftest import ROOT
from torch import nn

from tools.source import qmd

FORMULAS = ROOT / "chapters" / "explorer-formulas.js"
SYSTEMS = "chapters/systems.qmd"
SYSTEMS_CELL = "cost-formulas"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None,
    reason="node is not on PATH: install Node.js to check the formulas "
    "of chapters/explorer-formulas.js against PyTorch",
)


@dataclass(frozen=True)
class Sizes:
    """One configuration of a block, named as in the book."""

    D: int  # width
    Dff: int  # feed-forward width
    H: int  # heads
    S: int  # sequence length
    B: int  # batch size

    def __str__(self) -> str:
        return "D{}-Dff{}-H{}-S{}-B{}".format(*astuple(self))


# (token, epsilon): the explorer's default first, then a constant token
# (variance 0, where epsilon alone keeps the division finite), negative
# and large values, and a large epsilon that visibly shrinks the output.
LAYER_NORM_CASES = [
    ([2.0, 4.0, 5.0, 9.0], 1e-5),
    ([3.0, 3.0, 3.0, 3.0], 1e-5),
    ([-3.5, 0.25, 7.0, 100.0], 1e-3),
    ([0.1, 0.2, 0.3, 0.4], 1.0),
    ([-1.0, 1.0, -1.0, 1.0], 0.0),
]

# Small enough for real forward passes in milliseconds; the parameter
# counts are also checked at full size below (on the meta device).
COST_CASES = [
    Sizes(D=8, Dff=32, H=2, S=5, B=2),
    Sizes(D=6, Dff=24, H=3, S=4, B=2),
    Sizes(D=16, Dff=40, H=4, S=48, B=3),
    Sizes(D=64, Dff=256, H=8, S=300, B=1),
    Sizes(D=768, Dff=3072, H=12, S=16, B=1),
]
PARAMETER_CASES = [
    *COST_CASES,
    Sizes(D=128, Dff=512, H=4, S=1, B=1),
    Sizes(D=1024, Dff=4096, H=16, S=1, B=1),
    Sizes(D=4096, Dff=11008, H=32, S=1, B=1),
]
DTYPES = ("float32", "bfloat16")


@functools.cache
def dtype_bytes() -> dict[str, int]:
    """Bytes per element of each of DTYPES, as torch stores them."""
    return {
        name: torch.empty(0, dtype=getattr(torch, name)).element_size()
        for name in DTYPES
    }


# Lengths for the FLOPs formulas: below, at and above S = 4D and S = 6D.
FLOP_CASES = [
    (S, D, 4 * D)
    for D in (64, 768)
    for S in (1, 4 * D - 1, 4 * D, 4 * D + 1, 6 * D - 1, 6 * D + 1, 8 * D)
]


def kv_choices(sizes: Sizes) -> list[int]:
    """Key-value heads to try: all heads, half of them, and one."""
    return sorted({sizes.H, max(1, sizes.H // 2), 1}, reverse=True)


KV_CASES = [(s, kv) for s in COST_CASES for kv in kv_choices(s)]
# Small enough to build a block and run Adam or autograd in milliseconds.
SAVED_CASES = COST_CASES[:4]
STATE_CASES = COST_CASES[:3]


def state_parameters(sizes: Sizes) -> int:
    """Parameters of adam_state_bytes' model: a norm and an FFN."""
    return 2 * sizes.D * sizes.Dff + sizes.Dff + 3 * sizes.D


def js_calls() -> list:
    """Every call the tests make, evaluated in one Node process."""
    calls = [["layerNorm", [z, eps]] for z, eps in LAYER_NORM_CASES]
    calls += [["blockParameters", [s.D, s.Dff]] for s in PARAMETER_CASES]
    for sizes in COST_CASES:
        for nbytes in dtype_bytes().values():
            calls.append(["activationBytes", activation_args(sizes, nbytes)])
        # Under autocast: bfloat16 activations beside a float32 input.
        autocast_args = activation_args(sizes, dtype_bytes()["bfloat16"])
        calls.append(
            ["activationBytes", [*autocast_args, dtype_bytes()["float32"]]]
        )
        calls.append(["blockFlops", [sizes.S, sizes.D, sizes.Dff]])
    calls += [["blockFlops", list(case)] for case in FLOP_CASES]
    calls += [["crossovers", [D, 4 * D]] for D in (64, 768)]
    for nbytes in dtype_bytes().values():
        calls += [
            ["kvCacheBytes", [s.B, s.S, s.D, s.H, kv, nbytes]]
            for s, kv in KV_CASES
        ]
        calls += [
            ["savedActivationBytes", activation_args(s, nbytes)]
            for s in SAVED_CASES
        ]
    calls += [
        ["autocastSavedActivationBytes", activation_args(s, 0)[:5]]
        for s in SAVED_CASES
    ]
    for sizes in STATE_CASES:
        calls += [
            ["trainingStateBytes", [state_parameters(sizes), mixed]]
            for mixed in (False, True)
        ]
    return calls


def activation_args(sizes: Sizes, nbytes: int) -> list[int]:
    """The arguments of activationBytes for one configuration."""
    return [sizes.B, sizes.S, sizes.D, sizes.Dff, sizes.H, nbytes]


def run_node(calls: list) -> list:
    """Results of `calls` ([name, args] pairs) from explorer-formulas.js."""
    script = (
        f"import * as formulas from {json.dumps(FORMULAS.as_uri())};\n"
        f"const calls = {json.dumps(calls)};\n"
        "const results = calls.map(([name, args]) =>\n"
        "  typeof formulas[name] === 'function'\n"
        "    ? formulas[name](...args) : formulas[name]);\n"
        "console.log(JSON.stringify(results));\n"
    )
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, (
        f"chapters/explorer-formulas.js failed in Node:\n{result.stderr}"
    )
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def js():
    """`js(name, *args)`: what explorer-formulas.js returns for that call."""
    calls = [*js_calls(), ["BYTES_PER_ELEMENT", []], ["PRECISIONS", []]]
    results = {
        json.dumps(call): value
        for call, value in zip(calls, run_node(calls), strict=True)
    }

    def call(name, *args):
        key = json.dumps([name, list(args)])
        if key not in results:  # a call js_calls() does not list
            results[key] = run_node([[name, list(args)]])[0]
        return results[key]

    return call


@pytest.fixture(scope="module")
def systems():
    """The namespace of the systems chapter's cost-formulas cell."""
    cells = [
        chunk
        for chunk in qmd.parse(ROOT / SYSTEMS).chunks()
        if chunk.options.get("label") == SYSTEMS_CELL
    ]
    assert cells, f"{SYSTEMS} has no cell labelled {SYSTEMS_CELL}"
    namespace: dict = {}
    source = cells[0].source
    exec(compile(source, f"{SYSTEMS}:{SYSTEMS_CELL}", "exec"), namespace)
    return namespace


# --------------------------------------------------------------- layer norm


@pytest.mark.parametrize(("z", "eps"), LAYER_NORM_CASES, ids=str)
def test_layer_norm_matches_torch(js, z, eps):
    result = js("layerNorm", z, eps)
    x = torch.tensor(z, dtype=torch.float64)
    expected = F.layer_norm(x, (len(z),), eps=eps)
    where = f"chapters/explorer-formulas.js: layerNorm({z}, {eps})"
    assert result["mean"] == pytest.approx(float(x.mean()), abs=1e-12), where
    variance = float(x.var(unbiased=False))
    assert result["variance"] == pytest.approx(variance, abs=1e-12), where
    assert result["normalised"] == pytest.approx(
        expected.tolist(), abs=1e-9
    ), where
    if (z, eps) == LAYER_NORM_CASES[0]:  # the numbers the book quotes
        assert (result["mean"], result["variance"]) == (5.0, 6.5), where
        rounded = [round(v, 3) + 0.0 for v in result["normalised"]]
        assert rounded == [-1.177, -0.392, 0.0, 1.569], where


# --------------------------------------------------------------- parameters


def parameter_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def weight_count(module: nn.Module) -> int:
    """Parameters of the matrices alone (no biases, no norm gains)."""
    return sum(p.numel() for p in module.parameters() if p.dim() == 2)


@pytest.mark.parametrize("sizes", PARAMETER_CASES, ids=str)
def test_block_parameters_match_real_modules(js, systems, sizes):
    # The meta device gives exact counts without allocating the weights.
    with torch.device("meta"):
        attention = nn.MultiheadAttention(sizes.D, sizes.H, batch_first=True)
        ffn = nn.Sequential(
            nn.Linear(sizes.D, sizes.Dff),
            nn.GELU(),
            nn.Linear(sizes.Dff, sizes.D),
        )
        norms = nn.ModuleList([nn.LayerNorm(sizes.D), nn.LayerNorm(sizes.D)])
    result = js("blockParameters", sizes.D, sizes.Dff)
    expected = {
        "attention": parameter_count(attention),
        "ffn": parameter_count(ffn),
        "norms": parameter_count(norms),
        "attentionApprox": weight_count(attention),
        "ffnApprox": weight_count(ffn),
    }
    expected["total"] = (
        expected["attention"] + expected["ffn"] + expected["norms"]
    )
    assert result == expected, (
        f"chapters/explorer-formulas.js: blockParameters({sizes.D}, "
        f"{sizes.Dff}) differs from the PyTorch modules"
    )
    where = f"{SYSTEMS} ({SYSTEMS_CELL}): parameters for {sizes} differ"
    exact = systems["exact_parameter_counts"](sizes.D, sizes.Dff)
    assert exact == {k: result[k] for k in ("attention", "ffn", "norms")}, (
        where
    )
    approximate = systems["parameter_counts"](sizes.D, sizes.Dff)
    assert approximate == {
        "attention": result["attentionApprox"],
        "ffn": result["ffnApprox"],
    }, where


# ------------------------------------------------------- activation memory


def tensor_bytes(tensor: torch.Tensor) -> int:
    return tensor.numel() * tensor.element_size()


@pytest.mark.parametrize("mode", [*DTYPES, "autocast"])
@pytest.mark.parametrize("sizes", COST_CASES, ids=str)
def test_activation_bytes_match_real_tensors(js, systems, sizes, mode):
    """Under torch.autocast the block input (the residual stream) stays
    float32 while the FFN hidden tensor and the attention weights are
    bfloat16: the autocast precision prices each in its own dtype."""
    autocast = mode == "autocast"
    precision = js("PRECISIONS")["autocast bfloat16"] if autocast else {}
    kind = getattr(torch, precision.get("dtype", mode))
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(
        sizes.D, sizes.H, batch_first=True, dtype=kind
    )
    ffn_in = nn.Linear(sizes.D, sizes.Dff, dtype=kind)
    X = torch.randn(sizes.B, sizes.S, sizes.D, dtype=kind)
    with (
        torch.no_grad(),
        torch.autocast("cpu", torch.bfloat16, enabled=autocast),
    ):
        _, weights = attention(
            X, X, X, need_weights=True, average_attn_weights=False
        )  # (B, H, S, S)
        hidden = ffn_in(X)  # (B, S, Dff)
    where = f"chapters/explorer-formulas.js: activationBytes for {sizes}"
    activations = precision.get("activations", mode)
    assert X.dtype == getattr(torch, precision.get("input", mode)), where
    assert hidden.dtype == weights.dtype == getattr(torch, activations)
    nbytes = dtype_bytes()[activations]
    extra = [dtype_bytes()[precision["input"]]] if autocast else []
    result = js("activationBytes", *activation_args(sizes, nbytes), *extra)
    assert result["elements"] == {
        "input": X.numel(),
        "ffnHidden": hidden.numel(),
        "attentionScores": weights.numel(),
    }, where
    assert result["input"] == tensor_bytes(X), where
    assert result["ffnHidden"] == tensor_bytes(hidden), where
    assert result["attentionScores"] == tensor_bytes(weights), where
    assert result["total"] == tensor_bytes(hidden) + tensor_bytes(weights), (
        where
    )
    chapter = systems["activation_bytes"](
        sizes.B, sizes.S, sizes.Dff, sizes.H, nbytes
    )
    assert chapter == {
        "ffn_hidden": result["ffnHidden"],
        "attention_scores": result["attentionScores"],
    }, f"{where}: differs from {SYSTEMS} ({SYSTEMS_CELL})"


# -------------------------------------------------------------------- FLOPs


@pytest.mark.parametrize("sizes", COST_CASES, ids=str)
def test_block_flops_match_real_modules(js, sizes):
    # One sequence (B = 1): the formulas count FLOPs per sequence, a
    # multiply-add as 2 FLOPs.
    attention = nn.MultiheadAttention(sizes.D, sizes.H, batch_first=True)
    ffn = nn.Sequential(
        nn.Linear(sizes.D, sizes.Dff), nn.GELU(), nn.Linear(sizes.Dff, sizes.D)
    )
    X = torch.randn(1, sizes.S, sizes.D)
    with torch.no_grad():
        _, weights = attention(
            X, X, X, need_weights=True, average_attn_weights=False
        )  # (1, H, S, S)
    # A token passing through a weight matrix costs one multiply-add per
    # weight; each attention weight is one dot product of length head_dim
    # (Q K^T) and scales one value row of that length (weights V).
    expected = {
        "projections": 2 * sizes.S * weight_count(attention),
        "ffn": 2 * sizes.S * weight_count(ffn),
        "attention": 2 * 2 * weights.numel() * attention.head_dim,
    }
    result = js("blockFlops", sizes.S, sizes.D, sizes.Dff)
    where = f"chapters/explorer-formulas.js: blockFlops for {sizes}"
    assert {key: result[key] for key in expected} == expected, where
    assert result["total"] == sum(expected.values()), where


@pytest.mark.parametrize(("S", "D", "Dff"), FLOP_CASES, ids=str)
def test_block_flops_match_the_systems_formulas(js, systems, S, D, Dff):
    result = js("blockFlops", S, D, Dff)
    where = f"chapters/explorer-formulas.js: blockFlops({S}, {D}, {Dff})"
    projections = 8 * S * D**2
    ffn = 16 * S * D**2  # D_ff = 4D
    attention = 4 * S**2 * D
    assert result["projections"] == projections, where
    assert result["ffn"] == ffn, where
    assert result["attention"] == attention, where
    assert result["total"] == projections + ffn + attention, where
    terms = {"projections": projections, "ffn": ffn, "attention": attention}
    assert result["dominant"] == max(terms, key=terms.get), where
    # The quadratic term overtakes the FFN past S = 4D and all dense work
    # past S = 6D.
    assert (attention > ffn) == (S > 4 * D), where
    assert (attention > projections + ffn) == (S > 6 * D), where
    assert js("crossovers", D, Dff) == {
        "attentionOverFfn": 4 * D,
        "attentionOverDense": 6 * D,
    }, where
    flops = systems["block_flops"](1, S, D, Dff)  # one sequence
    where = f"{SYSTEMS} ({SYSTEMS_CELL}): FLOPs for S={S}, D={D} differ"
    assert flops == {key: result[key] for key in terms}, where
    assert systems["dominant_term"](flops) == result["dominant"], where
    assert systems["crossover_lengths"](D, Dff) == {
        "ffn": 4 * D,
        "dense": 6 * D,
    }, where


# ----------------------------------- memory for training and for inference


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("sizes", "KV"), KV_CASES, ids=str)
def test_kv_cache_bytes_match_real_projections(js, systems, sizes, KV, dtype):
    # The cache holds what the key and value projections write: KV heads
    # of D / H features each, for every position of every sequence.
    torch.manual_seed(0)
    kind = getattr(torch, dtype)
    head = sizes.D // sizes.H
    project = nn.Linear(sizes.D, 2 * KV * head, dtype=kind)
    X = torch.randn(sizes.B, sizes.S, sizes.D, dtype=kind)
    with torch.no_grad():
        keys, values = project(X).chunk(2, dim=-1)  # (B, S, KV * head)
    nbytes = dtype_bytes()[dtype]
    result = js("kvCacheBytes", sizes.B, sizes.S, sizes.D, sizes.H, KV, nbytes)
    where = f"kvCacheBytes for {sizes}, {KV} key-value heads, {dtype}"
    assert result == tensor_bytes(keys) + tensor_bytes(values), where
    chapter = systems["kv_cache_bytes"](
        sizes.B, sizes.S, sizes.D, nbytes, heads=sizes.H, kv_heads=KV
    )
    assert result == chapter, f"{where}: differs from {SYSTEMS}"


def adam_state_bytes(sizes: Sizes, mixed: bool) -> dict[str, int]:
    """Weights, gradients, master copy and Adam moments after one step."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.LayerNorm(sizes.D),
        nn.Linear(sizes.D, sizes.Dff),
        nn.GELU(),
        nn.Linear(sizes.Dff, sizes.D),
    )
    if mixed:
        model = model.to(torch.bfloat16)
    master = [p.detach().float().requires_grad_() for p in model.parameters()]
    optimizer = torch.optim.Adam(master if mixed else model.parameters())
    X = torch.randn(sizes.B, sizes.S, sizes.D, dtype=model[1].weight.dtype)
    model(X).sum().backward()
    if mixed:
        for p, p_low in zip(master, model.parameters(), strict=True):
            p.grad = p_low.grad.float()
    optimizer.step()
    moments = [T for state in optimizer.state.values() for T in state.values()]
    return {
        "weights": sum(tensor_bytes(p) for p in model.parameters()),
        "gradients": sum(tensor_bytes(p.grad) for p in model.parameters()),
        "master": sum(tensor_bytes(p) for p in master) if mixed else 0,
        "adam": sum(tensor_bytes(T) for T in moments if T.dim() > 0),
    }


@pytest.mark.parametrize("mixed", [False, True], ids=["float32", "mixed"])
@pytest.mark.parametrize("sizes", STATE_CASES, ids=str)
def test_training_state_matches_adam(js, systems, sizes, mixed):
    measured = adam_state_bytes(sizes, mixed)
    P = state_parameters(sizes)
    result = js("trainingStateBytes", P, mixed)
    where = f"trainingStateBytes for {sizes}, mixed={mixed}"
    assert {k: result[k] for k in measured} == measured, where
    assert result["total"] == sum(measured.values()) == 16 * P, where
    chapter = systems["training_state_bytes"](P, mixed)
    assert list(chapter.values()) == list(measured.values()), (
        f"{where}: differs from {SYSTEMS}"
    )


def fused_block_saved_bytes(sizes: Sizes, kind, autocast=False) -> int:
    """Bytes autograd saves in a pre-norm block with fused attention.

    With autocast, the float32 block runs under torch.autocast with
    bfloat16, whose weight copies are saved tensors like any other.
    """
    torch.manual_seed(0)
    B, S, D, H = sizes.B, sizes.S, sizes.D, sizes.H
    norm_attn, norm_ffn = nn.LayerNorm(D), nn.LayerNorm(D)
    qkv, out = nn.Linear(D, 3 * D), nn.Linear(D, D)
    up, down = nn.Linear(D, sizes.Dff), nn.Linear(sizes.Dff, D)
    parts = nn.ModuleList([norm_attn, norm_ffn, qkv, out, up, down]).to(kind)
    weights = {p.untyped_storage().data_ptr() for p in parts.parameters()}
    X = torch.randn(B, S, D, dtype=kind, requires_grad=True)
    storages = {}

    def pack(T):
        if T.untyped_storage().data_ptr() not in weights:
            storages[T.untyped_storage().data_ptr()] = (
                T.untyped_storage().nbytes()
            )
        return T

    with (
        torch.autograd.graph.saved_tensors_hooks(pack, lambda T: T),
        torch.autocast("cpu", torch.bfloat16, enabled=autocast),
    ):
        q, k, v = (
            part.view(B, S, H, D // H).transpose(1, 2)
            for part in qkv(norm_attn(X)).chunk(3, dim=-1)
        )
        mixed = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        Hs = X + out(mixed.transpose(1, 2).reshape(B, S, D))
        Hs + down(F.gelu(up(norm_ffn(Hs))))
    return sum(storages.values())


@pytest.mark.parametrize("mode", [*DTYPES, "autocast"])
@pytest.mark.parametrize("sizes", SAVED_CASES, ids=str)
def test_saved_activation_bytes_match_autograd(js, systems, sizes, mode):
    autocast = mode == "autocast"
    kind = torch.float32 if autocast else getattr(torch, mode)
    measured = fused_block_saved_bytes(sizes, kind, autocast)
    args = activation_args(sizes, 0)[:5]  # B, S, D, Dff, H
    if autocast:
        result = js("autocastSavedActivationBytes", *args)
    else:
        nbytes = dtype_bytes()[mode]
        result = js("savedActivationBytes", *activation_args(sizes, nbytes))
    assert result == measured, (
        f"chapters/explorer-formulas.js: saved activation bytes for {sizes} "
        f"({mode}) are {result:,}; autograd saves {measured:,} bytes"
    )
    assert systems["saved_activation_bytes"](*args, mode) == measured, (
        f"{SYSTEMS} ({SYSTEMS_CELL}): saved_activation_bytes for {sizes} "
        f"({mode}) differs from autograd's {measured:,} bytes"
    )


def test_precisions_say_what_they_model(js):
    """Each precision names dtypes the explorer knows; only one keeps a
    float32 master copy beside 16-bit weights, and only autocast keeps
    float32 weights with bfloat16 activations."""
    assert js("BYTES_PER_ELEMENT") == dtype_bytes(), (
        "chapters/explorer-formulas.js: BYTES_PER_ELEMENT differs from "
        "torch's element_size()"
    )
    precisions = js("PRECISIONS")
    where = "chapters/explorer-formulas.js: PRECISIONS"
    assert set(precisions) == {
        "float32",
        "bfloat16 + float32 master",
        "autocast bfloat16",
    }, where
    for name, mode in precisions.items():
        assert mode["dtype"] in dtype_bytes(), f"{where}[{name!r}]"
        assert mode["activations"] in dtype_bytes(), f"{where}[{name!r}]"
        assert mode["input"] in dtype_bytes(), f"{where}[{name!r}]"
        # A master copy exists exactly when the weights are 16-bit.
        assert mode["master"] == (mode["dtype"] == "bfloat16"), where
    assert precisions["autocast bfloat16"] == {
        "dtype": "float32",
        "input": "float32",
        "activations": "bfloat16",
        "master": False,
        "autocast": True,
    }, where
