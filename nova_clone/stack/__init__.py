"""``nova-clone stack``: every service its own process (the multi-service
stack) on MariaDB, RabbitMQ, Keystone and Placement."""
