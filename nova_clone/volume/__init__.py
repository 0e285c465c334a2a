"""Nova's client of the block storage service (Cinder)."""
