"""nova-compute: the manager, its flows, the resource tracker and states."""
