"""nova-scheduler: picks hosts for servers with Placement and filters."""
