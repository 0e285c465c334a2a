"""``python -m nova_clone.peers SERVICE --config-file FILE``."""

import sys

from nova_clone.peers import service

if __name__ == '__main__':
    sys.exit(service.main())
