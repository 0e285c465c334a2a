"""Nova's client of the image service (Glance)."""
