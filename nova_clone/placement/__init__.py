"""The Placement report client (Placement itself is the real service)."""
