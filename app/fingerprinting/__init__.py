"""Avro's Parsing Canonical Form and the fingerprints computed from it (CRC-64-AVRO, MD5,
SHA-256): the one definition both sides need, the server's Avro format (it stores and indexes
fingerprints) and the client (single-object framing, resolvers). Standard library only, so
that neither side loads the other to use it. `java_numbers` is the other text both print alike:
Java's number text, for canonical schema JSON and for the client's variant JSON."""
