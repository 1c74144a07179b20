"""The options on pytest's command line and ini file (:mod:`pytest_editpred._options`
holds the table and the rules that read it, without pytest, so that ``editpred``'s
commands read the same settings a run does).
"""

from __future__ import annotations

from typing import Literal

import pytest

from .._options import (
    OPTIONS,
    PROVIDER_OPTIONS,
    REPORT_OPTIONS,
    Option,
    argparse_kwargs,
    check_combinations,
    check_values,
    context_from,
    get,
    given,
    judge_from,
    limits_from,
    repo_cache_dir,
    repo_mappings,
    retrieval_from,
    settings_from,
)

__all__ = [
    "OPTIONS",
    "PROVIDER_OPTIONS",
    "REPORT_OPTIONS",
    "Option",
    "add_options",
    "check_combinations",
    "check_values",
    "context_from",
    "get",
    "given",
    "judge_from",
    "limits_from",
    "settings_from",
    "repo_mappings",
    "repo_cache_dir",
    "retrieval_from",
]


def add_options(parser: pytest.Parser, extra: tuple[Option, ...] = ()) -> None:
    group = parser.getgroup("editpred", "edit-prediction evals (pytest-editpred)")
    for option in OPTIONS + extra:
        if option.name != "paths":
            group.addoption(option.flag, **argparse_kwargs(option))
        if option.ini:
            ini_type: Literal["bool", "linelist", "string"] = (
                "bool" if option.kind == "bool" else "linelist" if option.kind == "list" else "string"
            )
            parser.addini(option.dest, option.help, type=ini_type, default=None)
    parser.addini(
        "editpred_repos", "repository URL to local path mappings, one 'URL = PATH' a line", type="linelist", default=[]
    )
