"""Everything an example says that reaches a git command line is checked here.

An example is a file anyone can send in a pull request, and its ``repository_url``,
``revision`` and paths end up as git arguments. git turns some URLs into commands
(``ext::sh -c ...``), reads others as options (``-uhelp``, ``--upload-pack=...``) and
reads local files for others (``file:///etc``). So the rule is an allow-list, not a
deny-list: only the forms below pass, everything else raises
:class:`RefusedRepositoryError` before git is ever started.

* ``https://host/owner/repo`` and ``http://...``;
* ``ssh://[user@]host[:port]/owner/repo``;
* scp-like ``user@host:owner/repo`` (the user is required, as in Zed, which tells the
  ssh form by its ``@``; without it ``C:/x`` would pass for a host);
* any other string **only** if the user mapped it to a local path: git never sees it.

A ``.git`` suffix is optional everywhere; one mirror serves all spellings of a
repository, so the cache key drops the scheme, the user and the suffix.

Revisions must be hexadecimal object ids, and paths must stay inside the repository,
also through symlinks (:func:`split_path`, :func:`follow_link`, :func:`join_inside`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .._exceptions import ConfigError, InvalidRevisionError, RefusedRepositoryError, UnsafePathError

__all__ = [
    "RepoURL",
    "parse_repo_mapping",
    "follow_link",
    "join_inside",
    "parse_url",
    "redact",
    "redact_all",
    "split_path",
    "url_key",
    "validate_revision",
]

_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f-\x9f\u2028\u2029\s]")
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")
_USER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._~-]*")
_SEGMENT = re.compile(r"[A-Za-z0-9._~+-]+")
_SCP = re.compile(r"(?P<user>[^@/:]+)@(?P<host>[^/:]+):(?P<path>.+)")
_SCHEME = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
_DEFAULT_PORTS = {"https": 443, "http": 80, "ssh": 22}
_REVISION = re.compile(r"[0-9a-fA-F]{4,64}")


@dataclass(frozen=True)
class RepoURL:
    """A repository URL that passed validation.

    ``url`` is exactly what git is given and may carry credentials, so it is kept out
    of ``repr``; print :attr:`display` instead. ``kind`` is ``https``, ``http``,
    ``ssh``, ``scp`` or ``local`` (a string accepted only because it is mapped).
    """

    url: str = field(repr=False)
    kind: str
    host: str
    port: int | None
    path: str

    @property
    def name(self) -> str:
        """Zed's ``repo_name()``: the last path segment without ``.git`` (``flask``)."""
        tail = self.path.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        return tail.removesuffix(".git")

    @property
    def key(self) -> str:
        """The same string for every spelling of one repository: one mirror each."""
        if self.kind == "local":
            return f"local:{self.path}"
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.host.lower()}{port}/{self.path}"

    @property
    def slug(self) -> str:
        """A readable, filesystem-safe directory name; the hash keeps it unique even
        on case-insensitive filesystems and after truncation."""
        readable = re.sub(r"[^A-Za-z0-9._-]+", "-", self.key.replace("local:", "")).strip("-.")
        digest = hashlib.sha256(self.key.encode()).hexdigest()[:12]
        return f"{readable[:60] or 'repo'}-{digest}"

    @property
    def display(self) -> str:
        """The URL with any password or token replaced by ``***``: safe to print."""
        return redact(self.url)

    @property
    def git_url(self) -> str:
        """What git is given and keeps in the mirror's config: the URL without
        credentials (an http(s) URL without its userinfo, an ssh URL without its
        password). The credentials go to git for the fetch only (:attr:`credentials`)."""
        match = _USERINFO.match(self.url)
        if match is None or self.kind not in ("https", "http", "ssh"):
            return self.url
        scheme, userinfo = match.group(1), match.group(2)
        rest = self.url[match.end() :]
        if self.kind == "ssh":
            return f"{scheme}{userinfo.split(':', 1)[0]}@{rest}"
        return scheme + rest

    @property
    def credentials(self) -> tuple[str, str | None] | None:
        """``(user, password or None)`` of an http(s) URL, percent-decoded, as git's
        credential protocol wants them; None without any. A line break cannot pass
        through that protocol (it would end the answer), so it is refused."""
        match = _USERINFO.match(self.url)
        if match is None or self.kind not in ("https", "http"):
            return None
        user, colon, password = match.group(2).partition(":")
        user, password = unquote(user), unquote(password)
        if "\n" in user + password or "\0" in user + password:
            raise _refuse(self.url, "its credentials contain a line break or NUL")
        return user, (password if colon else None)

    def __str__(self) -> str:
        return self.display


#: ``scheme://`` and the userinfo before the last ``@`` of the authority.
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/]*)@")


def redact(url: str) -> str:
    """Hide credentials: the whole userinfo of http(s) URLs (a token often sits in the
    user part), the password of others. Works on strings that failed validation too."""
    match = _USERINFO.match(url)
    if not match:
        return url
    scheme, userinfo = match.group(1), match.group(2)
    if scheme.lower().startswith("http"):
        hidden = "***"
    else:
        hidden = f"{userinfo.split(':', 1)[0]}:***" if ":" in userinfo else userinfo
    return f"{scheme}{hidden}@{url[match.end() :]}"


def redact_all(text: str) -> str:
    """:func:`redact` every URL in a text, such as git's error output."""
    return re.sub(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s]*@\S*", lambda m: redact(m.group()), text)


def _refuse(url: str, why: str) -> RefusedRepositoryError:
    shown = ascii(redact(url))
    return RefusedRepositoryError(f"refused repository URL {shown}: {why}")


def _check_text(url: str) -> None:
    """Refuse what could be an option or break a command line, mapped or not."""
    if not url:
        raise _refuse(url, "it is empty")
    if _CONTROL_OR_SPACE.search(url):
        raise _refuse(url, "it contains whitespace or control characters")
    if url.startswith("-"):
        raise _refuse(url, "it begins with '-', which git would read as an option")


def _clean_path(url: str, path: str) -> str:
    """``owner/repo`` without slashes at the ends or the ``.git`` suffix."""
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4].rstrip("/")
    segments = path.split("/")
    if not path or any(s in ("", ".", "..") or not _SEGMENT.fullmatch(s) for s in segments):
        raise _refuse(url, f"path {path!r} is not a plain owner/repo path")
    if path.startswith("-"):
        raise _refuse(url, "its path begins with '-'")
    return path


def _check_host(url: str, host: str, user: str | None) -> None:
    if not _HOST.fullmatch(host):
        raise _refuse(url, f"host {host!a} is not a host name")
    if user is not None and not _USER.fullmatch(user):
        raise _refuse(url, "its user name is not a plain name")


def _parse_scheme_url(url: str, scheme: str) -> RepoURL:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise _refuse(url, str(error)) from None
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise _refuse(url, "a repository URL has no query or fragment")
    host = parts.hostname or ""
    if parts.netloc.startswith("[") or ":" in host:  # IPv6: urlsplit drops brackets
        host = f"[{host}]"
    user = parts.username if scheme == "ssh" else None
    _check_host(url, host, user)
    port = None if port == _DEFAULT_PORTS[scheme] else port
    return RepoURL(url, scheme, host.lower(), port, _clean_path(url, parts.path))


def parse_url(url: str, *, mapped: bool = False) -> RepoURL:
    """Validate ``url`` and split it; ``mapped=True`` also accepts any other text,
    because a mapped URL only names a local path and is never given to git."""
    _check_text(url)
    scheme_match = _SCHEME.match(url)
    scheme = scheme_match.group("scheme").lower() if scheme_match else None
    try:
        if scheme in _DEFAULT_PORTS:
            return _parse_scheme_url(url, scheme)
        if "::" in url.split("/", 1)[0]:
            raise _refuse(url, "'transport::address' URLs can run commands")
        if scheme is not None:
            raise _refuse(url, f"the {scheme}:// transport is not allowed")
        scp = _SCP.fullmatch(url)
        if scp is None:
            raise _refuse(url, "it is not an https://, ssh:// or user@host:owner/repo URL")
        _check_host(url, scp["host"], scp["user"])
        return RepoURL(url, "scp", scp["host"].lower(), None, _clean_path(url, scp["path"]))
    except RefusedRepositoryError:
        if not mapped:
            raise
        return RepoURL(url, "local", "", None, url.rstrip("/"))


def url_key(url: str) -> str:
    """The cache key of a URL as the user may write it in a mapping."""
    return parse_url(url, mapped=True).key


def validate_revision(revision: str) -> str:
    """A full or abbreviated (4+) hexadecimal object id, lower-cased.

    Branch names, ``HEAD~1`` or ``@{-1}`` would make an example depend on the day it
    runs, and ``-`` could be an option: only object ids pass.
    """
    if not isinstance(revision, str) or not _REVISION.fullmatch(revision):
        raise InvalidRevisionError(f"revision {revision!a} is not a hexadecimal object id (4 to 64 digits)")
    return revision.lower()


def split_path(path: str) -> tuple[str, ...]:
    """The components of a repository-relative path, refusing anything that could
    leave the repository: absolute paths, drive letters, ``..``, backslashes (``a\\..\\x``
    is ``..`` on Windows), NUL and control characters, and ``.git``."""
    if not isinstance(path, str) or not path:
        raise UnsafePathError(f"unsafe path {path!a}: it is empty")
    return _split_path(path)


@lru_cache(maxsize=512)  # an example names its few paths many times over (every patch, every check)
def _split_path(path: str) -> tuple[str, ...]:
    def unsafe(why: str) -> UnsafePathError:
        return UnsafePathError(f"unsafe path {path!a}: {why}")

    if re.search(r"[\x00-\x1f\x7f]", path):
        raise unsafe("it contains NUL or control characters")
    if "\\" in path:
        raise unsafe("it contains a backslash")
    if path.startswith("/") or re.match(r"[A-Za-z]:", path):
        raise unsafe("it is absolute")
    parts = tuple(part for part in path.split("/") if part not in ("", "."))
    if ".." in parts:
        raise unsafe("it contains '..'")
    if any(part.lower() == ".git" for part in parts):
        raise unsafe("it names git's own '.git'")
    if not parts:
        raise unsafe("it names the repository root, not a file")
    return parts


def follow_link(directory: Sequence[str], target: str) -> tuple[str, ...]:
    """Where a symlink in ``directory`` (components) pointing at ``target`` leads, as
    components from the repository root; a target that leaves the tree is refused,
    since a checkout would then read a file of the machine, not of the repository."""
    if target.startswith("/") or "\\" in target or re.match(r"[A-Za-z]:", target):
        raise UnsafePathError(f"a symlink to {target!r}, which is absolute")
    parts = list(directory)
    for part in target.split("/"):
        if part == "..":
            if not parts:
                raise UnsafePathError(f"a symlink to {target!r}, which leaves the repository")
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return tuple(parts)


def join_inside(root: Path, path: str) -> Path:
    """``root/path`` with every symlink resolved, refusing a result outside ``root``:
    a checked-out symlink to ``/etc/passwd`` must not be read through."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(real_root.joinpath(*split_path(path))))
    if real != real_root and real_root not in real.parents:
        raise UnsafePathError(f"{path} leads out of the worktree {root} (to {real}) by a symlink")
    return real


def parse_repo_mapping(line: str, *, ini: bool) -> tuple[str, str]:
    """``(url, path)`` of one mapping: ``URL = PATH`` (a line of ini ``editpred_repos``)
    or ``URL=PATH`` (``--editpred-repo``). The plugin and ``editpred lint`` read the
    same lines, so they split them here, once."""
    if ini:
        url, sep, path = line.partition(" = ") if " = " in line else line.partition("=")
        if not sep or not url.strip() or not path.strip():
            raise ConfigError(f"ini editpred_repos: cannot read {line!r}", fix="Write one 'URL = PATH' a line.")
    else:
        url, sep, path = line.partition("=")
        if not sep or not url or not path:
            raise ConfigError(
                f"--editpred-repo {line!r}: expected URL=PATH",
                fix="For example --editpred-repo https://github.com/o/r=../r.bundle",
            )
    return url.strip(), path.strip()
