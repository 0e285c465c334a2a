"""Nova's client of the network service (Neutron) and its network model."""
