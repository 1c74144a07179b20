"""URL, revision and path validation: the allow-list in front of every git command."""

from __future__ import annotations

import pytest

from pytest_editpred import (
    InvalidRevisionError,
    RefusedRepositoryError,
    UnsafePathError,
)
from pytest_editpred.scene._urls import (
    follow_link,
    parse_url,
    redact,
    redact_all,
    split_path,
    url_key,
    validate_revision,
)

SAME_REPOSITORY = [
    "https://github.com/a/b",
    "https://github.com/a/b.git",
    "https://github.com/a/b/",
    "https://GitHub.com/a/b.git/",
    "http://github.com/a/b",
    "https://token@github.com/a/b",
    "https://github.com:443/a/b",
    "git@github.com:a/b",
    "git@github.com:a/b.git",
    "ssh://git@github.com/a/b.git",
    "ssh://git@github.com:22/a/b",
]

REFUSED = [
    "ext::sh -c touch% /tmp/pwned",
    "ext::sh",
    "fd::17",
    "fd::0,1/x",
    "file:///etc",
    "file::/etc",
    "FILE:///etc",
    "git://github.com/a/b",
    "rsync://host/a/b",
    "https::github.com/a/b",
    "-uhelp",
    "--upload-pack=touch /tmp/x",
    "--upload-pack=touch",
    "http://exa mple",
    "https://github.com/a/b\n",
    "https://github.com/a/\tb",
    "https://github.com/a/b\x1b[31m",
    "https://github.com/a/b\x00",
    "",
    "https://",
    "https://github.com/",
    "https://github.com/a/../b",
    "https://github.com/a/b?x=1",
    "https://github.com/a/b#frag",
    "https://-oProxyCommand=x/a/b",
    "ssh://-oProxyCommand=touch%20x/a/b",
    "ssh://-user@host/a/b",
    "git@-oProxyCommand=x:a/b",
    "github.com:a/b",
    "C:/repos/x",
    "/srv/repos/x",
    "../x",
    "https://github.com:notaport/a/b",
]


@pytest.mark.parametrize("url", SAME_REPOSITORY)
def test_every_spelling_has_one_key_and_slug(url: str) -> None:
    parsed = parse_url(url)
    reference = parse_url(SAME_REPOSITORY[0])
    assert parsed.key == reference.key == "github.com/a/b"
    assert parsed.slug == reference.slug
    assert (parsed.host, parsed.path, parsed.name) == ("github.com", "a/b", "b")


@pytest.mark.parametrize(
    ("url", "kind", "name"),
    [
        ("https://github.com/pallets/flask", "https", "flask"),
        ("https://github.com/pallets/flask.git", "https", "flask"),
        ("git@github.com:zed-industries/zed.git", "scp", "zed"),
        ("ssh://git@example.com:2222/team/proj", "ssh", "proj"),
        ("https://gitlab.com/group/sub/proj.git", "https", "proj"),
        ("http://127.0.0.1:8080/proj.git", "http", "proj"),
        ("https://[::1]:8443/a/b", "https", "b"),
    ],
)
def test_accepted_forms(url: str, kind: str, name: str) -> None:
    parsed = parse_url(url)
    assert (parsed.kind, parsed.name) == (kind, name)


def test_a_port_that_is_not_the_default_is_part_of_the_key() -> None:
    assert parse_url("ssh://git@example.com:2222/a/b").key == "example.com:2222/a/b"
    assert parse_url("http://127.0.0.1:8080/a/b").key != parse_url("http://127.0.0.1/a/b").key


def test_paths_keep_their_case_but_hosts_do_not() -> None:
    assert parse_url("https://GITHUB.com/A/B").key == "github.com/A/B"
    assert parse_url("https://github.com/A/B").slug != parse_url("https://github.com/a/b").slug


@pytest.mark.parametrize("url", REFUSED)
def test_refused_urls(url: str) -> None:
    with pytest.raises(RefusedRepositoryError) as info:
        parse_url(url)
    assert "--editpred-repo" in info.value.fix
    assert "\n" not in info.value.reason and "\x1b" not in info.value.reason


@pytest.mark.parametrize("url", ["/srv/repos/x", "flask-local", "ext::sh", "file:///srv/x"])
def test_a_mapped_url_may_be_any_text_because_git_never_sees_it(url: str) -> None:
    parsed = parse_url(url, mapped=True)
    assert parsed.kind == "local"
    assert url_key(url) == parsed.key
    assert "/" not in parsed.slug


@pytest.mark.parametrize("url", ["-uhelp", "http://exa mple", "a\x00b", ""])
def test_even_a_mapped_url_may_not_be_an_option_or_contain_whitespace(url: str) -> None:
    with pytest.raises(RefusedRepositoryError):
        parse_url(url, mapped=True)


def test_mapping_keys_compare_by_normalized_key() -> None:
    assert url_key("git@example.com:team/proj") == url_key("https://example.com/team/proj.git")


def test_credentials_never_show() -> None:
    url = "https://alice:s3cret@github.com/a/b"
    parsed = parse_url(url)
    for text in (parsed.display, str(parsed), repr(parsed)):
        assert "s3cret" not in text and "alice" not in text
    assert parsed.url == url  # git still gets them
    assert redact("https://ghp_token@github.com/a/b") == "https://***@github.com/a/b"
    assert redact("https://u:p@ss@host/a/b") == "https://***@host/a/b"
    assert redact("ssh://git:pw@host/a/b") == "ssh://git:***@host/a/b"
    assert redact("git@github.com:a/b") == "git@github.com:a/b"
    stderr = "fatal: unable to access 'https://alice:s3cret@host/a.git/': 403"
    assert redact_all(stderr) == "fatal: unable to access 'https://***@host/a.git/': 403"
    with pytest.raises(RefusedRepositoryError) as info:
        parse_url("https://alice:s3cret@github.com/a/../b")
    assert "s3cret" not in str(info.value)


@pytest.mark.parametrize(
    ("revision", "expected"),
    [("abcd", "abcd"), ("ABCDEF0123", "abcdef0123"), ("a" * 40, "a" * 40), ("b" * 64, "b" * 64)],
)
def test_valid_revisions(revision: str, expected: str) -> None:
    assert validate_revision(revision) == expected


@pytest.mark.parametrize(
    "revision",
    [
        "abc",
        "",
        "HEAD",
        "main",
        "-x",
        "--all",
        "abcd~1",
        "abcd^",
        "abcd^{tree}",
        "g123",
        " abcd",
        "abcd\n",
        "a" * 65,
        "v1.0",
        "@{-1}",
        "abcd:README",
    ],
)
def test_invalid_revisions(revision: str) -> None:
    with pytest.raises(InvalidRevisionError) as info:
        validate_revision(revision)
    assert "hexadecimal" in info.value.fix


@pytest.mark.parametrize(
    ("path", "parts"),
    [
        ("a.txt", ("a.txt",)),
        ("src/app.py", ("src", "app.py")),
        ("./a//b", ("a", "b")),
        ("dir with space/x", ("dir with space", "x")),
        ("..a/b..", ("..a", "b..")),
    ],
)
def test_safe_paths(path: str, parts: tuple[str, ...]) -> None:
    assert split_path(path) == parts


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "../x",
        "a/../../x",
        "a/..",
        "..",
        "a\\..\\x",
        "..\\x",
        "a\x00b",
        "a\nb",
        "C:/x",
        "c:x",
        "",
        ".",
        "./",
        ".git/config",
        "a/.GIT/x",
    ],
)
def test_unsafe_paths(path: str) -> None:
    with pytest.raises(UnsafePathError):
        split_path(path)


@pytest.mark.parametrize(
    ("directory", "target", "parts"),
    [
        ((), "README", ("README",)),
        (("docs",), "../README", ("README",)),
        (("a", "b"), "./c/../d", ("a", "b", "d")),
        (("a",), "..", ()),
    ],
)
def test_symlinks_that_stay_in_the_repository(directory: tuple[str, ...], target: str, parts: tuple[str, ...]) -> None:
    assert follow_link(directory, target) == parts


@pytest.mark.parametrize(
    ("directory", "target"),
    [((), "../x"), (("a",), "../../x"), ((), "/etc/passwd"), ((), "C:/x"), ((), "..\\x")],
)
def test_symlinks_that_leave_the_repository(directory: tuple[str, ...], target: str) -> None:
    with pytest.raises(UnsafePathError):
        follow_link(directory, target)
