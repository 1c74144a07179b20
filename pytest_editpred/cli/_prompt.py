"""``editpred prompt EXAMPLE...``: what a model is sent for each example (Zed's ``ep format-prompt``).

The settings are a run's: the ini file pytest would find for the examples
(``editpred_provider``, ``editpred_prompt_format``, ``editpred_repos``,
``editpred_cache_dir``, ...) read by the plugin's own option table and rules
(:mod:`pytest_editpred._options`), and the ``--editpred-*`` options that change what
is sent, with pytest's names and meanings. The work is
:func:`pytest_editpred.corpus.render_prompts`, which builds each request with the
provider's own code. Exit 0 when every example was shown, 1 when some could not be
(each said in one line while the others print), 2 for a usage error, a file that
cannot be read, or a provider that sends no prompt.
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path
from typing import IO, Any

from ._args import add_run_options
from ._console import Console

__all__ = ["register", "run"]

#: The run's options that change what is sent or which scene it is built from; each
#: is taken as ``pytest --editpred-<name>`` takes it (one table: ``_options.OPTIONS``).
TAKEN = (
    "provider",
    "model",
    "prompt_format",
    "max_tokens",
    "temperature",
    "stop",
    "extra_body",
    "repo",
    "cache_dir",
    "max_example_bytes",
    "retrieval_type",
    "no_retrieval",
)

DESCRIPTION = """\
Print what the provider sends the model for each example, built by the code a run
uses (the same scene, request and provider), without sending it.

Without --json the prompt is printed as the model reads it, byte for byte, with no
newline added: a raw-completion prompt (openai: the Zeta formats, Sweep) as it is;
chat messages (openai-chat) each as a line '[role]' and its content, messages
separated by a blank line; a fill-in-the-middle request (llamacpp-infill,
mistral-fim) as its named parts the same way ('[input_prefix]', '[input_suffix]';
'[prompt]', '[suffix]'); anthropic's teacher prompt as the one user message's text.
With --json the whole HTTP request body is printed exactly as it goes on the wire
(model, max_tokens, stop, extra_body, ...), followed by a newline: one body a line.

With more than one example, each prompt follows a line '==> EXAMPLE <==' (the file,
or FILE::ID for a line of a .jsonl file) and prompts are separated by a newline, as
'head' does; --json prints no header. An example that cannot be shown is one line
on standard error, and the others still print.

Settings come from the ini file pytest would use for the examples (pytest.ini,
pyproject.toml, tox.ini, setup.cfg: editpred_provider, editpred_model,
editpred_prompt_format, editpred_repos, editpred_cache_dir, ...), overridden by the
options below, which mean what they mean to pytest. Nothing is fetched: each
repository comes from the cache or a mapping (--editpred-repo); no base URL or API
key is needed. An example without related files gets them retrieved as a run
retrieves them (--editpred-retrieval-type, default lsp: a language server may
start; ini editpred_response_cache_dir shares a run's cache), or with
--editpred-no-retrieval the recently viewed and opened files.

Exit status: 0 when every example was shown; 1 when some could not be; 2 for a
usage error, a file that cannot be read, or a provider that sends no prompt
(baseline, oracle, noop, replay, a conftest.py's own editpred_completion for every
example named, or a context-only run: ini editpred_context_only)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "prompt",
        help="print what a model is sent for each example (the prompt, or with --json the request body)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths", metavar="EXAMPLE", nargs="+", type=Path, help="an example file (.md, .json, or .jsonl)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the request body as sent, one JSON object a line, instead of the prompt",
    )
    add_run_options(parser, TAKEN)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    import itertools

    from .._exceptions import EditPredError
    from ..corpus import render_prompts

    unreadable = [problem for problem in (_unreadable(path) for path in args.paths) if problem is not None]
    for where, message, fix in unreadable:
        console.problem(where, message, fix)
    if unreadable:
        return 2
    try:
        rendered = render_prompts(args.paths, _settings(args))
        # The first two (the provider is checked on the first): headers or not.
        peeked = list(itertools.islice(rendered, 2))
    except EditPredError as error:
        console.problem(error.path or "editpred prompt", error.reason, error.fix or None, line=error.line)
        return 2
    headers = len(peeked) > 1 and not args.json
    shown = failed = elsewhere = 0
    for item in itertools.chain(peeked, rendered):
        if item.error is not None:
            problem = item.error
            console.problem(problem.path or item.name, problem.reason, problem.fix or None, line=problem.line)
            failed += 1
            elsewhere += item.answered_elsewhere
            continue
        header = ("\n" if shown else "") + f"==> {item.name} <==\n" if headers else ""
        _write(console.out, _shown(item, args.json, header))
        shown += 1
    if not shown and failed and elsewhere == failed:
        return 2  # a conftest's own completion answers every example: no provider prompt to show
    return 1 if failed else 0


def _shown(item: Any, as_json: bool, header: str) -> bytes:
    """The bytes printed for one example: its request body and a newline, or its
    header and its prompt as the model reads it (:func:`~.._clip.prompt_text`)."""
    from .._clip import prompt_text

    if as_json:
        return bytes(item.outgoing.wire) + b"\n"
    return (header + prompt_text(item.outgoing.prompt)).encode("utf-8")


def _write(out: IO[str], data: bytes) -> None:
    """The bytes as they are (a text stream would translate newlines or refuse a
    character its encoding lacks)."""
    out.flush()
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        out.write(data.decode("utf-8"))


def _unreadable(path: Path) -> tuple[str, str, str] | None:
    """Why ``path`` cannot be read as an example file, or None (``stat`` and
    ``access``, not ``open``: opening a FIFO would wait for a writer)."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        return str(path), f"cannot read it: {error.strerror}", "Name an example file that exists."
    if stat.S_ISDIR(mode):
        return str(path), "is a folder, not an example file", "Name the example files, e.g. evals/*.md."
    if path.suffix.lower() not in (".md", ".json", ".jsonl"):
        return str(path), "is not an example file", "Name a .md, .json or .jsonl example."
    if not os.access(path, os.R_OK):
        return str(path), "cannot read it: permission denied", "Give read permission, or name another file."
    return None


def _settings(args: argparse.Namespace) -> Any:
    """The run's settings for these examples: the ini file pytest would find, then
    the command line, read by the plugin's rules."""
    from .._exceptions import ConfigError
    from .._options import get, limits_from, repo_cache_dir, repo_mappings, retrieval_from, settings_from
    from ..corpus import PromptSettings
    from ._run_options import run_options

    source, root = run_options(args.paths, args)
    if get(source, "context_only"):
        raise ConfigError(
            f"ini editpred_context_only is set in {source.inipath}: a run scores the context alone and asks no model, "
            "so it sends no prompt",
            fix="Show the prompt of a run that asks a model: unset editpred_context_only.",
        )
    return PromptSettings(
        provider=settings_from(source, lambda: None),
        cache_dir=repo_cache_dir(source),
        mappings=repo_mappings(source),
        max_example_bytes=limits_from(source).max_example_bytes,
        root=root,
        retrieval=retrieval_from(source),
    )
