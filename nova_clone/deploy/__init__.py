"""What both deployments (nova_clone.embedded, nova_clone.stack) share:
the first-start seed, clouds.yaml writing, the interpreter check."""
