"""The sandbox: the official database directory loaded into indexed lookups (``sandbox``, ``database``), the
built-once SQLite store every worker opens memory-mapped (``sqlite``), a per-query sandbox from a record's
``reference_information`` (``reference``), and a synthetic full-size flights table (``synthetic``)."""

from .database import DatabaseError, load_database
from .reference import sandbox_from_reference
from .sandbox import Sandbox, SandboxStore
from .sqlite import build_store, open_store

__all__ = ["DatabaseError", "Sandbox", "SandboxStore", "build_store", "load_database", "open_store",
           "sandbox_from_reference"]
