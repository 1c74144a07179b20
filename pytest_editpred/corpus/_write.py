"""Writing examples out: one readable ``.md`` per example (Zed's layout, loadable by
``ep`` unchanged), or ep JSONL lines; atomically, and never over an existing example
unless asked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from .._files import write_atomic
from ..example import Example, safe_id, to_json, to_markdown

__all__ = ["ExampleWriter", "Format"]

Format = Literal["markdown", "jsonl"]


class ExampleWriter:
    """Collects examples for ``out``: a directory of ``.md`` files, or, with
    ``jsonl``, the file ``out`` itself (a directory gets ``examples.jsonl``).

    An example whose file exists already is refused (``exists``) unless ``force``;
    one whose file name an earlier example of the same run took is refused too
    (``clashes``), ``force`` or not. JSONL is written once, at :meth:`close`, so a
    crash leaves no half file.
    """

    def __init__(self, out: Path, fmt: Format = "markdown", *, force: bool = False) -> None:
        self.out = out
        self.fmt = fmt
        self.force = force
        self.written: list[Path] = []
        self.exists: list[Path] = []
        self.clashes: list[Path] = []
        self._lines: list[str] = []
        self._names: set[str] = set()

    def path_for(self, example: Example) -> Path:
        """The file an example goes to: its name made safe for a file name."""
        return self.out / f"{safe_id(example.name) or 'example'}.md"

    def write(self, example: Example) -> bool:
        """Write (or queue) ``example``; False when its file exists and ``force`` is off."""
        if self.fmt == "jsonl":
            self._lines.append(json.dumps(to_json(example), ensure_ascii=False))
            return True
        target = self.path_for(example)
        if target.name in self._names:
            self.clashes.append(target)
            return False
        if target.exists() and not self.force:
            self.exists.append(target)
            return False
        self._names.add(target.name)
        write_atomic(target, to_markdown(example), sync=False)  # made again by running again
        self.written.append(target)
        return True

    def close(self) -> None:
        if self.fmt == "jsonl" and self._lines:
            target = self.out / "examples.jsonl" if self.out.is_dir() or not self.out.suffix else self.out
            if target.exists() and not self.force:
                self.exists.append(target)
                return
            write_atomic(target, "\n".join(self._lines) + "\n")
            self.written.append(target)
