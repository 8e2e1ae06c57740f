"""Proxy values seen by a kernel body while it is traced (or run eagerly)."""
