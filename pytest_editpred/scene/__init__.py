"""The scene: the moment an example describes, rebuilt from git (zed-format.md §3).

The second stage: an :class:`~pytest_editpred.example.Example` becomes buffers (the
repository at the revision, the uncommitted diff, the edit history replayed), a cursor
and a :class:`PredictionRequest`, the one thing a completion function is handed.
Repository URLs, the local mirror cache and every git call live here; patches are
applied to buffers here too, since the oracle and the judge both need that.
"""

from ._git import CONFIG as GIT_CONFIG
from ._git import LOCAL as GIT_LOCAL
from ._git import CatFile as GitCatFile
from ._git import isolated_environment as git_isolated_environment
from ._git import kill as git_kill
from ._git import start as git_start
from ._patch import Buffers, Patched, apply_patch, created_paths, deleted_paths
from ._repository import RepositoryCache, default_cache_dir
from ._request import Cursor, EditEvent, Excerpt, PredictionRequest, compute_excerpt, hunks
from ._scene import Scene, build_scene, excerpt_matches, unified_diff
from ._urls import parse_repo_mapping, redact, split_path

__all__ = [
    "Buffers",
    "GIT_CONFIG",
    "GitCatFile",
    "GIT_LOCAL",
    "git_isolated_environment",
    "git_kill",
    "git_start",
    "Cursor",
    "EditEvent",
    "Excerpt",
    "Patched",
    "PredictionRequest",
    "RepositoryCache",
    "Scene",
    "apply_patch",
    "build_scene",
    "compute_excerpt",
    "excerpt_matches",
    "created_paths",
    "default_cache_dir",
    "deleted_paths",
    "hunks",
    "parse_repo_mapping",
    "redact",
    "split_path",
    "unified_diff",
]
