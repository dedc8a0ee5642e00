"""One module per provider: fetch a public API or page and parse it into monitor offers."""
