"""Controllers: one module per REST resource."""
