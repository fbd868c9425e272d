"""Pure logic, no I/O: records and identifiers, query grammar and compilers, identity
graph and fusion, manifests, citation gate, quote verification, deduplication.

Each subpackage has its own public surface (``__all__``); import from the subpackage.
"""
