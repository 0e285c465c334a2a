"""The cell database (cell0 and every cell)."""
