"""Deployments of nova-clone: embedded (one process) and stack (many)."""
