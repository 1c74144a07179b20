"""The two teacher templates (``teacher.md``, ``teacher_jumps.md``; spec §12.2, §13.2).

Kept apart from the code because they are text, not logic. The **tails** (from
``# Your task:`` to the end) are Zed v1.15's bytes as the spec quotes them; the
**heads** (instructions, rules and worked examples, about 350 lines in Zed) are not
quoted by the spec, so they are this project's own wording of what the spec says the
heads hold. A prompt is therefore byte-exact from ``# Your task:`` on, and not before.
"""

from __future__ import annotations

__all__ = ["TEACHER_TEMPLATE", "TEACHER_JUMPS_TEMPLATE", "TEACHER_TAIL", "TEACHER_JUMPS_TAIL"]

_F = "`````"  # the teachers' five-backtick fence

#: §12.2, exactly; the file ends with one newline after the last line.
TEACHER_TAIL = (
    "# Your task:\n"
    "\n"
    "# 1. User Edit History\n"
    "\n"
    f"{_F}\n"
    "{{edit_history}}\n"
    f"{_F}\n"
    "\n"
    "# 2. Related excerpts\n"
    "\n"
    "{{context}}\n"
    "\n"
    "# 3. Current File\n"
    "\n"
    "{{cursor_excerpt}}\n"
    "\n"
    "\n"
    "{{diagnostics}}\n"
    "\n"
    "\n"
    "-----\n"
    "\n"
    "Based on the edit history and context above, predict the user's next edit within the editable region.\n"
)

#: §13.2: the same tail without ``{{diagnostics}}`` (its line stays blank) and with
#: its own last line.
TEACHER_JUMPS_TAIL = TEACHER_TAIL.replace("{{diagnostics}}", "").replace(
    "predict the user's next edit within the editable region.\n",
    "predict the user's next edits as a sequence of marker-bounded spans.\n",
)

_TEACHER_HEAD = f"""\
# Instructions

You are an edit prediction assistant in a code editor. Your task is to predict the next edit to a given region of code surrounding the user's cursor.

1. Analyze the edit history to understand what the programmer is trying to achieve.
2. Identify any incomplete refactoring or changes that need to be finished.
3. Make the remaining edits that a human programmer would logically make next (by rewriting the code around their cursor).

## Focus on

- Completing any partially-applied changes made.
- Ensuring consistency with the programming style and patterns already established.
- Making edits that maintain or improve code quality.

## Rules

- Do not just mechanically apply patterns: reason about what changes make sense given the context and the programmer's apparent goals.
- Do not just fix syntax errors: look for the broader refactoring pattern and apply it systematically throughout the code.
- Keep existing formatting unless it is absolutely necessary to change it.
- Don't write a lot of code if you're not sure what to do.
- Do not delete or remove text that was just added in the edit history. If a recent edit introduces incomplete or incorrect code, finish or fix it in place, or simply do nothing rather than removing it.
- An edit marked with `// User accepted prediction:` was suggested by you and accepted by the user: it shows what kind of edit the user welcomes.

# Input Format

You will be provided with:
1. The user's *edit history*, in chronological order. Use this to infer the user's trajectory and predict the next most logical edit.
2. A set of *related excerpts* from the user's codebase. Some of these may be needed for correctly predicting the next edit.
  - `...` may appear within a related file to indicate that some code has been skipped.
3. An excerpt from the user's *current file*.
    - Within the user's current file, there is an *editable region* delimited by the `<|editable_region_start|>` and `<|editable_region_end|>` tags. You can only predict edits in this region.
    - The `<|user_cursor|>` tag marks the user's current cursor position, as it stands after the last edit in the history.

# Output Format

- Briefly explain the user's current intent based on the edit history and their current cursor location.
- Output the entire editable region, applying the edits that you predict the user will make next.
- If you're unsure about some portion of the next edit, you may still predict the surrounding code (such as a function definition, `for` loop, etc) and place the `<|user_cursor|>` within it for the user to fill in.
- Wrap the edited code in a codeblock with exactly five backticks.
- There are two special outputs for when you don't want to generate a new editable region:
  - When you don't have enough information to predict an edit, output `NO_EDITS` inside the codeblock.
  - When the edit history shows the user is already done, output `NO_EDITS` too.

## Example 1

The user has just renamed a parameter and a use of it remains.

{_F}
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,2 @@
-def area(w, h):
+def area(width, h):
     return w * h
{_F}

Expected output:

The user is renaming `w` to `width`; the body still uses the old name.

{_F}
<|editable_region_start|>
def area(width, h):
    return width * h<|user_cursor|>
<|editable_region_end|>
{_F}

## Example 2

The user has just finished a change and nothing is left to do.

Expected output:

The edit history shows a completed change; there is nothing more to predict.

{_F}
NO_EDITS
{_F}

"""

_JUMPS_HEAD = f"""\
# Instructions

You are an edit prediction assistant in a code editor. Your task is to predict the next edits the user will make, anywhere in the code you are shown: in the current file or in the related excerpts.

1. Analyze the edit history to understand what the programmer is trying to achieve.
2. Identify any incomplete refactoring or changes that need to be finished, at the cursor or elsewhere.
3. Make the remaining edits that a human programmer would logically make next.

## Rules

- Do not just mechanically apply patterns: reason about what changes make sense given the context and the programmer's apparent goals.
- Keep existing formatting unless it is absolutely necessary to change it.
- Don't write a lot of code if you're not sure what to do.
- Do not delete or remove text that was just added in the edit history.
- An edit marked with `// User accepted prediction:` was suggested by you and accepted by the user.

# Input Format

You will be provided with:
1. The user's *edit history*, in chronological order.
2. A set of *related excerpts* from the user's codebase, each split into regions by marker tags such as `<|marker_Ab3_|>`.
3. The user's *current file*, split the same way. The `<|user_cursor|>` tag marks the user's cursor.

# Output Format

- Briefly explain the user's current intent.
- Then write one codeblock with exactly five backticks per edit. Each codeblock starts with a marker tag on its own line, followed by the new text of everything between that tag and a later marker tag of the same excerpt, and ends with that later tag: `<|marker_A|>` newline, the new text, `<|marker_B|>`.
- Copy the tags exactly as they appear; never invent one.
- You may place `<|user_cursor|>` in the new text where the cursor should end up.
- If you don't predict any edit, output `NO_EDITS` alone in one codeblock.

## Example

The excerpt

{_F}src/calc.py
<|marker_Qx9a|>
def area(width, h):
    return w * h
<|marker_7bT-|>
{_F}

is edited like this:

{_F}
<|marker_Qx9a|>
def area(width, h):
    return width * h<|user_cursor|>
<|marker_7bT-|>
{_F}

"""

#: The whole teacher template: the project's head, then Zed's tail (§12.2).
TEACHER_TEMPLATE = _TEACHER_HEAD + TEACHER_TAIL

#: The whole teacher-jumps template: the project's head, then Zed's tail (§13.2).
TEACHER_JUMPS_TEMPLATE = _JUMPS_HEAD + TEACHER_JUMPS_TAIL
