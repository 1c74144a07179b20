"""What an xdist worker sends of an example's reports: the record and the JUnit
properties as one JSON text.

execnet, which carries a report from a worker to the controller, serialises its dict
in Python object by object, and decodes it so on the other side. An example's reports
hold about 300 objects, most of them in two fields: its record (``report.editpred``,
about 100) and the ``user_properties`` of its call and teardown reports (20 pairs
each). ``json`` does the same in C. Packed on the worker and unpacked on the
controller before pytest builds the report again, nothing else sees a difference
(``pytest-reportlog`` and other readers of ``pytest_report_to_serializable`` run on
the controller, where nothing is packed). Properties are packed only when every name
is a string and every value a number, string, bool or None, which JSON gives back
exactly; anything else travels as xdist sends it.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

import pytest

from .reporting import _is_example_id

__all__ = ["Wire"]

#: The key of the packed fields in a serialised report.
_PACKED = "editpred_packed"
_SCALARS = (str, int, float, bool, type(None))


class Wire:
    """The two hooks, registered as one plugin."""

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(
        self, config: pytest.Config, report: Any
    ) -> Generator[None, dict[str, Any] | None, dict[str, Any] | None]:
        data = yield
        if data is None or not hasattr(config, "workerinput") or not _is_example_id(str(data.get("nodeid", ""))):
            return data
        packed: dict[str, Any] = {}
        if isinstance(data.get("editpred"), dict):
            packed["editpred"] = data["editpred"]
        properties = data.get("user_properties")
        if properties and all(
            isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) and isinstance(pair[1], _SCALARS)
            for pair in properties
        ):
            packed["user_properties"] = properties
        if packed:
            try:
                text = json.dumps(packed)
            except (TypeError, ValueError):  # a value JSON cannot hold: sent as it is
                return data
            for key in packed:
                del data[key]
            data[_PACKED] = text
        return data

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_from_serializable(self, config: pytest.Config, data: dict[str, Any]) -> None:
        """Unpack in place; pytest's own implementation then builds the report."""
        text = data.pop(_PACKED, None)
        if not isinstance(text, str):
            return
        packed = json.loads(text)
        if "editpred" in packed:
            data["editpred"] = packed["editpred"]
        if "user_properties" in packed:
            data["user_properties"] = [tuple(pair) for pair in packed["user_properties"]]
