"""What a driver says of a guest's console: where a console proxy
connects to reach it."""

import dataclasses


@dataclasses.dataclass
class Console:
    host: str
    port: int
    internal_access_path: str = None
    tls_port: int = None

    def get_connection_info(self, token, access_url):
        """What a compute answers for a console request."""
        return {'host': self.host, 'port': self.port,
                'internal_access_path': self.internal_access_path,
                'tls_port': self.tls_port, 'token': token,
                'access_url': access_url}


class ConsoleVNC(Console):
    pass


class ConsoleSpice(Console):
    pass


class ConsoleSerial(Console):
    pass
