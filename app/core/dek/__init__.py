"""The DEK registry: key encryption keys (KEKs) and the data encryption keys
(DEKs) they wrap, kept for the clients' client-side field encryption (an `ENCRYPT` rule).

Confluent's clients generate a DEK, wrap it with their KMS and store only the wrapped bytes
here; a `shared` KEK asks the server to do the wrapping and unwrapping through a KMS driver
of its own (kms.py), so that key material is never stored, only returned. The records and
the storage protocol are in records.py, the operations in service.py.
"""
