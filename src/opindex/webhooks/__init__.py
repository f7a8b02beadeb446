"""OpenProject webhooks: verify the signature, learn what to re-fetch, re-fetch it soon.

Import from the submodules (``signature``, ``events``, ``receiver``): the sandbox signs
its webhooks with :mod:`opindex.webhooks.signature` without loading the receiver.
"""
