"""A regular expression compiled on its first use.

Python's regex compiler is written in Python: a module that compiles its patterns at import makes
every process that imports it pay for all of them, used or not. The redaction rules are imported
by every command, and most of them only run when a text holds their hint (a cold
`wfx executions list` meets none).
"""

import re
from functools import cached_property


class LazyPattern:
    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        # cached in the instance: later reads are a plain attribute read
        return re.compile(self._pattern, self._flags)
