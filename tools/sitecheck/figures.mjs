// A figure that glares in the dark scheme: drawn dark on light, as the
// book's figures are, and shown as drawn, a white box on the dark page.
// The book's dark theme inverts them (tools/site/dark.scss); this finds a
// figure the rule misses, or a page without it.

// In the page: one sentence for each light figure shown uninverted.
async function uninvertedLightFigures() {
  const canvas = document.createElement("canvas");
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const problems = [];
  for (const image of document.querySelectorAll("figure img")) {
    if (image.getClientRects().length === 0) continue; // not shown
    await image.decode().catch(() => {});
    if (!image.naturalWidth) continue; // a broken image: the links say so
    // Its mean lightness as drawn, transparent parts counted as white.
    canvas.width = 64;
    canvas.height = 64;
    context.fillStyle = "#fff";
    context.fillRect(0, 0, 64, 64);
    context.drawImage(image, 0, 0, 64, 64);
    const pixels = context.getImageData(0, 0, 64, 64).data;
    let sum = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      sum += 0.2126 * pixels[i] + 0.7152 * pixels[i + 1];
      sum += 0.0722 * pixels[i + 2];
    }
    const lightness = sum / (pixels.length / 4) / 255;
    const filter = getComputedStyle(image).filter;
    const amount = /invert\(([\d.]+)\)/.exec(filter);
    if (lightness > 0.5 && !(amount && Number(amount[1]) >= 0.5)) {
      const name = image.getAttribute("src").split("/").pop();
      problems.push(
        `in the dark scheme the figure ${name} is shown as drawn, ` +
          `light (mean lightness ${lightness.toFixed(2)}) on the dark page`,
      );
    }
  }
  return problems;
}

export async function glaringFigures(page) {
  return page.evaluate(uninvertedLightFigures);
}
