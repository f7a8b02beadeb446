"""The ``X-OP-Signature`` of an OpenProject webhook: ``sha1=<hex HMAC-SHA1(secret, body)>``."""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "X-OP-Signature"
_PREFIX = "sha1="


def sign(secret: str, body: bytes) -> str:
    """The header value OpenProject sends for ``body`` signed with ``secret``."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha1).hexdigest()
    return f"{_PREFIX}{digest}"


def signature_matches(secret: str, body: bytes, header: str | None) -> bool:
    """Whether ``header`` is the signature of ``body`` (constant-time comparison)."""
    if header is None or not header.startswith(_PREFIX):
        return False
    expected = sign(secret, body).encode("ascii")
    try:
        presented = header.strip().lower().encode("ascii")
    except UnicodeEncodeError:
        return False
    return hmac.compare_digest(expected, presented)
