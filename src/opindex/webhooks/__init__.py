"""OpenProject webhooks: verify the signature, learn what to re-fetch, re-fetch it soon.

Import from the submodules (``signature``, ``events``, ``receiver``): the sandbox signs
its webhooks with :mod:`opindex.webhook_signature` without loading the receiver.
"""

from opindex.webhooks.receiver import WebhookReceiver

__all__ = [
    "WebhookReceiver",
]
