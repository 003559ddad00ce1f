"""Confluent 8.x's Associations API: which subject a topic's key or value uses.

`records` holds what the layers pass each other, `rules` Confluent's validation of a change
before anything is read, `service` the operations (each change one transaction with its audit
row) and `errors` the codes Confluent answers them with. Producers that name subjects through
`AssociatedNameStrategy` ask the read routes on every new topic, so a read never refuses a
caller who authenticated: what it may not see is left out.
"""
