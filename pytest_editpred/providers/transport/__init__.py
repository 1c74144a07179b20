"""How a provider reaches a model: HTTP with retries and deadlines, bounded bodies,
the response cache, and secrets kept out of every output.

Two transports share one tiny interface (as httpx's do): httpx for real servers and
a plain h11 one for loopback; an :class:`Endpoint` puts the cache and the attempt
records in front of either.
"""

from ._cache import ResponseCache
from ._endpoint import Endpoint, Reply, malformed
from ._http import Backoff, HTTPTransport, Secret, attach, bearer_headers, wire_body

__all__ = [
    "Backoff",
    "Endpoint",
    "HTTPTransport",
    "Reply",
    "ResponseCache",
    "Secret",
    "attach",
    "bearer_headers",
    "malformed",
    "wire_body",
]
