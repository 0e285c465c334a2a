"""Clients other services use to reach the scheduler."""
