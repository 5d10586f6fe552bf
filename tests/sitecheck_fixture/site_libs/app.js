// A small stand-in for Quarto's page script: marks the page as ready.
document.documentElement.dataset.ready = "true";
