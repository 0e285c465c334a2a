"""Stand-ins for the peer services Nova talks to.

Protocol-true, small HTTP services for Glance (``glance``), Neutron
(``neutron``), Cinder (``cinder``) and -- for the embedded mode only -- the
identity service (``identity``).  Each keeps real state in a database
(``[peers] connection``) and checks tokens with keystonemiddleware.  Run
one with ``python -m nova_clone.peers SERVICE --config-file FILE``, or
start it inside a process with ``nova_clone.peers.service.start``.
"""
