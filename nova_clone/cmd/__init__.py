"""Entry points: parse configuration, build the service, run it."""
