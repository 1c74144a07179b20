"""The sample buffer the prompt and provider tests share: a rename half carried out.

The user renamed ``hello`` to ``greet`` in the definition; the two calls still say
``hello`` and the cursor sits on the first one.
"""

from __future__ import annotations

from pytest_editpred import Cursor, EditEvent, Example, PredictionRequest

PATH = "src/greet.py"
TEXT = (
    "import sys\n"
    "\n"
    "def greet(name):\n"
    "    print(name)\n"
    "\n"
    "def main():\n"
    "    hello(sys.argv[1])\n"
    '    hello("world")\n'
    "\n"
    "main()\n"
)
CURSOR = TEXT.index("hello(sys")
RENAME = EditEvent(PATH, PATH, "@@ -3,2 +3,2 @@\n-def hello(name):\n+def greet(name):\n     print(name)\n")


def request(
    text: str = TEXT,
    offset: int = CURSOR,
    events: tuple[EditEvent, ...] = (RENAME,),
    path: str = PATH,
    *,
    trial: int = 1,
    name: str = "rename",
) -> PredictionRequest:
    example = Example(
        name=name, repository_url="https://github.com/o/r", revision="abc", cursor_path=path, cursor_position=""
    )
    return PredictionRequest(example, {path: text}, Cursor.at(path, text, offset), events=events, trial=trial)
