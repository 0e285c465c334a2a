"""What only nova-compute runs: the flows of one compute host.

The ComputeManager (nova_clone.compute.manager) receives the compute RPC
methods and hands each to a flow module here, with the host's
collaborators (collaborators.Collaborators).
"""
