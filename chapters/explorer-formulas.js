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

// The precisions of training the cost explorer offers, and what each
// models (the systems chapter's training_state_bytes and
// saved_activation_bytes):
//   float32: every tensor in float32;
//   "bfloat16 + float32 master": a bfloat16 copy of the model runs the
//     passes, so every activation is bfloat16, and Adam updates a float32
//     master copy of the weights (the scheme of Micikevicius et al. 2018,
//     with bfloat16 in place of float16);
//   "autocast bfloat16": torch.autocast, float32 weights and gradients
//     with the matrix products in bfloat16; the residual stream stays
//     float32 (autocastSavedActivationBytes).
// dtype: the dtype of the weights (and of the block's parameter bytes);
// input: the dtype of the block input, the residual stream (float32 under
// autocast); activations: the dtype of the FFN hidden tensor, the
// attention weights and the key-value cache; master: whether
// trainingStateBytes adds a float32 master copy; autocast: which
// saved-activation formula applies.
export const PRECISIONS = {
  float32: {
    dtype: "float32",
    input: "float32",
    activations: "float32",
    master: false,
    autocast: false,
  },
  "bfloat16 + float32 master": {
    dtype: "bfloat16",
    input: "bfloat16",
    activations: "bfloat16",
    master: true,
    autocast: false,
  },
  "autocast bfloat16": {
    dtype: "float32",
    input: "float32",
    activations: "bfloat16",
    master: false,
    autocast: true,
  },
};

// Bytes of the activations one forward pass of the block produces that
// grow fastest: the FFN hidden tensor (B, S, Dff) and the attention
// weights (B, H, S, S); beside them the block input (B, S, D), which the
// output matches in size. bytesPerElement: see BYTES_PER_ELEMENT;
// inputBytesPerElement, for the block input, defaults to it (under
// autocast the input is float32 and the other two bfloat16).
export function activationBytes(
  B,
  S,
  D,
  Dff,
  H,
  bytesPerElement,
  inputBytesPerElement = bytesPerElement,
) {
  const elements = {
    input: B * S * D,
    ffnHidden: B * S * Dff,
    attentionScores: B * H * S * S,
  };
  return {
    elements,
    input: elements.input * inputBytesPerElement,
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

// Bytes of one block's key-value cache after S positions of each of B
// sequences: a key and a value of D / H features for each of KV key-value
// heads (KV = H: multi-head attention; KV = 1: multi-query attention;
// in between: grouped-query attention). The systems chapter's
// kv_cache_bytes; 2 B S D bytes-per-element at KV = H.
export function kvCacheBytes(B, S, D, H, KV, bytesPerElement) {
  return 2 * B * S * Math.floor(D / H) * KV * bytesPerElement;
}

// Bytes of training state for P parameters with Adam: the weights, their
// gradients and Adam's two moments (float32, and under autocast too, whose
// float32 weights are the master copy), and, with mixed = true, 16-bit
// weights and gradients beside a float32 master copy. Either way 16 bytes
// per parameter. The systems chapter's training_state_bytes.
export function trainingStateBytes(P, mixed) {
  const low = mixed ? 2 : 4;
  const weights = low * P;
  const gradients = low * P;
  const master = mixed ? 4 * P : 0;
  const adam = 2 * 4 * P;
  return {
    weights,
    gradients,
    master,
    adam,
    total: weights + gradients + master + adam,
  };
}

// Bytes autograd saves for the backward pass of one pre-norm block in
// training, with attention fused (scaled_dot_product_attention with
// is_causal=True, as the systems chapter's explicit_forward with
// fused_attention), per token:
//   8 D: the block input, the first norm's output, the queries, keys and
//     values, the attention output, H and the second norm's output;
//   2 Dff: the FFN hidden tensor before and after the activation;
//   4: the mean and reciprocal standard deviation of each layer norm;
// all at bytesPerElement, and H numbers per token (the log of each head's
// softmax denominator) that the kernel keeps in float32 whatever the dtype.
// Nothing grows with S^2: the S x S weights are never stored.
export function savedActivationBytes(B, S, D, Dff, H, bytesPerElement) {
  const perToken = (8 * D + 2 * Dff + 4) * bytesPerElement + 4 * H;
  return B * S * perToken;
}

// The same bytes under torch.autocast with bfloat16 (the systems chapter's
// saved_activation_bytes(..., "autocast")), per token:
//   2 D at 4 bytes: the block input X and the sum H, which the layer
//     norms save, stay float32 (the residual stream is float32);
//   6 D at 2 bytes: the norms' outputs as the bfloat16 copies the
//     projections make of them, the queries, keys, values and the
//     attention output;
//   2 Dff at 2 bytes: the FFN hidden tensor before and after the
//     activation;
//   4 + H numbers at 4 bytes: the norms' statistics and the kernel's log
//     of each head's softmax denominator;
// and once per forward pass the bfloat16 copies autocast makes of the four
// attention and two FFN weight matrices, 2 (4 D^2 + 2 D Dff) bytes.
export function autocastSavedActivationBytes(B, S, D, Dff, H) {
  const perToken = 4 * 2 * D + 2 * (6 * D + 2 * Dff) + 4 * (4 + H);
  return B * S * perToken + 2 * (4 * D * D + 2 * D * Dff);
}
