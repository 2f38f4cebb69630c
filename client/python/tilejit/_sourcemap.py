# SPDX-License-Identifier: Apache-2.0
"""A compiled request's source map: canonical IR statement ids (the binary's line table, the
"line-table stmt N" of findings and disassembly) -> the user's file:line:col.

The map comes with the Compile response (CompileRequest.include_source_map) and stays with the
kernel object, so findings of a local launch, which only know statement ids, name the user's
own files and lines: the same text the daemon appends for its own launches.
"""
import re

_STMT = re.compile(r"line-table stmt ([0-9]+)")


class SourceMap:
    """positions[id] = (file index, line, column); files[i] = (name, text)."""
    __slots__ = ("positions", "files", "_lines")

    def __init__(self, positions, files):
        self.positions, self.files = tuple(positions), tuple(files)
        self._lines = {}

    @classmethod
    def from_response(cls, response, files):
        return cls(((p.file, p.line, p.column) for p in response.source_map), files)

    def where(self, stmt):
        """"file:line:col" of statement `stmt`, or None."""
        if not 0 <= stmt < len(self.positions):
            return None
        file, line, column = self.positions[stmt]
        if line == 0 or file >= len(self.files):
            return None
        return f"{self.files[file][0]}:{line}:{column}"

    def line_text(self, stmt):
        """The source line of statement `stmt` (stripped), or ""."""
        if not 0 <= stmt < len(self.positions):
            return ""
        file, line, _ = self.positions[stmt]
        if line == 0 or file >= len(self.files):
            return ""
        lines = self._lines.get(file)
        if lines is None:
            lines = self._lines[file] = self.files[file][1].splitlines()
        return lines[line - 1].strip() if line <= len(lines) else ""

    def locate(self, message):
        """`message` with ", file:line:col" after every "line-table stmt N" the map knows."""
        def name(m):
            where = self.where(int(m.group(1)))
            return m.group(0) + (f", {where}" if where else "")
        return _STMT.sub(name, message)

    def annotate_listing(self, listing):
        """A disassembly with each "; line-table stmt N" comment followed by the user's
        file:line:col and source line."""
        def name(m):
            stmt = int(m.group(1))
            where = self.where(stmt)
            if not where:
                return m.group(0)
            return f"{m.group(0)}, {where}: {self.line_text(stmt)}"
        return _STMT.sub(name, listing)
