// Formulas behind the interactive explorers on the website.
//
// The explorers (website-only {ojs} cells in chapters/mechanics.qmd and
// chapters/systems.qmd) import these pure functions in their {ojs} cells, and
// tests/test_explorers.py runs the same functions with Node and compares
// them with PyTorch and with the formulas of the mechanics and systems
// chapters. Change a formula here and the test tells you whether the book
// still agrees with it.
//
// Names follow the book: D the width, Dff the feed-forward width, H the
// number of heads, S the sequence length, B the batch size.

// Layer normalisation of one token z (an array of numbers), without the
// affine parameters (gain 1, bias 0), as torch.nn.functional.layer_norm:
// the variance is the biased one (divide by the number of features).
export function layerNorm(z, eps = 1e-5) {
  const n = z.length;
  const mean = z.reduce((sum, v) => sum + v, 0) / n;
  const variance = z.reduce((sum, v) => sum + (v - mean) ** 2, 0) / n;
  const scale = Math.sqrt(variance + eps);
  const normalised = z.map((v) => (v - mean) / scale);
  return { mean, variance, normalised };
}

// Parameters of one pre-norm block with biases everywhere:
// attention: query, key, value and output projections, 4 D^2 weights and
//   4 D biases (what torch.nn.MultiheadAttention(D, H) holds);
// ffn: Linear(D, Dff) and Linear(Dff, D), 2 D Dff weights, Dff + D biases;
// norms: two LayerNorms, each a gain and a bias of width D, 4 D.
// The head count does not change the count: the heads split D.
export function blockParameters(D, Dff) {
  const attention = 4 * D * D + 4 * D;
  const ffn = 2 * D * Dff + Dff + D;
  const norms = 4 * D;
  return {
    attention,
    ffn,
    norms,
    total: attention + ffn + norms,
    // The approximations the systems chapter starts from.
    attentionApprox: 4 * D * D,
    ffnApprox: 2 * D * Dff,
  };
}

// Bytes per element of the dtypes the cost explorer offers.
export const BYTES_PER_ELEMENT = { float32: 4, bfloat16: 2 };

// Bytes of the activations one forward pass of the block produces that
// grow fastest: the FFN hidden tensor (B, S, Dff) and the attention
// weights (B, H, S, S); beside them the block input (B, S, D), which the
// output matches in size. bytesPerElement: see BYTES_PER_ELEMENT.
export function activationBytes(B, S, D, Dff, H, bytesPerElement) {
  const elements = {
    input: B * S * D,
    ffnHidden: B * S * Dff,
    attentionScores: B * H * S * S,
  };
  return {
    elements,
    input: elements.input * bytesPerElement,
    ffnHidden: elements.ffnHidden * bytesPerElement,
    attentionScores: elements.attentionScores * bytesPerElement,
    total: (elements.ffnHidden + elements.attentionScores) * bytesPerElement,
  };
}

// Floating-point operations of one block on one sequence of length S,
// counting a multiply-add as 2 FLOPs and leaving out the small terms
// (biases, softmax, norms):
// projections: query, key, value and output, 4 matmuls of 2 S D^2;
// ffn: two matmuls of 2 S D Dff (16 S D^2 when Dff = 4 D);
// attention: scores Q K^T and the weighted sum of values, 2 S^2 D each.
export function blockFlops(S, D, Dff) {
  const projections = 8 * S * D * D;
  const ffn = 4 * S * D * Dff;
  const attention = 4 * S * S * D;
  const terms = { projections, ffn, attention };
  const dominant = Object.keys(terms).reduce((a, b) =>
    terms[b] > terms[a] ? b : a,
  );
  return {
    projections,
    ffn,
    attention,
    total: projections + ffn + attention,
    dominant,
  };
}

// Sequence lengths past which the quadratic attention term is larger than
// the FFN (4 S^2 D > 4 S D Dff, so S > Dff: S = 4 D at Dff = 4 D) and
// larger than all dense work (S > 2 D + Dff: S = 6 D at Dff = 4 D).
export function crossovers(D, Dff) {
  return { attentionOverFfn: Dff, attentionOverDense: 2 * D + Dff };
}
