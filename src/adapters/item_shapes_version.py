"""The item shapes a store's items are in, apart from the upgrade that brings them there.

A store opened at the current shapes (the common case) needs only this number, not the
upgrade's builders and parsers of every table.
"""

# a SQLite file records it (PRAGMA user_version) once upgraded
ITEM_SHAPES_VERSION = 3
