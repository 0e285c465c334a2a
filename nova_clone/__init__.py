"""nova-clone: a reimplementation of the OpenStack Nova compute control plane."""
