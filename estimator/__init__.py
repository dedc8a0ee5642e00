"""Pure sizing knowledge: GPU and model catalogs, memory, time and cost math, query parsing."""
