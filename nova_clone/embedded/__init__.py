"""``nova-clone up``: a whole cloud in one process (the embedded mode)."""
