"""What only nova-compute runs: the flows of one compute host.

The ComputeManager (nova_clone.compute.manager) receives the compute RPC
methods and hands each to its flow here, with the host's collaborators
(collaborators.Collaborators):

  build.py        build_and_run_instance (boot diagram, compute side)
  delete.py       terminate_instance (delete diagram, compute side)
  resize.py       the steps of a resize or cold migration, confirm and
                  revert (scenario 3, compute side)
  live_migration.py  live migration, both hosts (scenario 4)
  teardown.py     the undoing steps failed builds, deletes and reaping share
  events.py       external instance events and the waiters for them
  block_devices.py  Cinder attachments of a build, block_device_info
  network_info.py the instance's network info cache
  startup.py      settling what a previous run of the service left
  periodic.py     power state sync, guests of deleted instances
  nodes.py        compute node records and Placement providers
  resource_tracker.py, claims.py  this host's usage
"""
